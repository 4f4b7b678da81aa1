"""Every hookspec has a test and a docs entry, and the docs' example plugin really works (datasette-style)."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from core import hookspecs, load_registry
from core.testing import assert_variant_conforms

pytest_plugins = ["core.testing"]

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "docs" / "plugins.md").read_text()
SPEC_MARK = f"{hookspecs.PROJECT}_spec"  # the attribute pluggy's HookspecMarker sets


def hookspec_functions() -> dict[str, object]:
    return {name: fn for name, fn in vars(hookspecs).items() if callable(fn) and hasattr(fn, SPEC_MARK)}


def example(marker: str) -> str:
    """The fenced block that follows `<!-- example:marker -->` in docs/plugins.md."""
    match = re.search(rf"<!-- example:{marker} -->\n```\w+\n(.*?)```", DOCS, re.S)
    assert match, f"docs/plugins.md lost its <!-- example:{marker} --> block"
    return match.group(1)


def test_there_is_at_least_one_hookspec():
    assert "register_attention_variants" in hookspec_functions()


@pytest.mark.parametrize("name", sorted(hookspec_functions()))
def test_every_hookspec_is_documented_with_its_signature(name):
    params = ", ".join(inspect.signature(hookspec_functions()[name]).parameters)
    assert f"\n### {name}({params})\n" in DOCS


@pytest.mark.parametrize("name", sorted(hookspec_functions()))
def test_every_hookspec_has_a_test(name):
    tests = {
        node.name
        for path in (ROOT / "tests").glob("test_*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef)
    }
    assert f"test_hook_{name}" in tests


def test_every_documented_hook_exists():
    documented = set(re.findall(r"^### (\w+)\(", DOCS, re.M))
    assert documented == set(hookspec_functions())


def test_the_docs_example_plugin_loads_through_its_entry_point_and_conforms(install_plugin, monkeypatch):
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads(example("pyproject"))["project"]
    (ep_name, target), = project["entry-points"]["attention_lab"].items()
    install_plugin(ep_name, example("module"), module=target, dist=project["name"], version=project["version"])
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", ep_name)
    registry = load_registry()
    assert registry.errors == []
    assert registry.plugins[ep_name].label == "my-attention 0.1.0"
    for name in ("sink-window", "shared-qk"):
        assert registry.variants[name].plugin == ep_name
        assert_variant_conforms(registry.variants[name])
    assert [o.name for o in registry.variants["sink-window"].options] == ["window", "sinks"]


@pytest.mark.parametrize(("marker", "name", "normalised"), [("kernel", "l2-attention", True),
                                                            ("formula", "sigmoid-attention", False),
                                                            ("maps", "diff-attention", False)])
def test_the_docs_other_kinds_of_variant_load_and_conform(install_plugin, monkeypatch, marker, name, normalised):
    install_plugin(marker, example(marker))
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", marker)
    registry = load_registry()
    assert registry.errors == []
    variant = registry.variants[name]
    assert variant.normalised is normalised
    report = assert_variant_conforms(variant)
    assert ("rows sum to 1" in report.skipped) is (not normalised)
