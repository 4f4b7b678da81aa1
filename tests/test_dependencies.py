"""Every third-party module the package imports is declared, and a Space gets the CPU build of torch."""

from __future__ import annotations

import ast
import functools
import importlib.metadata as md
import sys
import tomllib
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = [*sorted((ROOT / "core").rglob("*.py")), *sorted((ROOT / "attention_plugins").rglob("*.py")), ROOT / "app.py"]
OPTIONAL = {ROOT / "core" / "testing.py": "testing"}  # the pytest plugin for plugin authors: pytest is an extra
OURS = {"core", "attention_plugins"}
LINUX_X86 = {**default_environment(), "sys_platform": "linux", "platform_machine": "x86_64"}


def imported_modules(path: Path) -> set[str]:
    """Top-level names of the absolute imports in one file (relative imports are the package's own)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - OURS - {"__future__"}


@functools.cache
def provided() -> dict[str, list[str]]:
    """Top-level module → the distributions that provide it (a scan of every installed one: read once)."""
    return md.packages_distributions()


def distributions(module: str) -> set[str]:
    """The installed distributions that provide a top-level module."""
    return {canonicalize_name(d) for d in provided().get(module, [])}


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def requirements_txt() -> list[Requirement]:
    lines = (line.split(" #")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines())
    return [Requirement(line) for line in lines if line and not line.startswith(("#", "-"))]


def declared(requirements: list[str] | list[Requirement]) -> set[str]:
    return {canonicalize_name(Requirement(str(r)).name) for r in requirements}


def test_the_scan_sees_the_imports_it_must_judge():
    found = set().union(*(imported_modules(p) for p in SHIPPED))
    assert {"torch", "gradio", "numpy", "fastapi"} <= found  # a scan that found nothing would pass anything
    assert "os" not in found and "core" not in found


def test_every_third_party_import_is_declared_in_pyproject_and_requirements_txt():
    runtime, extras = declared(pyproject()["dependencies"]), pyproject()["optional-dependencies"]
    txt = declared(requirements_txt())
    missing = []
    for path in SHIPPED:
        allowed = runtime | declared(extras.get(OPTIONAL.get(path, ""), []))
        for module in sorted(imported_modules(path)):
            dists = distributions(module)
            where = path.relative_to(ROOT)
            if not dists:
                missing.append(f"{where}: imports {module}, which no installed distribution provides")
            elif not dists & allowed:
                missing.append(f"{where}: imports {module} ({', '.join(sorted(dists))}), not in pyproject")
            elif path not in OPTIONAL and not dists & txt:
                missing.append(f"{where}: imports {module} ({', '.join(sorted(dists))}), not in requirements.txt")
    assert not missing, "\n".join(missing)


def test_requirements_txt_and_pyproject_pin_the_same_runtime():
    txt = {canonicalize_name(r.name) for r in requirements_txt()}
    assert txt == declared(pyproject()["dependencies"])


def test_a_linux_x86_space_asks_for_the_cpu_build_of_torch_from_pytorchs_cpu_index():
    text = (ROOT / "requirements.txt").read_text()
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in text.splitlines()
    torch = [r for r in requirements_txt() if r.name == "torch" and (r.marker is None or r.marker.evaluate(LINUX_X86))]
    assert len(torch) == 1 and str(torch[0].specifier) == "==2.13.0+cpu"  # by name: never PyPI's CUDA wheel
    pinned = Requirement(next(d for d in pyproject()["dependencies"] if d.startswith("torch")))
    assert pinned.specifier.contains("2.13.0+cpu")  # the package's own pin accepts it
    elsewhere = {**LINUX_X86, "sys_platform": "darwin", "platform_machine": "arm64"}
    assert [str(r.specifier) for r in requirements_txt() if r.name == "torch" and r.marker.evaluate(elsewhere)] == [
        "==2.13.0"]  # macOS has no +cpu wheels: PyPI's are CPU builds


def test_the_dev_requirements_do_not_repeat_the_runtime_or_its_index():
    text = (ROOT / "requirements-dev.txt").read_text()
    assert "-r requirements.txt" not in text and "index-url" not in text  # `make dev` asks the index once


def test_the_space_front_matter_and_pyproject_claim_the_same_python():
    front = (ROOT / "README.md").read_text().split("---")[1]
    version = next(line.split(":", 1)[1].strip().strip('"') for line in front.splitlines()
                   if line.startswith("python_version:"))
    assert pyproject()["requires-python"] == f">={version}"  # a Space runs 3.10 unless the front matter says
