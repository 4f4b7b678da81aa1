"""The handout (?lesson=NAME&print=1): every step of a lesson, its text, its question, its view and its check, one
per printed page (core/render/web/lesson.js draws it, lesson.css lays it out for print)."""

from __future__ import annotations

from typing import Any

from core.i18n import mark, t
from core.render.lesson_html import renderer, tree
from core.serve import lessons

from .common import sentence_of
from .lesson_moves import asks

TEXT = {
    "page": mark("{title} · step {n} of {total}"),
    "question": mark("Question for the class: {question}"),
}
PAGE_HEIGHT = 520  # px of a printed page's view (A4 or Letter, its text above it)


def _fitted(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """A step's view for paper: a fixed height (no window to fill), every head drawn (no thumbnails)."""
    if view is None:
        return None
    if view.get("kind") == "chart":
        return {**view, "height": PAGE_HEIGHT - 60, "window_reserve": 0}
    return {**view, "height_budget": PAGE_HEIGHT, "window_reserve": 0, "focus": False}  # (heads side by side)


def handout(lab: Any, lesson: Any) -> dict[str, Any]:
    """The handout's data: per step its header, its text and its check (markdown-it's, raw HTML off, as trees the page
    builds element by element), its question and its view; a step whose view cannot be drawn says why in its check."""
    steps, total = [], len(lesson.steps)
    for k, step in enumerate(lesson.steps):
        try:
            shown = lessons.shown(lab, step)
            view, check = shown.view, shown.check
        except Exception as exc:  # (a teacher's state the view refuses: said where its check goes)
            view, check = None, sentence_of(exc, "lesson")
        question = asks(step)
        steps.append({
            "head": t(TEXT["page"], title=lesson.title, n=k + 1, total=total),
            "text": tree(lessons.text_html(lesson, k)),
            "question": t(TEXT["question"], question=question) if question else "",
            "check": tree(renderer().render(check or "")),
            "view": _fitted(view),
        })
    return {"kind": "handout", "lesson": lesson.name, "steps": steps}
