"""core/ui holds layout and wiring only: every number a tab shows comes from a tested function outside it.

A tab module may build components, wire events, format text and join strings. It may not compute:
no numeric libraries, no arithmetic operators, no numeric built-ins (sum, min, max, round, abs, ...).
"""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[1] / "core" / "ui"
NUMERIC_MODULES = {"torch", "numpy", "math", "statistics", "random", "decimal", "fractions", "scipy", "pandas"}
NUMERIC_BUILTINS = {"sum", "min", "max", "round", "abs", "divmod", "pow"}
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult)


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def maths(source: str, filename: str = "<tab>") -> list[str]:
    """One line per computation found: the line number and what it is."""
    found = []
    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            found += [f"{filename}:{line} imports {a.name}" for a in node.names if a.name.split(".")[0] in NUMERIC_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] in NUMERIC_MODULES:
            found.append(f"{filename}:{line} imports {node.module}")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC):
            if not (isinstance(node.op, ast.Add) and (_is_text(node.left) or _is_text(node.right))):
                found.append(f"{filename}:{line} computes with {type(node.op).__name__}")
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ARITHMETIC):
            if not (isinstance(node.op, ast.Add) and _is_text(node.value)):
                found.append(f"{filename}:{line} computes with {type(node.op).__name__}=")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in NUMERIC_BUILTINS:
            found.append(f"{filename}:{line} calls {node.func.id}()")
    return found


def test_no_tab_module_computes():
    modules = [p for p in sorted(UI.glob("*.py")) if not p.name.endswith("_seams.py")]  # (Gradio's own counters)
    assert [m for p in modules for m in maths(p.read_text(encoding="utf-8"), p.name)] == []


def test_the_check_catches_a_computation_planted_in_a_tab():
    source = (UI / "model_tab.py").read_text(encoding="utf-8")
    assert maths(source) == []
    planted = source + "\n\ndef saving(kv, ref):\n    return f'{100 * (1 - kv / ref):.0f} %'\n"
    assert [m.split(" ", 1)[1] for m in maths(planted)] == ["computes with Mult", "computes with Sub", "computes with Div"]
    assert maths(source + "\nimport math\n") and maths(source + "\nx = round(0.5)\n")
    assert maths(source + "\nimport torch\n") and maths(source + "\ntotal = 0\ntotal += 1\n")


def test_joining_text_is_not_maths():
    assert maths("label = 'head ' + str(h)\nnote = f'{x}' + '.'\ns = 'a'\ns += ' (stopped)'\n") == []
