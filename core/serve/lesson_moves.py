"""Where a presenter is in a lesson, and where each press takes them: a step, its question before its view (an
`ask:` step), and the end screen after the last step; the step's number and a link's step. Pure functions on the
page's hidden position (the Lesson tab, core/ui/lesson_tab.py, wires them; it holds no arithmetic of its own)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..lab import lesson_format

END = "end"  # ?step=end, and data-step on the end screen


@dataclass(frozen=True)
class At:
    """A place in a lesson: step k (from 0; k == the number of steps is the end screen), its question only (asking)."""

    name: str
    k: int
    asking: bool = False

    def dumps(self) -> str:
        return json.dumps([self.name, self.k, self.asking])


def asks(step: Any) -> str:
    """The step's question for the class ("" for none): `ask:` in the lesson file (core.lab.lesson_step.Step.ask)."""
    return str(getattr(step, "ask", "") or "")


def loads(value: Any) -> At:
    """The page's hidden position '["name", k, asking]' (the old '["name", k]' too); anything else: no lesson."""
    try:
        name, k, *rest = json.loads(value)
        return At(str(name), int(k), bool(rest and rest[0]))
    except (TypeError, ValueError):
        return At("", 0)


def arrive(lesson: Any, k: int) -> At:
    """Step k reached by a press, a link or a jump: its question first when it has one; held to the lesson (the
    end screen included)."""
    n = len(lesson.steps)
    k = min(max(int(k), 0), n)
    return At(lesson.name, k, k < n and bool(asks(lesson.steps[k])))


def moved(lesson: Any, at: At, by: int) -> At:
    """Next (+1) or Back (-1): a question's next press reveals its view; the last step's leads to the end screen;
    Back shows the step before whole (its view revealed), and from a question, the step before it."""
    n = len(lesson.steps)
    k = min(max(at.k, 0), n)
    if by > 0:
        if at.asking and k < n:
            return At(lesson.name, k, False)
        return arrive(lesson, min(k + 1, n))
    return At(lesson.name, max(k - 1, 0), False) if k > 0 else arrive(lesson, 0)


def ahead(lesson: Any, at: At) -> list[At]:
    """Where the next press can lead from at (a question's reveals it, so the step after it too): built meanwhile."""
    then = moved(lesson, at, +1)
    return [then, arrive(lesson, at.k + 1)] if then.k == at.k else [then]


def jumped(lesson: Any, k: Any) -> At:
    """The outline's or the end screen's choice (a step's index from 0, or "end"): that step, its question first."""
    n = len(lesson.steps)
    return arrive(lesson, linked(k if k == END else int(k) + 1, n)[0])


def number(k: int) -> int:
    """Step k (from 0) as the outline and the handout number it (from 1)."""
    return k + 1


def linked(value: Any, n: int) -> tuple[int, bool]:
    """?step=N (from 1) or ?step=end -> (the index shown, whether the link named a step the lesson has); a step it
    does not have opens the first."""
    text = str(value).strip()
    if text == END:
        return n, True
    try:
        k = int(text) - 1
    except ValueError:
        return 0, False
    return (k, True) if 0 <= k < n else (0, False)


def numbered(lesson: lesson_format.Lesson, k: int) -> tuple[int, int]:
    """(step number from 1, steps in all): what 'step k of n' and #lesson's data-step say."""
    return k + 1, len(lesson.steps)


def linked_step(value: Any) -> int:
    """?step=N (from 1) as a step index (from 0); anything that is not a whole number opens the first step."""
    try:
        return int(str(value)) - 1
    except ValueError:
        return 0
