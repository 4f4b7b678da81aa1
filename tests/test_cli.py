"""`attention-lab` / `python -m core`: the plugins table, the check exit code, and one sentence per mistake."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import COMMANDS, main

pytest_plugins = ["core.testing"]

ROOT = Path(__file__).resolve().parents[1]
BROKEN = "import attention_lab_no_such_dependency\n"
READS_THE_FUTURE = """
import torch.nn.functional as F
from core import AttentionModule, Variant, hookimpl

class Peeks(AttentionModule):
    def forward(self, x, key_padding_mask=None):
        q, k, v = self.project(x)
        return self.merge(F.scaled_dot_product_attention(q, k, v))

@hookimpl
def register_attention_variants(register):
    register(Variant(name="peeks", title="Peeks <b>ahead</b>", summary="reads the future", build=Peeks))
"""


def test_commands_are_a_plain_dict_of_modules():
    assert isinstance(COMMANDS, dict)
    assert {"plugins", "check", "serve"} <= set(COMMANDS)


def test_plugins_table_lists_builtins_with_distribution_and_status(capsys):
    assert main(["plugins", "--no-entry-points"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["variant", "title", "plugin", "distribution", "status"]
    gqa = next(line for line in lines if line.startswith("gqa "))
    assert "attention_plugins.gqa" in gqa and "attention-lab 0.1.0" in gqa and gqa.endswith("ok")


def test_check_in_process_passes_and_prints_every_check(capsys):
    assert main(["check", "sliding-window", "--option", "window=2", "-v", "--no-entry-points"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("sliding-window: passed")
    assert "causal forward (autograd)" in out and "FAIL" not in out


def test_check_exits_1_when_a_variant_fails_to_build(capsys):
    assert main(["check", "gqa", "--n-heads", "4", "--option", "n_kv_heads=3", "--no-entry-points"]) == 1
    assert "build: n_kv_heads=3 does not divide n_heads=4; choose 1, 2 or 4" in capsys.readouterr().out


def test_plugins_shows_a_broken_plugin_and_still_lists_every_variant(install_plugin, monkeypatch, capsys):
    install_plugin("broken", BROKEN, dist="lab-broken", version="9.9")
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "broken")
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    rows = out.splitlines()
    assert any(r.startswith("-") and "broken" in r and "lab-broken 9.9" in r and r.endswith("failed (import)") for r in rows)
    assert "1 plugin error(s); the lab runs without them:" in out
    assert "broken (import): could not be imported: ModuleNotFoundError: No module named" in out
    assert {"single-head", "multi-head", "gqa", "sliding-window"} <= {r.split()[0] for r in rows[1:6]}


def test_check_all_exits_1_and_names_the_module_that_reads_the_future(install_plugin, monkeypatch, capsys):
    install_plugin("peeks", READS_THE_FUTURE)
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "peeks")
    assert main(["check", "--all"]) == 1
    out = capsys.readouterr().out
    assert "peeks: FAILED" in out
    assert "causal forward (perturbation): forward reads the future: token 0 changed when token 1 did" in out
    assert "gqa: passed" in out and "5 of 6 variants passed" in out


def test_strict_mode_reraises_for_plugin_development(install_plugin, monkeypatch):
    install_plugin("broken", BROKEN)
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "broken")
    monkeypatch.setenv("ATTENTION_LAB_STRICT", "1")
    with pytest.raises(ModuleNotFoundError, match="attention_lab_no_such_dependency"):
        main(["plugins"])


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (("check", "nope"), "attention-lab check: variant='nope' is not registered; choose one of: gqa, multi-head"),
        (("check",), "attention-lab check: name the variants to check, or pass --all (not both)"),
        (("check", "gqa", "--n-heads", "3"), "attention-lab check: n_heads=3 does not divide d_model=16; choose 1, 2, 4, 8 or 16"),
        (("check", "gqa", "--option", "n_kv_heads"), "attention-lab check: option 'n_kv_heads' must look like KEY=VALUE"),
        (("check", "gqa", "--option", "colour=red"), "attention-lab check: unknown option 'colour'; this variant takes n_kv_heads"),
    ],
)
def test_a_users_mistake_is_one_sentence_in_process(capsys, args, sentence):
    assert main([*args, "--no-entry-points"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(sentence) and "\n" not in err


def test_a_users_mistake_through_python_m_core_is_one_sentence_not_a_traceback():
    procs = [  # started together: each pays torch's import once, in parallel
        subprocess.Popen([sys.executable, "-m", "core", *args], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env={**os.environ, "ATTENTION_LAB_PLUGINS": ""})
        for args in (["check", "nope"], ["check", "gqa", "--n-heads", "3"])
    ]
    outs = [p.communicate(timeout=180) for p in procs]
    codes = [p.returncode for p in procs]
    assert codes == [2, 2]
    for _, err in outs:
        assert "Traceback" not in err
    assert outs[0][1].strip() == ("attention-lab check: variant='nope' is not registered; choose one of: "
                                  "gqa, multi-head, multi-head-stacked, single-head, sliding-window; plugins are found "
                                  "through the entry-point group 'attention_lab': add a line such as "
                                  "`my-plugin = \"my_module\"` under [project.entry-points.attention_lab] in the "
                                  "plugin's pyproject.toml and reinstall it with `attention-lab install -e PATH`")
    assert outs[1][1].strip() == "attention-lab check: n_heads=3 does not divide d_model=16; choose 1, 2, 4, 8 or 16"


def test_serve_launches_the_app_on_the_requested_host_and_port(monkeypatch):
    import core.ui.app as app

    launched = {}
    monkeypatch.setenv("GRADIO_SERVER_NAME", "127.0.0.1")  # restored after the test
    monkeypatch.setenv("GRADIO_SERVER_PORT", "7860")
    monkeypatch.setattr(app, "build_demo", lambda: "the demo")
    monkeypatch.setattr(app, "launch", lambda demo: launched.update(
        demo=demo, host=os.environ["GRADIO_SERVER_NAME"], port=os.environ["GRADIO_SERVER_PORT"]))
    assert main(["serve", "--host", "0.0.0.0", "--port", "7999"]) == 0
    assert launched == {"demo": "the demo", "host": "0.0.0.0", "port": "7999"}


def tiny_demo():
    import gradio as gr

    with gr.Blocks() as demo:
        gr.Markdown("a stand-in for the lab")
    return demo


def test_serve_on_a_busy_port_is_one_sentence(monkeypatch, capsys):
    import socket

    import core.ui.app as app

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        monkeypatch.setenv("GRADIO_SERVER_NAME", "127.0.0.1")
        monkeypatch.setenv("GRADIO_SERVER_PORT", str(port))
        monkeypatch.setattr(app, "build_demo", tiny_demo)
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"attention-lab serve: cannot serve on 127.0.0.1:{port} (") and "\n" not in err
