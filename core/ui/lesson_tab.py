"""The landing page: a lesson, one step per screen, presented with Next/Back or a clicker. Layout and wiring only."""

from __future__ import annotations

import html
import json
from typing import Any

import gradio as gr

from core.i18n import mark, t
from core.lab.lesson_format import MISTAKES, MODES
from core.render import web
from core.serve import lessons
from core.serve.lesson_moves import numbered
from core.serve.screens import Screens
from core.transfer import MISTAKE_LABELS

from . import access, class_panel, i18n, lab_open
from .common import never_raises, sentence_of, view
from .i18n import static
from .lesson_handout import handout
from .lesson_moves import END, At, ahead, arrive, asks, linked, loads, moved
from .lesson_moves import jumped as chosen
from .lesson_screens import (  # noqa: F401 - where_html, failed_html, missing_html, loaded_text: the tab's pieces
    MESSAGES,
    ask_html,
    end_html,
    failed_html,
    loaded_text,
    missing_html,
    no_step,
    notes_html,
    outline_html,
    where_html,
)

TITLE = mark("Lesson")
FIRST = "chapter"  # the lesson a page opens on
BUILT_IN = ("chapter", "v1-v2", "by-hand")  # the picker's order: these first, then a teacher's and the plugins'
TEXT = {
    "lesson": mark("Lesson"),
    "back": mark("← Back"),
    "next": mark("Next →"),
    "lab": mark("Open in the lab"),
    "causal": mark("causal mask"),
    "scaled": mark("divide scores by √d_head"),
    "sentence": mark("Sentence"),
    "mistake": mark("mistake"),
    "mode": mark("Ablation: how a head is taken out"),
    "status": mark("Which lessons loaded"),
    "present": mark("Present"),
}
ABLATIONS = {"zero": mark("zero its output"), "uniform": mark("uniform weights")}  # short: the step's text says more
CONTROLS = ("causal", "scaled", "sentence", "mistake", "mode")  # every control a step may offer, in this order
# After each move: #lesson's data-lesson, data-step (the public contract) and the address (core/render/web/lesson.js).
# (written out here: lesson.js, loaded with the tab's head, may come after the first step)
MARK = """(first) => {
  const w = document.querySelector("#lesson-where .al-lesson-where"), l = document.getElementById("lesson");
  if (!w || !l) return;
  l.dataset.lesson = w.dataset.lesson;
  l.dataset.step = w.dataset.step;
  if (w.dataset.phase) l.dataset.phase = w.dataset.phase; else delete l.dataset.phase;
  if (window.AttnLabLesson) window.AttnLabLesson.marked(first);
}"""
MARK_JS = f"() => ({MARK})(false)"
FIRST_MARK_JS = f"() => ({MARK})(true)"
JUMP_JS = "(p, k) => [p, (window.AttnLabLesson && window.AttnLabLesson.jumpTo) || '']"  # the step the page chose
PRESENT_JS = "() => window.AttnLabLesson && window.AttnLabLesson.present()"


def build(ctx) -> None:
    shelf = lessons.load(ctx.registry)
    names = sorted(shelf.names(), key=lambda n: BUILT_IN.index(n) if n in BUILT_IN else len(BUILT_IN))
    first = FIRST if FIRST in names else (names[0] if names else "")
    with gr.Column(elem_id="lesson"):
        with gr.Row(elem_id="lesson-bar", equal_height=True):
            picker = gr.Dropdown([(shelf.get(n).title, n) for n in names], value=first or None,
                                 label=static(TEXT["lesson"]), show_label=False, container=False,
                                 elem_id="lesson-picker", elem_classes=["al-example"], scale=3,
                                 min_width=200)  # titles: the lessons' own
            where = gr.HTML(where_html(first, "", 0), elem_id="lesson-where", head=web.lesson_head(),
                            min_width=170, scale=0, elem_classes=[access.LIVE])  # a step change is said
            back = gr.Button(static(TEXT["back"]), elem_id="lesson-back", scale=0, min_width=100)
            nxt = gr.Button(static(TEXT["next"]), elem_id="lesson-next", variant="primary", scale=0, min_width=100)
            to_lab = gr.Button(static(TEXT["lab"]), elem_id="lesson-lab", scale=0, min_width=150)
            present_button = gr.Button(static(TEXT["present"]), elem_id="lesson-present", scale=0, min_width=90)
        failed = gr.HTML(failed_html(shelf), elem_id="lesson-failed", padding=False, container=False)
        outline = gr.HTML(elem_id="lesson-outline", padding=False, container=False)  # the O key shows it
        with gr.Row(equal_height=False, elem_id="lesson-step", elem_classes=["al-screen"]):  # (its view's room: core.js)
            with gr.Column(scale=1, min_width=320, elem_id="lesson-words"):
                text = gr.HTML(elem_id="lesson-text", padding=False, container=False)  # markdown-it's HTML only
                check = gr.Markdown(elem_id="lesson-check", sanitize_html=True, elem_classes=[access.LIVE])  # the lab's (tokens escaped)
                causal = gr.Checkbox(True, label=static(TEXT["causal"]), visible=False, elem_id="lesson-causal")
                scaled = gr.Checkbox(True, label=static(TEXT["scaled"]), visible=False, elem_id="lesson-scaled")
                sentence = gr.Textbox(label=static(TEXT["sentence"]), visible=False, elem_id="lesson-sentence",
                                      max_lines=2)
                mistake = gr.Radio([(static(MISTAKE_LABELS[m]), m) for m in MISTAKES], value="none", label=static(TEXT["mistake"]),
                                   visible=False, elem_id="lesson-mistake")
                mode = gr.Radio([(static(ABLATIONS[m]), m) for m in MODES], value="zero", label=static(TEXT["mode"]),
                                visible=False, elem_id="lesson-mode")
                notes = gr.HTML(elem_id="lesson-notes", padding=False, container=False)  # the N key shows them
            with gr.Column(scale=1, min_width=420, elem_id="lesson-seen"):
                shown = view(None, elem_id="lesson-view")
        with gr.Accordion(static(TEXT["status"]), open=False, elem_id="lesson-status-box"):
            status = gr.Markdown(elem_id="lesson-status")
        paper = view(None, elem_id="lesson-handout")  # ?print=1: every step, one per printed page
    position = gr.Textbox(json.dumps([first, 0]), visible=False, elem_id="lesson-position")
    asked = gr.Textbox("", visible=False)  # the step the outline or the end screen chose (JUMP_JS fills it)
    jump = gr.Button("", elem_id="lesson-jump", visible="hidden")  # pressed by the page (lesson.js), never seen
    lab_state = gr.JSON(None, visible=False)
    controls = [causal, scaled, sentence, mistake, mode]

    def lesson_of(name: Any):
        """The lesson of that name in the page's language; None for a name the shelf does not have."""
        return shelf.get(name, i18n.current()) if isinstance(name, str) and name in shelf.lessons else None

    def drawn(lesson, k: int, overrides: dict | None = None) -> tuple:
        """The step's view, check and lab state; a state the view refuses is said in the check (the page stays)."""
        step = lesson.steps[k]
        try:
            s = lessons.shown(ctx.lab, step, overrides)  # (its expectations measured under the check)
            return s.view, s.check, {**s.lab, "view": step.view}
        except Exception as exc:  # a teacher's state the view cannot take: one sentence where the check goes
            return None, sentence_of(exc, "lesson"), None

    hidden = tuple(gr.update(visible=False) for _ in CONTROLS)

    screens = Screens()

    def present(lesson, at: At) -> tuple:
        """A place in the lesson: position, position line, text, check, view, lab state, controls preset, outline and
        notes. A question shows alone (its view and check come with the next press); after the last step, the end.
        Built once for every page at that place (the teacher's and the class's); the next place built meanwhile."""
        values = screens.get(lesson, at.k, at.asking, lambda: placed(lesson, at))
        screens.ahead(lesson, [(p.k, p.asking, lambda p=p: placed(lesson, p)) for p in ahead(lesson, at)])
        return values

    def placed(lesson, at: At) -> tuple:
        n = len(lesson.steps)
        if at.k >= n:  # the end screen: what the lesson showed, each step a press away
            return (at.dumps(), where_html(lesson.name, END, n), end_html(lesson), "", None, None, *hidden,
                    outline_html(lesson, n), "")
        step = lesson.steps[at.k]
        line = where_html(lesson.name, *numbered(lesson, at.k), step.title, "ask" if at.asking else "")
        extra = (outline_html(lesson, at.k), notes_html(getattr(step, "notes", "")))
        v, c, lab = drawn(lesson, at.k)  # (cached: the reveal paints from memory; the lab opens on it meanwhile)
        if at.asking:
            return (at.dumps(), line, ask_html(step.title, asks(step)), "", None, lab, *hidden, *extra)
        st = lessons.state(step)
        ups = [gr.update(visible=name in step.controls, value=st[name]) for name in CONTROLS]
        return (at.dumps(), line, lessons.text_html(lesson, at.k), c, v, lab, *ups, *extra)

    def nothing(name: str = "") -> tuple:
        """No lesson shown: a link to one that is not there (its line says why), or none loaded."""
        text = missing_html(shelf, name) if name else html.escape(t(MESSAGES["none"]))
        return (json.dumps(["", 0]), where_html(name, "", 0), text, "", None, None, *hidden, "", "")

    def pressed(pos: str, by: int) -> tuple:
        at = loads(pos)
        lesson = lesson_of(at.name)
        if lesson is None:  # no lesson shown (a link to one that did not load): the picker opens one
            return tuple(gr.skip() for _ in outputs)
        return present(lesson, moved(lesson, at, by))

    def jumped(pos: str, k: str) -> tuple:
        """The outline's or the end screen's choice: that step (its question first)."""
        lesson = lesson_of(loads(pos).name)
        if lesson is None:
            return tuple(gr.skip() for _ in outputs)
        return present(lesson, chosen(lesson, k))

    def picked(name: Any, pos: str) -> tuple:
        """Another lesson chosen: its first step. The picker's input also fires when it loses the focus (Gradio's
        dropdown): the same lesson chosen again keeps the step shown."""
        lesson = lesson_of(name)
        if lesson is None or loads(pos).name == name:
            return tuple(gr.skip() for _ in outputs)
        return present(lesson, arrive(lesson, 0))

    def changed(pos: str, *values) -> tuple:
        """A control moved: the same step redrawn with the presenter's value."""
        at = loads(pos)
        lesson = lesson_of(at.name)
        if lesson is None or at.asking or at.k >= len(lesson.steps):
            return gr.skip(), gr.skip(), gr.skip()
        return drawn(lesson, at.k, dict(zip(CONTROLS, values, strict=True)))

    def opened(request: gr.Request):
        """The page's first step: ?lesson=NAME&step=N (from 1, or end), else the first lesson; the picker, the files
        that did not load and the loaded ones, in the page's language. A link to a lesson not shown, or to a step
        its lesson has not, says so in one line."""
        params = dict(getattr(request, "query_params", {}) or {})
        name = params.get("lesson")
        choices = [(lesson_of(n).title, n) for n in names]
        loaded = loaded_text(shelf, names)
        if isinstance(name, str) and name not in names:
            return (gr.update(choices=choices, value=None), failed_html(shelf), loaded, None, *nothing(name))
        name = name if name in names else first
        lesson = lesson_of(name)
        if lesson is None:
            return (gr.update(choices=choices, value=None), failed_html(shelf), loaded, None, *nothing())
        k, known = linked(params.get("step", "1"), len(lesson.steps))
        note = "" if known else no_step(name, params.get("step", ""), len(lesson.steps))
        printed = handout(ctx.lab, lesson) if params.get("print") == "1" else None
        return (gr.update(choices=choices, value=name), failed_html(shelf, note), loaded, printed,
                *present(lesson, arrive(lesson, k)))

    outputs = [position, where, text, check, shown, lab_state, *controls, outline, notes]
    # A step change skips the queue (one round trip: the views are cached); a bug keeps the step shown (logged).
    fast = dict(api_visibility="private", show_progress="hidden", trigger_mode="always_last", queue=False)
    ctx.shared["demo"].load(opened, None, [picker, failed, status, paper, *outputs], api_visibility="private",
                            show_progress="hidden").then(None, js=FIRST_MARK_JS)
    picker.input(kept(picked, len(outputs)), [picker, position], outputs, **fast).then(None, js=MARK_JS)
    back.click(kept(lambda p: pressed(p, -1), len(outputs)), position, outputs, **fast).then(None, js=MARK_JS)
    nxt.click(kept(lambda p: pressed(p, +1), len(outputs)), position, outputs, **fast).then(None, js=MARK_JS)
    jump.click(kept(jumped, len(outputs)), [position, asked], outputs, js=JUMP_JS, **fast).then(None, js=MARK_JS)
    present_button.click(None, js=PRESENT_JS)
    for control in controls:
        (control.submit if control is sentence else control.input)(
            kept(changed, 3), [position, *controls], [shown, check, lab_state], **fast)
    class_panel.build(ctx, present, outputs, MARK_JS, lesson_of)  # a live class follows this lesson (#34)
    ctx.shared.setdefault("after_tabs", []).append(lambda: lab_open.wire(ctx, to_lab, lab_state))
    ctx.warm.append(lambda: [lessons.shown(ctx.lab, s)
                             for s in (shelf.get(first).steps if first else ())])


def kept(fn, n_outputs: int):
    """An unqueued handler that never raises: on a bug (logged) the page keeps what it shows."""
    def answer(*args):
        try:
            return fn(*args)
        except Exception as exc:
            sentence_of(exc, "lesson")  # logs it
            return tuple(gr.skip() for _ in range(n_outputs))
    return never_raises(answer)
