"""The Real model tab's views, served, for the tiny model and a Gemma 2 named by ATTENTION_LAB_MODELS: the model
view (each layer's own mask, the KV groups), the step-through (RoPE as its own step), causality, a variant in the
model's place, every mistake in one sentence, and every sentence in the reader's language."""

from __future__ import annotations

import pytest
import torch

from core.config import ConfigError
from core.i18n import speaking
from core.lab.real_steps import FIELDS
from core.render import model_pack
from core.serve import real_model, real_views
from tests.real_families import save

SENTENCE = "the fox that the child saw was hungry , so the fox slept ."
ENGLISH = "the fox that the child saw was hungry, so it slept"


@pytest.fixture(scope="module")
def gemma(tmp_path_factory):
    """A Gemma 2 (sliding and global layers, 4 query heads over 2 KV heads) offered by the app's variable."""
    folder = tmp_path_factory.mktemp("models") / "gemma-toy"
    save("gemma2", folder)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ATTENTION_LAB_MODELS", str(folder))
        yield "gemma-toy"


def test_the_step_through_of_the_tiny_model_shows_every_stage_of_the_chosen_head():
    formulas, views = real_views.step_view(SENTENCE, "tiny", True, True, 1, 2)
    assert len(formulas) == len(views) == len(FIELDS)
    shown = [f for f, text in zip(FIELDS, formulas, strict=True) if text is not None]
    assert shown == ["q", "k", "v", "scores", "scaled", "masked", "weights", "context"]  # GPT-2: no RoPE
    assert "layer 1 head 2" in formulas[FIELDS.index("q")]
    assert views[FIELDS.index("weights")]["heads"][0]["title"].startswith("weights")
    last_layer, last_head = real_views.last_layer_and_head("tiny")
    with pytest.raises(ConfigError, match=f"layers 0 to {last_layer}"):
        real_views.step_view(SENTENCE, "tiny", True, True, last_layer + 1, 0)
    with pytest.raises(ConfigError, match="whole number"):
        real_views.step_view(SENTENCE, "tiny", True, True, "one", 0)


def test_the_causality_section_measures_zero_on_every_earlier_row_and_says_so():
    last, view, summary = real_views.causality_on_page(SENTENCE, "tiny", True, True, 99, "dog")
    assert last == len(real_model.tokens_and_ids("tiny", SENTENCE)[1]) - 1  # a slider past the end reads the last
    assert "max |Δ weight| = **0**" in summary and "nothing an earlier row computes" in summary
    assert len(view["heads"]) == real_views.last_layer_and_head("tiny")[0] + 1  # one map per layer
    _, _, lifted = real_views.causality_on_page(SENTENCE, "tiny", False, True, 5, "dog")
    assert "reaches back" in lifted
    for word, words in (("   ", "must be text"), ("saw", "already at position")):
        with pytest.raises(ConfigError, match=words):
            real_views.causality_view(SENTENCE, "tiny", True, True, 5, word)


def test_the_png_export_redraws_the_compact_view_the_page_holds(tmp_path):
    view, _, _ = real_model.model_view(SENTENCE, "tiny", False, True, "[[0, 1]]")
    assert "u16" in view["values"] and "f32" not in str(view["layers"])  # the page's copy is compact
    path = real_model.png_file(view)
    assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ConfigError, match="no longer on the server"):
        real_model.png_file({"stamp": "0123456789abcdef"})


@pytest.mark.floats
def test_a_gemma_model_view_draws_each_layers_own_mask_and_its_kv_groups(gemma):
    assert gemma in real_model.model_names()
    view, _, summary, out = real_model.model_attention(ENGLISH, gemma, True, True, "[]")
    assert out["architecture"] == {"family": "gemma2", "n_layers": 2, "n_heads": 4, "n_kv_heads": 2,
                                   "windows": [3, None]}
    sliding, global_ = model_pack.blocked(view, 0), model_pack.blocked(view, 1)  # True = blocked
    T = len(out["tokens"])
    assert (~sliding).sum(-1).max() == 3 and (~global_).sum(-1).tolist() == list(range(1, T + 1))
    assert view["layer_notes"] == ["window 3", "global"] and view["groups"] == 2
    assert "key/value head 1, which query heads 2 to 3 share" in view["descriptions"][0][3]
    weights = torch.tensor(out["weights"])
    assert torch.allclose(torch.tensor(model_pack.expanded(view)), weights.double(), atol=1e-4)
    assert f"**{gemma} (Gemma 2)**" in summary


def test_a_variant_runs_in_the_models_place_and_a_misfit_is_one_sentence(gemma):
    _, _, summary, out = real_model.model_attention(ENGLISH, gemma, True, True, "[]", "sliding-window",
                                                    '{"window": 2}')
    assert "sliding-window (window=2) in every layer" in summary
    assert (torch.tensor(out["weights"]) > 0).sum(-1).max() == 2  # every layer now sees two keys
    assert out["loss_bits"] != out["intact"]["loss_bits"]
    _, _, one, out1 = real_model.model_attention(ENGLISH, gemma, True, True, "[]", "sliding-window",
                                                 '{"window": 2, "layer": 1}')
    _, _, _, intact = real_model.model_attention(ENGLISH, gemma, True, True, "[]")
    assert "in layer 1" in one and out1["weights"][0] == intact["weights"][0]  # layer 0 kept the model's own
    assert (torch.tensor(out1["weights"][1]) > 0).sum(-1).max() == 2 and out1["loss_bits"] != intact["loss_bits"]
    for variant, options, words in (("single-head", "{}", "builds 1 query head"),
                                    ("sliding-window", '{"window": 0}', "window"),
                                    ("sliding-window", '{"window": 2, "layer": 7}', "layers 0 to 1"),
                                    ("nope", "{}", "nope"),
                                    ("", '{"window": 2}', "options apply to a variant")):
        with pytest.raises(ConfigError, match=words) as err:
            real_model.model_attention(ENGLISH, gemma, True, True, "[]", variant, options)
        assert "\n" not in str(err.value) and len(str(err.value)) < 300


def test_gemmas_step_through_shows_rope_the_cap_and_the_band(gemma):
    formulas, views = real_views.step_view(ENGLISH, gemma, True, True, 0, 3)
    assert all(f is not None for f in formulas)  # Q and K before and after RoPE, ..., capped: every stage
    assert "key/value head 1, which query heads 2 to 3 share" in formulas[FIELDS.index("k_pre")]
    assert "window of 3 tokens" in formulas[FIELDS.index("masked")]
    assert "tanh" in formulas[FIELDS.index("capped")]
    _, _, text = real_views.causality_on_page(ENGLISH, gemma, True, True, 4, real_model.network(gemma).tokenizer
                                              .decode([real_model.tokens_and_ids(gemma, ENGLISH)[1][2]]))
    assert "nothing an earlier row computes" in text


@pytest.mark.parametrize("language, words", [
    ("zh-CN", ("损失", "第 0 层第", "窗口 3", "全局", "RoPE 之后的 Q", "被改动")),
    ("es", ("pérdida", "capa 0 cabeza", "ventana 3", "global", "Q después de RoPE", "cambiado"))])
def test_every_view_answers_in_the_readers_language(gemma, language, words):
    summary_word, description, window, glob, rotated, changed = words
    with speaking(language):
        view, _, summary = real_model.model_view(ENGLISH, gemma, False, True, "[[0, 1]]")
        formulas, views = real_views.step_view(ENGLISH, gemma, True, True, 0, 0)
        _, _, checked = real_views.causality_on_page(ENGLISH, gemma, True, True, 2, real_model.network(gemma)
                                                     .tokenizer.decode([real_model.tokens_and_ids(gemma, ENGLISH)[1][1]]))
        with pytest.raises(ConfigError) as err:
            real_model.model_view(ENGLISH, gemma, True, True, "[[9, 9]]")
    assert summary_word in summary and "loss on this sentence" not in summary
    assert view["descriptions"][0][0].startswith(description) and view["layer_notes"] == [window, glob]
    assert views[FIELDS.index("q")]["heads"][0]["title"].startswith(rotated)
    assert changed in checked and "changed." not in checked
    assert "ablate" in str(err.value) and "but the model has" not in str(err.value)
    english, _, _ = real_model.model_view(ENGLISH, gemma, False, True, "[[0, 1]]")  # per language, not cached across
    assert english["descriptions"][0][0].startswith("layer 0 head 0")


@pytest.mark.floats
def test_a_third_party_variant_runs_in_its_plugins_worker_and_equals_its_formula_run_here(gemma):
    pytest.importorskip("attention_lab_alibi")  # the example plugin, installed by `make test`
    from core.gpt.lab_attention import Switches, lab_forward
    from core.lab import real_variant
    from core.registry import load_registry
    from core.serve import real_variants
    from core.serve.plugins import guard_for

    kept = list(real_variants._registry)  # (the app another test built may have set its own registry)
    registry = load_registry()
    real_variants.use_registry(registry)
    try:
        assert guard_for(registry).isolated("alibi")  # a third party's: its code runs in its own process
        _, _, summary, out = real_model.model_attention(ENGLISH, gemma, True, True, "[]", "alibi", "{}")
    finally:
        real_variants._registry[:] = kept
    m = real_model.network(gemma)
    module = real_variant.fitted(load_registry().get("alibi"), {}, m.arch, m.label)
    here = lab_forward(m.model, m.tokenizer.encode(ENGLISH), Switches(variant=real_variant.formula(module, m.arch)))
    assert torch.allclose(torch.tensor(out["weights"]), here.weights, atol=1e-4)
    assert "the variant alibi in every layer" in summary
