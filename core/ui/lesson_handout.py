"""The handout (?lesson=NAME&print=1): every step of a lesson, its text, its question, its view and its check, one
per printed page (core/render/web/lesson.js draws it, lesson.css lays it out for print)."""

from __future__ import annotations

from typing import Any

from core.i18n import mark, t
from core.render.lesson_html import renderer, tree
from core.serve import lessons
from core.serve.lesson_moves import numbered

from .common import sentence_of
from .lesson_moves import asks

TEXT = {
    "page": mark("{title} · step {n} of {total}"),
    "question": mark("Question for the class: {question}"),
}


def handout(lab: Any, lesson: Any) -> dict[str, Any]:
    """The handout's data: per step its header, its text and its check (markdown-it's, raw HTML off, as trees the page
    builds element by element), its question and its view; a step whose view cannot be drawn says why in its check."""
    steps = []
    for k, step in enumerate(lesson.steps):
        try:
            shown = lessons.shown(lab, step)
            view, check = shown.view, shown.check
        except Exception as exc:  # (a teacher's state the view refuses: said where its check goes)
            view, check = None, sentence_of(exc, "lesson")
        question, (n, total) = asks(step), numbered(lesson, k)
        steps.append({
            "head": t(TEXT["page"], title=lesson.title, n=n, total=total),
            "text": tree(lessons.text_html(lesson, k)),
            "question": t(TEXT["question"], question=question) if question else "",
            "check": tree(renderer().render(check or "")),
            "view": lessons.on_paper(view),
        })
    return {"kind": "handout", "lesson": lesson.name, "steps": steps}
