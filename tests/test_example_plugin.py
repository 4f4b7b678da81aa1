"""examples/alibi_plugin end to end: pip-installed, found by its entry point, in the app's variant list, working."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import gradio as gr
import pytest

from core import AttentionConfig, load_registry
from core.testing import assert_variant_conforms

pytest_plugins = ["core.testing"]

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "alibi_plugin"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A real `pip install` of a copy of the example (no deps, no index, no network) into a fresh target dir."""
    source = shutil.copytree(EXAMPLE, tmp_path_factory.mktemp("src") / "alibi_plugin",
                             ignore=shutil.ignore_patterns("*.egg-info", "build", "__pycache__"))
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
         "--target", str(target), str(source)],
        check=True, capture_output=True, timeout=300,
    )
    return target


@pytest.fixture
def alibi_registry(installed, monkeypatch):
    """load_registry() as the app calls it, seeing only the freshly installed copy of the plugin."""
    monkeypatch.syspath_prepend(str(installed))
    monkeypatch.delitem(sys.modules, "attention_lab_alibi", raising=False)  # restored after the test
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "alibi")
    monkeypatch.delenv("ATTENTION_LAB_STRICT", raising=False)
    registry = load_registry()
    assert sys.modules["attention_lab_alibi"].__file__.startswith(str(installed))
    return registry


def test_install_registers_alibi_with_its_distribution(alibi_registry):
    assert alibi_registry.errors == []
    info = alibi_registry.plugins["alibi"]
    assert (info.distribution, info.version, info.source) == ("attention-lab-alibi", "0.1.0", "attention_lab_alibi")
    variant = alibi_registry.variants["alibi"]
    assert variant.plugin == "alibi"
    assert [(o.name, o.default, o.minimum, o.maximum) for o in variant.options] == [("slope", 0.5, 0.0, 8.0)]
    assert_variant_conforms(variant)
    assert alibi_registry.build("alibi", AttentionConfig(options={"slope": 2.0})).slopes().tolist() == [2.0, 1.0]


def test_the_app_offers_alibi_with_its_own_slope_control(alibi_registry):
    from core.ui.app import build_demo

    blocks = build_demo(alibi_registry).blocks.values()
    dropdown_choices = [{c[1] for c in b.choices} for b in blocks if isinstance(b, gr.Dropdown)]
    assert any("alibi" in choices and "multi-head" in choices for choices in dropdown_choices)
    from core.ui.i18n import english

    slope = [b for b in blocks if str(english(getattr(b, "label", ""))).startswith("slope")]
    assert slope and slope[0].value == 0.5


def test_the_live_app_computes_attention_with_alibi(client):
    if "alibi" not in load_registry().variants:
        pytest.skip("the example plugin is not installed in this environment (make test installs it)")
    out = client.predict("the cat sat on the mat", variant="alibi", options='{"slope": 1.0}', api_name="/attention")[-1]
    assert len(out["weights"]) == 2 and out["tokens"][1] == "cat"
