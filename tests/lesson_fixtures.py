"""The built-in lessons and the lab that draws their steps, without the browser (module-scoped: built once per file).

A test module takes them as its own: `registry, shelf, lab = lesson_fixtures.registry, ...`."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def registry():
    from core.registry import load_registry

    return load_registry(entry_points=False)


@pytest.fixture(scope="module")
def shelf(registry):
    from core.serve import lessons

    return lessons.load(registry)


@pytest.fixture(scope="module")
def lab(registry):
    from core.serve.plugins import AppLab

    return AppLab(registry)
