"""What an `ask:` step asks a live class, in the language of the page that shows it: the question and the choices.

A step's `answers:` line (core.lab.lesson_step: ("tokens",) by default, ("number",), or the options) becomes the
choices a follower's page offers: the tokens of the step's sentence, a number, or the options as the lesson file
writes them. The class counts an answer by its index (or the number), so every page labels the counts in its own
language (core.serve.classroom).
"""

from __future__ import annotations

from typing import Any

from ..lab.text import tokenize
from .classroom import MAX_CHOICES
from .lessons import state


def ask_of(step: Any) -> dict[str, Any] | None:
    """{"question", "kind": "tokens" | "options" | "number", "choices": [...]} for an ask step; None for another."""
    question = getattr(step, "ask", "") or ""
    if not isinstance(question, str) or not question.strip():
        return None
    answers = tuple(getattr(step, "answers", ()) or ("tokens",))
    if answers == ("number",):
        return {"question": question, "kind": "number", "choices": []}
    if answers == ("tokens",):
        sentence = state(step).get("sentence", "")
        tokens = list(tokenize(sentence).tokens) if isinstance(sentence, str) else []
        return {"question": question, "kind": "tokens", "choices": tokens[:MAX_CHOICES]} if tokens else None
    return {"question": question, "kind": "options", "choices": [str(a) for a in answers[:MAX_CHOICES]]}


def ask_at(lesson: Any, step: int) -> dict[str, Any] | None:
    """ask_of the lesson's step numbered `step` (from 1, as the class and #lesson's data-step count); None past it."""
    steps = getattr(lesson, "steps", ())
    return ask_of(steps[step - 1]) if 1 <= step <= len(steps) else None

