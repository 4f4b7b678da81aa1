"""The plugin author's path: new-plugin, install, check, Reload; names refused; errors that point at the fix."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from core import AttentionConfig, AttentionModule, ConfigError, Variant, hookimpl, load_registry
from core.cli import main
from core.cli.new_plugin import files
from core.lab.steps import stage_texts
from core.registry import refresh_installed

pytest_plugins = ["core.testing"]

ROOT = Path(__file__).resolve().parents[1]
QUIET_PIP = ["--", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]


def test_new_plugin_installs_and_passes_check_untouched(tmp_path):
    folder, site = tmp_path / "scaffold", tmp_path / "site"
    assert main(["new-plugin", "demo-attn", "--dir", str(folder)]) == 0
    project = tomllib.loads((folder / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["attention_lab"] == {"demo-attn": "attention_lab_demo_attn"}
    assert project["dependencies"] == ["attention-lab"]
    assert main(["install", str(folder), *QUIET_PIP, "--target", str(site)]) == 0  # the lab's own pip, into a folder
    env = {**os.environ, "PYTHONPATH": str(site), "ATTENTION_LAB_PLUGINS": "demo-attn"}
    done = subprocess.run([sys.executable, "-m", "core", "check", "demo-attn"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("demo-attn: passed (17 checks)")
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder / "tests")],
                           cwd=folder, env={**env, "PYTHONPATH": f"{folder}{os.pathsep}{ROOT}"},
                           capture_output=True, text=True, timeout=300)
    assert tests.returncode == 0 and "1 passed" in tests.stdout, tests.stdout + tests.stderr


@pytest.mark.parametrize(("name", "words"), [("My Variant!", "must be lower-case words joined by dashes, such as 'my-variant'"),
                                             ("2fast", "such as 'v-2fast'")])
def test_new_plugin_refuses_a_name_the_registry_would_refuse(tmp_path, capsys, name, words):
    assert main(["new-plugin", name, "--dir", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err and not (tmp_path / "x").exists()


def test_new_plugin_never_writes_over_a_folder(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine")
    assert main(["new-plugin", "demo-attn", "--dir", str(tmp_path)]) == 2
    assert "already exists and is not empty" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_install_refuses_a_folder_the_lab_would_never_see(tmp_path, capsys):
    text = files("demo-attn")["pyproject.toml"]
    (tmp_path / "pyproject.toml").write_text(text.split("[project.entry-points.attention_lab]")[0])
    assert main(["install", "-e", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "declares no [project.entry-points.attention_lab] table" in err and "\n" not in err


def test_variant_names_are_lower_case_with_dashes_and_the_rest_still_loads(plugin_registry):
    class Names:
        @hookimpl
        def register_attention_variants(self, register):
            register(Variant(name="My Variant!", title="x", summary="x", build=AttentionModule))
            register(Variant(name="fine-2", title="x", summary="x", build=AttentionModule,
                             formulas={"softmax": "not a stage"}))
            register(Variant(name="fine-3", title="x", summary="x", build=AttentionModule, uses_scaling="no"))
            register(Variant(name="fine", title="x", summary="x", build=AttentionModule))

    registry = plugin_registry(Names())
    assert "fine" in registry.variants and "My Variant!" not in registry.variants
    assert [(e.stage, e.reason) for e in registry.errors] == [
        ("variant", "variant 'My Variant!' has a name 'My Variant!' must be lower-case words joined by dashes, "
                    "such as 'my-variant'"),
        ("variant", "variant 'fine-2' names an unknown stage 'softmax' in formulas; stages are q, k, v, scores, "
                    "scaled, mask, masked, weights, context, output"),
        ("variant", "variant 'fine-3' sets uses_scaling='no'; it must be True or False")]


def test_an_unregistered_name_says_where_the_lab_looks(registry):
    with pytest.raises(ConfigError) as err:
        registry.get("mqa")
    text = str(err.value)
    assert text.startswith("variant='mqa' is not registered; did you mean 'gqa'?")
    assert "entry-point group 'attention_lab'" in text and "[project.entry-points.attention_lab]" in text
    assert "\n" not in text


GOOD = """
from core import AttentionModule, Variant, hookimpl

@hookimpl
def register_attention_variants(register):
    register(Variant(name="late-comer", title="Late", summary="installed after start-up", build=AttentionModule))
"""


def test_reload_sees_a_plugin_pip_installed_in_editable_mode_after_start_up(tmp_path, monkeypatch):
    """pip install -e writes a .pth file that Python reads only at start-up; Reload reads it."""
    from core.ui import plugins_tab

    source, site = tmp_path / "src", tmp_path / "site"
    source.mkdir(), site.mkdir()
    (source / "late_comer.py").write_text(textwrap.dedent(GOOD))
    info = site / "late_comer-0.2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: late-comer\nVersion: 0.2.0\n")
    (info / "entry_points.txt").write_text("[attention_lab]\nlate = late_comer\n")
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "late")
    monkeypatch.syspath_prepend(str(site))  # the dist-info is visible, the module is not: what a running app sees
    monkeypatch.delitem(sys.modules, "late_comer", raising=False)
    registry = load_registry()
    assert "late-comer" not in registry.variants and registry.errors[0].stage == "import"
    (site / "__editable__.late_comer.pth").write_text(f"{source}\n")  # what pip install -e leaves
    monkeypatch.setattr("core.registry.refresh_installed", lambda: refresh_installed([str(site)]))
    status, loaded, variants, errors, choices = plugins_tab.reload(registry)
    assert status.startswith("Reloaded:") and errors == [] and "late-comer" in choices
    assert registry.variants["late-comer"].plugin == "late"  # the same Registry object, which the other tabs share
    assert any(row[0] == "late" and row[1:3] == ["late-comer", "0.2.0"] for row in loaded)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(source)])


def test_the_tab_has_a_reload_button_wired_to_its_tables(registry):
    import gradio as gr

    from core.ui import plugins_tab

    with gr.Blocks() as blocks:
        plugins_tab.build(SimpleNamespace(registry=registry))
    ids = {b.elem_id for b in blocks.blocks.values() if getattr(b, "elem_id", None)}
    assert {"plugins-reload", "plugins-status", "plugins-loaded", "plugins-errors"} <= ids
    assert any(dep.api_name == "reload_plugins" for dep in blocks.fns.values())


def test_step_through_shows_the_variants_own_stage_names_and_formulas():
    rope = Variant(name="rope", title="r", summary="r", build=AttentionModule, stage_names={"q": "Q (rotated)"},
                   formulas={"q": "Q = RoPE(x · W_q), base {base}  (head {head})", "k": "{0.__class__} {nope}"})
    texts = stage_texts(rope, AttentionConfig(n_heads=2, options={"base": 500.0}), head=1, kv=1)
    assert texts["q"] == ("Q (rotated)", "Q = RoPE(x · W_q), base 500.0  (head 1)")
    assert texts["k"] == ("K", "{0.__class__} {nope}")  # a plugin's text is filled in, never run as a format string
    assert texts["weights"] == ("weights", "weights = softmax(masked) over each row")
    assert texts["scaled"][1] == "scaled = scores / √d_head, d_head = 8"
    sigmoid = Variant(name="s", title="s", summary="s", build=AttentionModule, normalised=False, uses_scaling=False)
    honest = stage_texts(sigmoid, AttentionConfig())
    assert "rows need not sum to 1" in honest["weights"][1] and "does not divide" in honest["scaled"][1]


def test_the_step_tab_stages_carry_the_plugins_names(registry):
    from core.lab.session import Lab, make_request
    from core.lab.steps import stages

    run = Lab(registry).run(make_request("the cat sat"))
    variant = Variant(name="x", title="x", summary="x", build=AttentionModule, stage_names={"scores": "kernel"},
                      formulas={"scores": "kernel = φ(Q) · φ(K)ᵀ"})
    by_field = {s.name: s for s in stages(run, 0, variant=variant)}
    assert by_field["kernel"].formula == "kernel = φ(Q) · φ(K)ᵀ" and by_field["kernel"].shape == (3, 3)
    assert [s.name for s in stages(run, 0)][:4] == ["Q", "K", "V", "scores"]  # the softmax path by default


THREAD_AT_IMPORT = """
import threading, time
threading.Thread(target=time.sleep, args=(3600,)).start()  # not a daemon: it would keep Python alive
from core import AttentionModule, Variant, hookimpl

@hookimpl
def register_attention_variants(register):
    register(Variant(name="lingers", title="x", summary="x", build=AttentionModule))
"""


def test_the_command_exits_even_when_a_plugin_leaves_a_thread_at_import(install_plugin):
    root = install_plugin("lingers", THREAD_AT_IMPORT)
    env = {**os.environ, "PYTHONPATH": str(root), "ATTENTION_LAB_PLUGINS": "lingers"}
    done = subprocess.run([sys.executable, "-m", "core", "plugins"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "lingers" in done.stdout
