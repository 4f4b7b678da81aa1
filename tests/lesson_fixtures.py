"""The built-in lessons, the lab that draws their steps and what a walk of them says, without the browser
(module-scoped: built once per file).

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


def failures(lab, lesson) -> list[str]:
    """Every expectation of the lesson that does not hold on its step's view, as the CLI would say it."""
    from core.serve import lessons

    out = []
    for k, step in enumerate(lesson.steps):
        for o in lessons.shown(lab, step).outcomes:
            if o.held is False:
                out.append(f"{lesson.name} ({lesson.language}) step {k + 1}: {o.text}")
    return out
