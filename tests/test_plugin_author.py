"""What a plugin author meets beyond the maths (issue #25): choice options, Step through's formulas, messages."""

from __future__ import annotations

import random
from dataclasses import replace

import attention_lab_alibi
import pytest
import torch

from core import AttentionConfig, ConfigError, Option, load_registry
from core.config import option_problem
from core.kit.cases import option_values
from core.lab.session import Lab
from core.lab.steps import stage_texts, stages
from core.serve import views
from tests.plugin_zoo import Zoo

pytest_plugins = ["core.testing"]
KERNEL = Option("kernel", "elu", choices=("elu", "relu"), help="φ")


def test_a_choice_option_validates_and_the_kit_samples_only_its_choices():
    assert KERNEL.choices == ("elu", "relu") and KERNEL.validate("relu") == "relu"
    with pytest.raises(ConfigError, match=r"^option kernel='tanh' is not offered; choose elu or relu$"):
        KERNEL.validate("tanh")
    rng = random.Random(0)
    assert {option_values(KERNEL, rng) for _ in range(40)} == {"elu", "relu"}
    assert Option("k", 2, choices=[1, 2, 4]).choices == (1, 2, 4)  # a list is frozen into a tuple
    assert "whose choices are not all of its default's type" in str(option_problem([Option("k", "a", choices=("a", 1))]))
    assert "repeats a choice" in str(option_problem([Option("k", "a", choices=("a", "a"))]))


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("option", [Option("eps", 1e-6), Option("window", 3, minimum=1), Option("slope", 0.5, 0.0, 8.0)])
def test_nan_and_inf_are_refused_in_one_sentence_for_every_number_option(option, value):
    with pytest.raises(ConfigError, match=rf"^option {option.name}=-?(nan|inf) is not a number a layer can use; "
                                          r"choose a finite value$"):
        option.validate(value)


def test_nan_through_the_api_is_one_sentence_not_nan_weights():
    reg = load_registry(entry_points=False, plugins=[attention_lab_alibi])
    with pytest.raises(ConfigError, match="option slope=nan is not a number"):
        reg.build("alibi", AttentionConfig(options={"slope": float("nan")}))


def test_the_attention_tab_shows_a_choice_as_a_dropdown():
    gr = pytest.importorskip("gradio")
    from core.ui.attention_tab import option_control

    control = option_control(KERNEL, "opt-kernel")
    assert isinstance(control, gr.Dropdown) and control.value == "elu"
    assert [c[1] if isinstance(c, tuple) else c for c in control.choices] == ["elu", "relu"]


def test_step_through_shows_alibi_bias_declared_and_read_from_its_hooks():
    alibi = load_registry(entry_points=False, plugins=[attention_lab_alibi]).variants["alibi"]
    config = alibi.resolve(AttentionConfig(n_heads=2))
    declared = stage_texts(alibi, config, head=1)["scaled"][1]
    assert declared == "scaled = scores / √d_head - slope_h · |i - j|, slope_h = 0.5 / 2^1"
    undeclared = stage_texts(replace(alibi, formulas={}), config)["scaled"][1]  # only bias() overridden
    assert undeclared == "scaled = scores / √d_head + bias(T), the variant's bias, d_head = 8"
    lab = Lab(load_registry(entry_points=False, plugins=[attention_lab_alibi]))
    run = lab.run(views.make_request("the cat sat", "alibi"))
    scaled = next(s for s in stages(run, 0, variant=replace(alibi, formulas={})) if s.name == "scaled")
    assert scaled.latex.endswith("+ B")  # the typeset maths carries the bias too


def test_step_through_reads_score_fill_and_normalise_from_the_hooks():
    reg = load_registry(entry_points=False, plugins=[Zoo()])
    top_k = stage_texts(reg.variants["top-k-attention"], AttentionConfig(options={"top_k": 2}))
    assert top_k["masked"][1] == "masked = scaled, with -10000 where the mask says no"
    assert top_k["weights"][1].startswith("weights = normalise(masked)")
    kernel = stage_texts(reg.variants["kernel-attention"], AttentionConfig(options={"kernel": "elu"}))
    assert kernel["scores"][1].startswith("scores = score(Q, K)") and "0 where" in kernel["masked"][1]
    plain = stage_texts(None, AttentionConfig())
    assert plain["scaled"][1] == "scaled = scores / √d_head, d_head = 8"


def test_the_attention_tab_shows_both_maps_and_their_difference():
    lab = Lab(load_registry(entry_points=False, plugins=[Zoo()]))
    view = views.attention(lab, "the cat sat on the mat", "diff-attention", n_heads=2)
    titles = [h["title"] for h in view.heatmaps["heads"]]
    assert titles == ["head 0", "head 1", "head 0 · A₁", "head 1 · A₁", "head 0 · A₂", "head 1 · A₂"]
    run = lab.run(views.make_request("the cat sat", "diff-attention"))
    shown = {s.name: s for s in stages(run, 0, variant=lab.registry.get("diff-attention"))}
    assert shown["scores (A₁ | A₂)"].shape == (2, 3, 3) and len(shown["scores (A₁ | A₂)"].columns) == 6
    assert shown["weights"].formula == "weights = A₁ - λ·A₂, λ_init = 0.8"


BROKEN_SYNTAX = """
from core import hookimpl

def register_attention_variants(register)
    pass
"""
RAISES = """
from core import hookimpl

@hookimpl
def register_attention_variants(register):
    raise RuntimeError("no")
"""
TWICE = """
from core import AttentionModule, Variant, hookimpl

@hookimpl
def register_attention_variants(register):
    register(Variant(name="multi-head", title="t", summary="s", build=AttentionModule))
"""


def test_a_syntax_error_names_the_plugins_file_and_line(install_plugin):
    install_plugin("syntax", BROKEN_SYNTAX)
    (error,) = load_registry().errors
    assert error.reason.endswith(" at fake_syntax_plugin.py:4"), error.reason
    assert "frozen" not in error.reason and error.reason.startswith("could not be imported: SyntaxError: ")


def test_a_duplicate_names_the_line_that_registered_it(install_plugin):
    install_plugin("twice", TWICE)
    (error,) = load_registry().errors
    assert error.stage == "duplicate" and error.reason.endswith("rename it at fake_twice_plugin.py:6")


def test_asking_for_a_variant_whose_plugin_failed_names_the_failure_not_the_entry_point(install_plugin):
    install_plugin("raises", RAISES)
    with pytest.raises(ConfigError) as caught:
        load_registry().get("raises-attn")
    message = str(caught.value)
    assert "plugin raises (hook): register_attention_variants raised RuntimeError: no at fake_raises_plugin.py:6" in message
    assert "entry-point" not in message


def test_install_says_when_the_installed_package_cannot_be_imported(tmp_path, capsys):
    from core.cli import main

    folder = tmp_path / "broken"
    assert main(["new-plugin", "broken-attn", "--dir", str(folder)]) == 0
    module = next(folder.glob("attention_lab_*.py"))
    module.write_text(module.read_text() + "\ndef broken(:\n")
    code = main(["install", str(folder), "--", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
                 "--target", str(tmp_path / "site")])
    out = capsys.readouterr()
    assert code != 0 and "lists the new variants" not in out.out
    assert "the lab cannot load plugin broken-attn (import): could not be imported: SyntaxError" in out.err + out.out


def test_a_variant_without_maps_keeps_an_empty_maps_field():
    layer = load_registry(entry_points=False).build("multi-head", AttentionConfig())
    assert layer.trace(torch.randn(1, 3, 16)).maps == {}

