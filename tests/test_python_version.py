"""The Python the project claims is the Python it runs on: pyproject, the Space's front matter, ruff, this interpreter."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_pyproject_the_space_and_ruff_agree_on_python_3_11():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["requires-python"] == ">=3.11"
    assert project["tool"]["ruff"]["target-version"] == "py311"
    front = (ROOT / "README.md").read_text().split("---")[1]  # the Hugging Face Space's front matter
    assert re.search(r'^python_version:\s*"?3\.11"?\s*$', front, re.M), "set python_version: \"3.11\" in README.md"


def test_this_interpreter_satisfies_the_claim():
    assert sys.version_info >= (3, 11)
