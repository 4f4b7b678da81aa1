"""The package reads as layers: arrows point down only, no cycles, and the UI holds no maths.

    root  <-  gpt, text  <-  model, corpus  <-  proc  <-  lab, kit, bench  <-  render  <-  serve  <-  ui  <-  cli

Packages are layers too, the root's own included: the root's modules (the contract and the maths of one
layer) import none of core's packages; gpt (the GPT's parts) and text (the segmenter) sit on them; the doors
core.model and core.corpus open onto gpt and text; proc (child processes) preloads core.model. lab, kit and
bench are peers and never import each other, nor do gpt and text. core.probes and core.testing live at the
root for their public import paths but are the kit's doors, core.notebook the render layer's, core.__main__
the CLI's.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "core"
RANK = {"root": 0, "gpt": 1, "text": 1, "doors": 2, "proc": 3, "lab": 4, "kit": 4, "bench": 4,
        "render": 5, "serve": 6, "ui": 7, "cli": 8}
DOORS = {"core.model": "doors", "core.corpus": "doors",
         "core.probes": "kit", "core.testing": "kit", "core.notebook": "render", "core.__main__": "cli"}
ROOT_PACKAGES = {"gpt", "proc", "text"}  # the root's parts, kept away from the contract and the maths
ORDER = "root <- gpt, text <- model, corpus <- proc <- lab, kit, bench <- render <- serve <- ui <- cli"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    """A package's modules (its __init__ too) are its layer; a module at core's top is the root, or a door."""
    parts = module.split(".")
    if module in DOORS:
        return DOORS[module]
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in RANK) else "root"


def imports(path: Path, module: str, known: set[str]) -> list[tuple[str, int]]:
    """(imported core module, line) for every import in the file, lazy ones and importlib strings included."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            target = (f"{base}.{node.module}" if node.module else base) if node.level else node.module or ""
            found += [(f"{target}.{a.name}" if f"{target}.{a.name}" in known else target, node.lineno) for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known:
            found.append((node.value, node.lineno))  # importlib.import_module("core.x"), python -m core.x
    return [(name, line) for name, line in found if name in known and name != module]


def graph(root: Path) -> dict[str, list[tuple[str, int]]]:
    paths = {module_name(p, root): p for p in root.rglob("*.py")}
    known = set(paths)
    return {m: imports(p, m, known) for m, p in paths.items()}


def violations(root: Path) -> list[str]:
    """One line per arrow against the order, naming the file, the line and the import."""
    out = []
    for module, targets in sorted(graph(root).items()):
        for target, line in targets:
            a, b = layer(module), layer(target)
            if a != b and RANK[b] >= RANK[a]:
                out.append(f"{module} (line {line}) imports {target}: {a} -> {b} is against {ORDER}")
    return out


def cycles(root: Path) -> list[list[str]]:
    """Every import cycle (Tarjan's strongly connected components of more than one module)."""
    g = {m: sorted({t for t, _ in ts}) for m, ts in graph(root).items()}
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                found.append(sorted(scc))

    for v in g:
        if v not in index:
            visit(v)
    return found


def test_arrows_point_down_only():
    assert violations(CORE) == []


def test_no_import_cycles():
    assert cycles(CORE) == []


def test_every_module_sits_in_a_known_layer():
    assert {layer(m) for m in graph(CORE)} <= set(RANK)
    packages = {p.name for p in CORE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages == set(RANK) - {"root", "doors"} and ROOT_PACKAGES <= packages
    folders = {p.parent.relative_to(CORE).parts[0] for p in CORE.rglob("*.py") if p.parent != CORE}
    assert folders <= packages  # no module hides in a folder without an __init__.py (it would escape its layer)


ROOT_MODULES = {  # the contract, the maths of one layer, and the public doors: nothing else at core/'s top
    "__init__", "__main__", "config", "mistakes", "variant", "hookspecs", "registry", "plugin_collect", "i18n",
    "attention", "fast_paths", "masks", "transfer", "classic", "seeding",
    "model", "corpus", "probes", "testing", "notebook",
    "said",  # every visible sentence by its msgid (any layer says one); one kept to be said when shown
}
FORMULA = {  # the one-layer formula and its cached path: two files at the root, nowhere else
    "core.attention": {"AttentionModule", "AttentionTrace", "attend", "split_heads", "merge_heads", "repeat_kv",
                       "no_empty_rows", "zero_padding"},
    "core.fast_paths": {"sdpa", "banded_attention", "KVCache", "CachedDecoding"},
}


def test_the_root_holds_the_contract_the_maths_and_the_doors_only():
    assert {p.stem for p in CORE.glob("*.py")} <= ROOT_MODULES


def test_the_formula_and_its_cached_path_are_defined_in_two_root_files_only():
    """Each piece defined once, where FORMULA says: a second definition elsewhere would be a second formula."""
    names = set().union(*FORMULA.values())
    where = {}
    for path in CORE.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name in names:
                where.setdefault(node.name, []).append(module_name(path, CORE))
    assert where == {name: [module] for module, defined in FORMULA.items() for name in defined}


def test_child_processes_are_started_by_the_kit_the_benchmarks_and_the_serving_layer_only():
    """Plain functions first: the lab starts no process; proc is for the kit, the benchmarks and serve."""
    starts = [f"{m} imports {t}" for m, ts in graph(CORE).items() for t, _ in ts
              if t.startswith("core.proc") and layer(m) not in ("root", "kit", "bench", "serve") and not m.startswith("core.proc")]
    assert starts == []


@pytest.fixture
def planted(tmp_path):
    """A copy of the real package to plant mistakes in."""
    shutil.copytree(CORE, tmp_path / "core", ignore=shutil.ignore_patterns("__pycache__", "assets"))
    return tmp_path / "core"


def test_the_layer_check_catches_a_planted_upward_import(planted):
    text = planted / "lab" / "text.py"
    text.write_text(text.read_text() + "\nfrom ..serve import views\n")
    lines = violations(planted)
    assert len(lines) == 1 and lines[0].startswith("core.lab.text (line ") and "imports core.serve.views" in lines[0]
    assert "lab -> serve" in lines[0]


def test_the_layer_check_catches_peers_and_lazy_imports(planted):
    steps = planted / "lab" / "steps.py"
    steps.write_text(steps.read_text() + "\n\ndef f():\n    from core.kit import conformance\n")
    assert [v.split(":")[0] for v in violations(planted)] == [
        f"core.lab.steps (line {len(steps.read_text().splitlines())}) imports core.kit.conformance"]


def test_the_layer_check_catches_a_root_module_importing_a_root_package(planted):
    """The import issue 36 found: the formula reaching up into the GPT's parts (then core/gpt/kv_cache.py)."""
    attention = planted / "attention.py"
    attention.write_text(attention.read_text() + "\nfrom .gpt.block import TransformerBlock\n")
    masks = planted / "masks.py"
    masks.write_text(masks.read_text() + "\n\ndef f():\n    from core import model\n")
    lines = violations(planted)
    assert len(lines) == 2 and "core.attention (line " in lines[0] and "imports core.gpt.block: root -> gpt" in lines[0]
    assert "core.masks (line " in lines[1] and "imports core.model: root -> doors" in lines[1]


def test_the_layer_check_catches_a_package_importing_its_door_or_a_peer_package(planted):
    block = planted / "gpt" / "block.py"
    block.write_text(block.read_text() + "\nfrom .. import model\nfrom ..text import segment\n")
    lines = violations(planted)
    assert [line.split(": ", 1)[1] for line in lines] == [f"gpt -> doors is against {ORDER}", f"gpt -> text is against {ORDER}"]
    assert all(line.startswith("core.gpt.block (line ") for line in lines)


def test_the_cycle_check_catches_a_planted_cycle(planted):
    masks = planted / "masks.py"
    masks.write_text(masks.read_text() + "\nfrom . import attention\n")  # attention imports masks (and fast_paths)
    assert cycles(planted) == [["core.attention", "core.fast_paths", "core.masks"]]


def test_core_does_not_import_the_built_in_plugins():
    offenders = [f"{m} imports {t}" for m, p in ((module_name(p, CORE), p) for p in CORE.rglob("*.py"))
                 for t in _plugin_imports(p) if m != "core.registry"]
    assert offenders == []


def _plugin_imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.append(node.value)
    return [n for n in names if n.startswith("attention_plugins")]
