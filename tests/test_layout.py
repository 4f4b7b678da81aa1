"""The arrows of DESIGN.md hold: core never reaches into attention_plugins (but for the registry's list)."""

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "core"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("attention_plugins"):
            names.add(node.value)  # importlib.import_module("attention_plugins.x")
    return names


def test_core_does_not_import_the_built_in_plugins():
    offenders = {
        str(p.relative_to(CORE.parent)): sorted(m for m in imported_modules(p) if m.startswith("attention_plugins"))
        for p in CORE.rglob("*.py")
        if p.name != "registry.py"
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_ui_holds_no_maths():
    for p in (CORE / "ui").glob("*.py"):
        assert "torch" not in {m.split(".")[0] for m in imported_modules(p)}, f"{p.name} imports torch"
