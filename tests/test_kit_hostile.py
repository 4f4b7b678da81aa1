"""Sneaky plugins, installed as a user would install them: the kit catches each, names the fault, and never hangs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core import load_registry
from core.probes import check_variant

pytest_plugins = ["core.testing"]

ROOT = Path(__file__).resolve().parents[1]
HEAD = "import threading, time\nimport torch\nfrom core import AttentionModule, Variant, hookimpl\n\n"


def plugin(name: str, body: str) -> str:
    """A plugin module registering one variant called `name` built by the class `Probe` in `body`."""
    return HEAD + body + (
        "\n\n@hookimpl\ndef register_attention_variants(register):\n"
        f"    register(Variant(name={name!r}, title={name!r}, summary='a sneaky plugin', build=Probe))\n"
    )


SNEAKY = {  # variant name -> (class body, the words the report must contain)
    "leaks-late": ("""
class Probe(AttentionModule):
    def forward(self, x, key_padding_mask=None):
        out = super().forward(x, key_padding_mask)
        return out + 1e-3 * x.roll(-1, dims=1) if x.shape[1] > 8 else out  # only past 8 tokens
""", ["causal forward (perturbation): forward reads the future: token 0 changed when token 1 did (T=9"]),
    "picky": ("""
class Probe(AttentionModule):
    def __init__(self, config):
        if config.d_model == 32:
            raise RuntimeError("no kernel for d_model=32")
        super().__init__(config)
""", ["every setting the app offers: variant 'picky' failed to build: RuntimeError: no kernel for d_model=32 "
      "(plugin picky, at fake_picky_plugin.py:9) (d_model=32"]),
    "hangs": ("""
class Probe(AttentionModule):
    def forward(self, x, key_padding_mask=None):
        while True:
            time.sleep(0.05)
""", ["plugin hangs did not answer within 15 s", "not run: the plugin stopped answering"]),
    "spawns": ("""
class Probe(AttentionModule):
    def forward(self, x, key_padding_mask=None):
        threading.Thread(target=time.sleep, args=(3600,), name="sneaky-sleeper").start()  # not a daemon
        return super().forward(x, key_padding_mask)
""", ["forward left 1 thread running (sneaky-sleeper); a variant must not start threads"]),
    "edits": ("""
class Probe(AttentionModule):
    def forward(self, x, key_padding_mask=None):
        with torch.no_grad():
            self.proj.weight.mul_(1.001)  # learns while it answers
        return super().forward(x, key_padding_mask)
""", ["forward edited its weights in place (proj.weight); a pass must leave parameters unchanged"]),
    "stubborn": ("""
class Probe(AttentionModule):
    def trace(self, x, key_padding_mask=None):  # draws the causal triangle whatever the config says
        saved, self.config = self.config, self.config.replace(causal=True)
        try:
            return super().trace(x, key_padding_mask)
        finally:
            self.config = saved
""", ["forward agrees with trace: forward and trace disagree by", "with causal=False, scaled=True"]),
}


@pytest.fixture
def sneaky(install_plugin, monkeypatch):
    """Every sneaky plugin installed (a dist-info with its entry point), and nothing else."""
    roots = [install_plugin(name, plugin(name, body)) for name, (body, _) in SNEAKY.items()]
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", ",".join(SNEAKY))
    return roots


def test_the_cli_names_every_sneaky_plugin_and_exits_on_time(sneaky):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, sneaky)), "ATTENTION_LAB_PLUGINS": ",".join(SNEAKY)}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "core", "check", *SNEAKY, "--timeout", "15", "-v"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=400)
    seconds = time.monotonic() - start
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    for name, (_, words) in SNEAKY.items():
        report = done.stdout.split(f"{name}: FAILED", 1)[1].split("\n\n")[0]  # its summary and its table
        for w in words:
            assert w in report, (name, w)
    assert "0 of 6 variants passed" in done.stdout
    assert seconds < 300  # the hang cost one time limit; the thread left behind did not keep the command alive


def test_the_plugins_tab_check_of_a_hanging_plugin_answers(sneaky):
    from core.ui.plugins_tab import run_check

    start = time.monotonic()
    summary, rows = run_check(load_registry(), "hangs")
    assert time.monotonic() - start < 60  # one time limit (20 s), then the rest is skipped
    assert summary.startswith("hangs: FAILED") and "did not answer within 20 s" in summary
    assert any(r[1] == "skipped" and r[3].startswith("not run: the plugin stopped answering") for r in rows)


def test_nan_is_reported_as_nan(install_plugin, monkeypatch):
    install_plugin("nan", plugin("nan", """
class Probe(AttentionModule):
    def forward(self, x, key_padding_mask=None):
        out = super().forward(x, key_padding_mask)
        return out * float("nan") if x.shape[1] == 7 else out  # NaN at seven tokens only
"""))
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "nan")
    report = check_variant(load_registry().variants["nan"], only=["shapes, NaN and inf", "forward agrees with trace"])
    assert report.failures == ["shapes, NaN and inf: forward's output holds NaN (T=7, batch 1, d_model=16, n_heads=2)"]
    assert report.skipped == {"forward agrees with trace": "same fault as 'shapes, NaN and inf'"}  # not "disagree"


RAISES = """
class Probe(AttentionModule):
    def forward(self, x, key_padding_mask=None):
        raise ValueError("shapes do not line up")
"""


def test_an_exception_in_a_plugin_is_reported_once_with_its_file_and_line(install_plugin, monkeypatch):
    install_plugin("raises", plugin("raises", RAISES))
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "raises")
    report = check_variant(load_registry().variants["raises"])
    (failure,) = report.failures
    assert failure.startswith("every setting the app offers: forward raised ValueError: shapes do not line up "
                              "at fake_raises_plugin.py:8 (T=9, batch 1, d_model=4, n_heads=1")
    assert sum(why.startswith("same fault") for why in report.skipped.values()) >= 8
    assert "more checks stopped at the same fault" in str(report)


def test_strict_mode_reraises_the_plugins_own_exception_with_its_traceback(install_plugin, monkeypatch):
    root = install_plugin("raises", plugin("raises", RAISES))
    env = {**os.environ, "PYTHONPATH": str(root), "ATTENTION_LAB_PLUGINS": "raises", "ATTENTION_LAB_STRICT": "1"}
    done = subprocess.run([sys.executable, "-m", "core", "check", "raises"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert 'fake_raises_plugin.py", line 8, in forward' in done.stderr  # the child's traceback, shown as the cause
    assert done.stderr.rstrip().splitlines()[-2:] == [
        "ValueError: shapes do not line up",
        "attention-lab: plugin raises raised this in the check 'every setting the app offers' "
        "(ATTENTION_LAB_STRICT=1 re-raises)"]
