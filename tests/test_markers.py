"""The suite's split holds as tests are added: float comparisons carry `floats`, and xdist keeps a module whole.

`make test-kernels` runs only the tests marked `floats` under another CPU kernel, so a test that compares floats
and forgets the mark would never meet that kernel: the scan below finds such tests by what they call. A test whose
floats no kernel can make differ (a run and its own summary, a figure and its display) says so with `kernel_free`.
`make test` runs the suite on every core (pytest-xdist, --dist loadfile): a module runs whole on one worker (its
module-scoped fixtures made once), and tests/conftest.py gives each worker its own app and file folder.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST_FILES = [p for p in [*sorted((ROOT / "tests").glob("test_*.py")), *sorted(ROOT.glob("examples/*/tests/test_*.py"))]
              if p.name != Path(__file__).name]  # this scan's own source names what it looks for
CALLS = {"allclose", "assert_close", "isclose", "approx", "equal", "array_equal", "assert_allclose",
         "assert_array_equal", "assert_array_almost_equal", "assert_almost_equal"}
FIELDS = {"max_abs_diff", "row_max_abs_diff", "identical_before", "byte_identical_before"}  # floats core compared


def compares_floats(node: ast.AST) -> str | None:
    """What in this code compares floats (a tolerance, an exact float equality, a max |Δ|), or None."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in CALLS:
                return f"{name}()"
            if any(k.arg in ("atol", "rtol") for k in n.keywords):
                return "atol/rtol"
        if isinstance(n, ast.Attribute) and n.attr in FIELDS:
            return n.attr
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and n.slice.value in FIELDS:
            return n.slice.value
        if isinstance(n, ast.Compare):
            text = ast.unparse(n)
            if "abs()" in text:
                return "a max |Δ|"
            for c in ast.walk(n):
                if isinstance(c, ast.Constant) and isinstance(c.value, float) and 0 < abs(c.value) < 1e-2:
                    return f"a tolerance ({c.value:g})"
                if isinstance(c, ast.Name) and c.id.isupper() and c.id.endswith(("TOL", "EPS")):
                    return f"a tolerance ({c.id})"
    return None


def marked(decorators: list[ast.expr], mark: str) -> bool:
    return any(mark == (d.attr if isinstance(d, ast.Attribute) else "") for d in decorators)


def module_marks(tree: ast.Module) -> set[str]:
    """The marks of `pytestmark = pytest.mark.x` or `[pytest.mark.x, ...]`."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            values = node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else [node.value]
            return {v.attr for v in values if isinstance(v, ast.Attribute)}
    return set()


MARKS = {"floats", "kernel_free", "browser"}  # browser: the second kernel runs no browser


def unmarked_float_tests(source: str) -> list[tuple[str, str]]:
    """(test, what it compares) for each test of a module that compares floats, itself or through a module helper,
    marked neither `floats` nor `kernel_free` (floats no kernel can make differ); browser tests are left out."""
    tree = ast.parse(source)
    if module_marks(tree) & MARKS:
        return []
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("test_")}
    why = {name: w for name, n in helpers.items() if (w := compares_floats(n))}
    for _ in range(3):  # helpers that call helpers
        for name, n in helpers.items():
            called = {c.func.id for c in ast.walk(n) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
            if name not in why and (hit := called & set(why)):
                why[name] = why[min(hit)]
    found = []
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
            continue
        if any(marked(node.decorator_list, mark) for mark in MARKS):
            continue
        called = {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
        reason = compares_floats(node) or next((f"{h}(): {why[h]}" for h in sorted(called & set(why))), None)
        if reason:
            found.append((node.name, reason))
    return found


def test_every_test_that_compares_floats_is_marked_floats():
    missing = [f"{path.relative_to(ROOT)}::{name} compares floats ({reason}) but is not marked floats"
               for path in TEST_FILES for name, reason in unmarked_float_tests(path.read_text(encoding="utf-8"))]
    assert missing == []


def test_the_scan_finds_each_kind_of_float_comparison_and_respects_the_marks():
    planted = textwrap.dedent('''
        import pytest, torch

        def close(a, b):
            return (a - b).abs().max() < TOL

        def test_allclose(): assert torch.allclose(a, b)
        def test_approx(): assert x == pytest.approx(0.5)
        def test_keyword(): torch.testing.assert_close(a, b, atol=1e-6, rtol=0)
        def test_exact(): assert torch.equal(a, b)
        def test_tolerance(): assert abs(x - y) < 1e-5
        def test_through_a_helper(): assert close(a, b)
        def test_a_field(): assert report.max_abs_diff == 0
        def test_an_integer(): assert len(rows) == 3 and rows[0] == "a"
        @pytest.mark.floats
        def test_marked(): assert torch.allclose(a, b)
        @pytest.mark.kernel_free
        def test_a_summary_of_one_run(): assert summary["loss"] == pytest.approx(run.loss[-1])
        @pytest.mark.browser
        def test_in_a_browser(): assert abs(x - y) < 1e-3
    ''')
    assert [name for name, _ in unmarked_float_tests(planted)] == [
        "test_allclose", "test_approx", "test_keyword", "test_exact", "test_tolerance", "test_through_a_helper",
        "test_a_field"]
    assert unmarked_float_tests("import pytest\npytestmark = pytest.mark.floats\n" + planted) == []


PLANTED = '''
import json, os, pathlib, pytest

OUT = pathlib.Path(os.environ["MARKERS_OUT"])


def record(**what):
    with open(OUT / f"{os.environ['PYTEST_XDIST_WORKER']}.jsonl", "a") as f:
        f.write(json.dumps({"worker": os.environ["PYTEST_XDIST_WORKER"], "temp": os.environ["GRADIO_TEMP_DIR"],
                            "module": __name__, **what}) + "\\n")


@pytest.fixture(scope="module")
def browser_like():
    record(setup="browser_like")
    return object()


@pytest.fixture(scope="module", params=["1024x768", "1920x1080"])
def page_per_size(request):
    record(setup=f"page {request.param}")
    return request.param


@pytest.mark.parametrize("i", range(6))
def test_shares_one_module_fixture(browser_like, i):
    record(test="shared")


@pytest.mark.parametrize("i", range(2))
def test_one_page_per_size(page_per_size, i):
    record(test=f"size {page_per_size}")
'''


def test_xdist_runs_a_module_whole_on_one_worker_and_gives_each_worker_its_own_folder(tmp_path):
    """make test's options (-n 2 --dist loadfile) on four planted modules with module-scoped fixtures."""
    suite, out = tmp_path / "suite", tmp_path / "out"
    suite.mkdir(), out.mkdir()
    shutil.copy(ROOT / "tests" / "conftest.py", suite / "conftest.py")
    for n in range(4):
        (suite / f"test_planted_{n}.py").write_text(PLANTED)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GRADIO_TEMP_DIR"))}
    options = next(line for line in (ROOT / "Makefile").read_text().splitlines() if line.startswith("XDIST :="))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options.split(":=")[1].split(),
         "--rootdir", str(suite), "-c", os.devnull, str(suite)],
        cwd=suite, env={**env, "MARKERS_OUT": str(out)}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [json.loads(line) for f in out.glob("*.jsonl") for line in f.read_text().splitlines()]
    assert len([r for r in rows if "test" in r]) == 4 * (6 + 2 * 2)
    for n in range(4):
        mine = [r for r in rows if r["module"] == f"test_planted_{n}"]
        assert len({r["worker"] for r in mine}) == 1  # a module whole on one worker
        assert sorted(r["setup"] for r in mine if "setup" in r) == ["browser_like", "page 1024x768", "page 1920x1080"]
    folders = {r["worker"]: r["temp"] for r in rows}
    assert len(folders) == 2 and len(set(folders.values())) == 2  # both workers had work, each its own folder
    assert not any(Path(folder).exists() for folder in folders.values())  # removed when its worker ended
