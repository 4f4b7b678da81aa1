"""The Lesson tab's pieces of HTML, every text escaped and in the page's language: the position line, the files that
did not load, a link's lesson or step that is not there, a step's question, the end screen, the outline and the
speaker notes. Layout only: the lesson's words come from its file (core.serve.lessons)."""

from __future__ import annotations

import html

from core.i18n import mark, t
from core.render.tokens import visible
from core.serve.lesson_moves import number

MESSAGES = {
    "where": mark("step {n} of {total}"),
    "end_where": mark("end of {total} steps"),
    "loaded": mark("Lessons loaded: {names}"),  # the names: a name stays a name in every language
    "none": mark("No lesson loaded."),
    "failed": mark("Lesson files that did not load ({n}); the other lessons did:"),
    "failed_lesson": mark("lesson {name}: {sentence}"),  # a file that got as far as naming its lesson
    "not_loaded": mark("The lesson {name} did not load, so it is not shown: {sentence}"),
    "unknown": mark("There is no lesson called {name}; choose one from the list above."),
    "no_step": mark("The lesson {name} has no step {step}; it has steps 1 to {n}, so it opens on step 1."),
    "question": mark("Question for the class"),
    "reveal": mark("Next press: the answer."),
    "end": mark("End of the lesson"),
    "end_lead": mark("What it showed ({n} steps); choose one to see it again:"),
    "outline": mark("Steps of the lesson"),
    "outline_keys": mark("↑ ↓ choose, Enter opens, Esc closes"),
    "notes": mark("Speaker notes"),
    "no_notes": mark("No notes for this step."),
}


def where_html(name: str, k: int | str, n: int, title: str = "", phase: str = "") -> str:
    """The position line: 'step k of n' (or the end screen's 'end of n steps'), with the lesson and step for #lesson's
    data attributes (escaped); k "" for no step shown (a link to a lesson that did not load); the step's title follows
    for a screen reader only (the line is a live region: a step change is said); phase "ask" while a question shows."""
    if k == "":
        text = ""
    else:
        text = t(MESSAGES["end_where"], total=n) if k == "end" else t(MESSAGES["where"], n=k, total=n)
    said = f'<span class="al-sr">{html.escape(title)}</span>' if title else ""
    phased = f' data-phase="{html.escape(phase)}"' if phase else ""
    return (f'<span class="al-lesson-where" data-lesson="{html.escape(name)}" data-step="{html.escape(str(k))}"'
            f"{phased}>{html.escape(text)}</span> {said}")


def failed_html(shelf, note: str = "") -> str:
    """The files that did not load, each with its sentence (file, line, why), in the page's language: shown at the
    top of the Lesson tab, where a teacher looks; then a link's step that is not there, in one line ("" for none)."""
    line = f'<p class="al-lesson-note" role="status">{html.escape(visible(note))}</p>' if note else ""
    if not shelf.errors:
        return line
    n = len(shelf.errors)
    items = "".join(f"<li>{html.escape(visible(_failure(e)))}</li>" for e in shelf.errors)
    title = t(MESSAGES["failed"], n=n)
    return f'<div class="al-lesson-failed" role="note"><p>{html.escape(title)}</p><ul>{items}</ul></div>{line}'


def _failure(error) -> str:
    """A file's sentence, with its lesson's name first when the file's own name does not say it."""
    if error.lesson and error.lesson != error.file.removesuffix(".md").split(".")[0]:
        return t(MESSAGES["failed_lesson"], name=error.lesson, sentence=str(error))
    return str(error)


def loaded_text(shelf, names: list[str]) -> str:
    """What loaded, by name and languages (Which lessons loaded)."""
    if not names:
        return t(MESSAGES["none"])
    return t(MESSAGES["loaded"], names=", ".join(f"{n} ({', '.join(shelf.lessons[n])})" for n in names))


def missing_html(shelf, name: str) -> str:
    """A link's lesson that is not shown, in one line: why it did not load, or that there is none of that name."""
    error = shelf.failed(name)
    sentence = (t(MESSAGES["not_loaded"], name=repr(name), sentence=str(error)) if error is not None
                else t(MESSAGES["unknown"], name=repr(name[:40])))
    return f'<div class="al-lesson-body"><p class="al-lesson-missing">{html.escape(visible(sentence))}</p></div>'


def no_step(name: str, asked: str, n: int) -> str:
    """A link's step the lesson does not have, in one line (the lesson opens on its first step)."""
    return t(MESSAGES["no_step"], name=repr(name), step=repr(str(asked)[:20]), n=n)


def ask_html(title: str, question: str) -> str:
    """A step's question before its view: the title, the question large, and what the next press does."""
    return (f'<div class="al-lesson-body al-ask"><h2>{html.escape(title)}</h2>'
            f'<p class="al-ask-label">{html.escape(t(MESSAGES["question"]))}</p>'
            f'<p class="al-ask-question">{html.escape(visible(question))}</p>'
            f'<p class="al-ask-hint">{html.escape(t(MESSAGES["reveal"]))}</p></div>')


def _steps(lesson, here: int | None) -> str:
    """Every step as a button that opens it (a click, or Enter): core/render/web/lesson.js sends the jump."""
    items = []
    for k, step in enumerate(lesson.steps):
        current = ' aria-current="step"' if k == here else ""
        items.append(f'<li><button type="button" class="al-jump" data-k="{k}"{current}>'
                     f'<span class="al-jump-n">{number(k)}</span> {html.escape(step.title)}</button></li>')
    return f'<ol class="al-steps">{"".join(items)}</ol>'


def end_html(lesson) -> str:
    """The end screen: the lesson's title and every step it showed, each one click (or Enter) away."""
    lead = t(MESSAGES["end_lead"], n=len(lesson.steps))
    return (f'<div class="al-lesson-body al-end"><h2>{html.escape(t(MESSAGES["end"]))}: '
            f'{html.escape(lesson.title)}</h2><p>{html.escape(lead)}</p>{_steps(lesson, None)}</div>')


def outline_html(lesson, here: int) -> str:
    """The outline the O key opens over the step: every step, the current one marked."""
    return (f'<div class="al-outline" role="dialog" aria-label="{html.escape(t(MESSAGES["outline"]))}">'
            f'<p class="al-outline-title">{html.escape(t(MESSAGES["outline"]))} — {html.escape(lesson.title)}</p>'
            f'{_steps(lesson, here)}<p class="al-outline-keys">{html.escape(t(MESSAGES["outline_keys"]))}</p></div>')


def notes_html(notes: str) -> str:
    """The step's speaker notes (the N key shows them: never on the screen by default), one paragraph per line."""
    lines = [line for line in str(notes or "").splitlines() if line.strip()]
    body = "".join(f"<p>{html.escape(visible(line))}</p>" for line in lines) or \
        f'<p class="al-notes-none">{html.escape(t(MESSAGES["no_notes"]))}</p>'
    return f'<div class="al-notes"><p class="al-notes-title">{html.escape(t(MESSAGES["notes"]))}</p>{body}</div>'
