"""The live class on the Lesson tab: the panel classroom.js draws (a button that starts a class; the code, the link, the
QR code; a follower's bar), and the event that moves a follower's lesson to the teacher's step. Layout and wiring only:
the class itself is core/serve/classroom.py, served by core/serve/class_routes.py.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from core.i18n import mark, t
from core.render.class_assets import head
from core.serve.class_asks import ask_at
from core.serve.classroom import SENTENCES
from core.serve.lesson_moves import linked_step

from .common import never_raises, sentence_of
from .lesson_moves import At, arrive

START = mark("Start a class")
SAY = {  # what classroom.js shows, in the page's language: the panel's value
    "start": START,
    "code": mark("Class code"),
    "code_said": mark("Class code {code}"),  # (for a screen reader: the characters one by one)
    "open": mark("Students open this address, or scan the code:"),
    "qr": mark("QR code of the class's address"),
    "followers": mark("Following: {n}"),
    "hide": mark("Hide"),
    "show": mark("Show the code"),
    "end": mark("End the class"),
    "following": mark("You follow the teacher."),
    "away": mark("You are at step {mine}; the class is at step {theirs}."),
    "follow": mark("Follow the teacher"),
    "connecting": mark("Joining the class…"),
    "lost": mark("The connection to the class dropped; joining again…"),
    "answered": mark("Answered: {n} of {m}"),
    "reveal": mark("Show the class's answers"),
    "conceal": mark("Hide the class's answers"),
    "chart": mark("The class's answers"),
    "no_answers": mark("No answers yet."),
    "number": mark("Your answer, a number"),
    "send": mark("Send"),
    "sent": mark("Your answer is in: {answer}"),
    "ended": SENTENCES["ended"],
    "expired": SENTENCES["expired"],
}
TEMPLATE = '<div class="al-class-root"></div>'  # static: classroom.js draws inside it
JS_ON_LOAD = "window.AttnLabClass.mount(element, props, watch, trigger);"


def texts() -> dict[str, str]:
    """The panel's texts in the current language ({fields} are filled by the page)."""
    return {k: t(v) for k, v in SAY.items()}


def build(ctx, present, outputs: list, after_js: str, lesson_of) -> None:
    """The button and the panel (in the tab being built), and the follower's move: present(name, k) -> the values
    of `outputs`, as the lesson's own Next does; after_js runs after it (#lesson's data attributes); lesson_of(name)
    -> the lesson in the page's language (None for a name the app lacks), for what its step asks the class."""

    def ask(name: str, step: int) -> dict | None:
        return ask_at(lesson_of(name), step)

    # (out of the page's flow: the lesson's screen keeps its height; classroom.js draws the start button, the code, the
    # follower's bar, each fixed to a corner of the window)
    panel = gr.HTML(texts(), html_template=TEMPLATE, js_on_load=JS_ON_LOAD, head=head(), elem_id="class-panel",
                    container=False, padding=False, apply_default_css=False)
    ctx.first_values([panel], texts)

    def goto(evt: gr.EventData) -> tuple:
        """The class's step (lesson, step from 1), sent by classroom.js: drawn when `draw` (a follower that follows),
        and what it asks the class in the page's language (the panel's value). A lesson this app lacks moves nothing."""
        data = getattr(evt, "_data", None) or {}
        lesson, step = data.get("lesson"), data.get("step")
        skip = tuple(gr.skip() for _ in outputs)
        if not isinstance(lesson, str) or isinstance(step, bool) or not isinstance(step, int):
            return (*skip, gr.skip())
        asked = ask(lesson, step)
        said = {**texts(), "ask": asked and {**asked, "lesson": lesson, "step": step}}
        if data.get("draw") is False:
            return (*skip, said)
        found = lesson_of(lesson)
        if found is None:  # (a lesson this app lacks)
            return (*skip, said)
        at = arrive(found, linked_step(step))  # (step from 1 to an index; its question first)
        if data.get("revealed") is True:  # the teacher revealed it: the follower sees the view and its check too
            at = At(at.name, at.k, False)
        return (*present(found, at), said)

    def kept(evt: gr.EventData) -> Any:
        try:
            return goto(evt)
        except Exception as exc:  # a bug: logged, the page keeps its step
            sentence_of(exc, "class")
            return (*(gr.skip() for _ in outputs), gr.skip())

    panel.submit(never_raises(kept), None, [*outputs, panel], api_visibility="private", show_progress="hidden",
                 trigger_mode="always_last", queue=False).then(None, js=after_js)
