"""The landing page: a lesson, one step per screen, presented with Next/Back or a clicker. Layout and wiring only."""

from __future__ import annotations

import html
import json
from typing import Any

import gradio as gr

from core.i18n import mark, t
from core.lab.lesson_format import MISTAKES, MODES
from core.render.tokens import visible
from core.serve import lessons

from . import access, class_panel, i18n, lab_link, trained_panel
from .common import never_raises, sentence_of, view
from .i18n import static

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
}
MESSAGES = {
    "where": mark("step {n} of {total}"),
    "loaded": mark("Lessons loaded: {names}"),  # the names: a name stays a name in every language
    "none": mark("No lesson loaded."),
    "failed": mark("Lesson files that did not load ({n}); the other lessons did:"),
    "failed_lesson": mark("lesson {name}: {sentence}"),  # a file that got as far as naming its lesson
    "not_loaded": mark("The lesson {name} did not load, so it is not shown: {sentence}"),
    "unknown": mark("There is no lesson called {name}; choose one from the list above."),
}
ABLATIONS = {"zero": mark("zero its output"), "uniform": mark("uniform weights")}  # short: the step's text says more
CONTROLS = ("causal", "scaled", "sentence", "mistake", "mode")  # every control a step may offer, in this order
# The presenter's clicker sends → ← PageDown PageUp (and Space): Next and Back, unless a text field has the focus.
KEYS_JS = """
if (!window.alLessonKeys) {
  window.alLessonKeys = true;
  document.addEventListener("keydown", (ev) => {
    const lesson = document.getElementById("lesson");
    if (!lesson || !lesson.offsetParent || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const t = ev.target, tag = (t && t.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable)) return;
    const next = ["ArrowRight", "PageDown", " "].includes(ev.key), back = ["ArrowLeft", "PageUp"].includes(ev.key);
    if (!next && !back) return;
    ev.preventDefault();
    const b = document.querySelector(next ? "#lesson-next" : "#lesson-back");
    if (b && !b.disabled) b.click();
  });
}
"""
# #lesson carries data-lesson and data-step (the public contract), copied from the position line after each move.
MARK_JS = """() => {
  const w = document.querySelector("#lesson-where .al-lesson-where"), l = document.getElementById("lesson");
  if (w && l) { l.dataset.lesson = w.dataset.lesson; l.dataset.step = w.dataset.step; }
}"""
STYLE = """<style>
#lesson-text, #lesson-text p, #lesson-text li { font-size: 20px !important; line-height: 1.35; }
#lesson-text p { margin: 0 0 10px 0 !important; }
#lesson-text h2 { font-size: 25px !important; margin: 0 0 8px 0 !important; }
#lesson-text, #lesson-failed { --block-padding: 0px; }
#lesson-text img { max-width: 100%; max-height: 300px; }
#lesson-failed:not(:has(.al-lesson-failed)) { display: none !important; }
.al-lesson-failed { font-size: 15px; line-height: 1.35; border-left: 5px solid #b3261e; padding: 4px 10px;
                    background: #fdf0ef; color: #1f1f1f; max-height: 30vh; overflow-y: auto; margin-bottom: 8px; }
.al-lesson-failed p, .al-lesson-failed ul { margin: 0 !important; }
.al-lesson-failed, .al-lesson-missing { overflow-wrap: anywhere; }
.al-lesson-failed ul { padding-left: 18px; }
#lesson-check, #lesson-check p { font-size: 20px !important; font-weight: 500; line-height: 1.3; }
#lesson-check { border-left: 5px solid #0072B2; padding-left: 10px; }
.al-lesson-where { font-size: 20px; white-space: nowrap; margin-right: 12px; }
#lesson-bar { align-items: center; }
#lesson-lab, #lesson-next, #lesson-back { white-space: nowrap; }
#lesson-where { flex: 0 0 190px !important; min-width: 190px !important; }
</style>"""


def where_html(name: str, k: int | str, n: int, title: str = "") -> str:
    """The position line: 'step k of n', with the lesson and step for #lesson's data attributes (escaped); k "" for
    no step shown (a link to a lesson that did not load); the step's title follows for a screen reader only (the line
    is a live region: a step change is said)."""
    text = t(MESSAGES["where"], n=k, total=n) if k != "" else ""
    said = f'<span class="al-sr">{html.escape(title)}</span>' if title else ""
    return (f'<span class="al-lesson-where" data-lesson="{html.escape(name)}" data-step="{k}">'
            f"{html.escape(text)}</span> {said}")


def failed_html(shelf) -> str:
    """The files that did not load, each with its sentence (file, line, why), in the page's language: shown at the
    top of the Lesson tab, where a teacher looks ("" when every file loaded)."""
    if not shelf.errors:
        return ""
    n = len(shelf.errors)
    items = "".join(f"<li>{html.escape(visible(_failure(e)))}</li>" for e in shelf.errors)
    title = t(MESSAGES["failed"], n=n)
    return f'<div class="al-lesson-failed" role="note"><p>{html.escape(title)}</p><ul>{items}</ul></div>'


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
            where = gr.HTML(where_html(first, 1, 1), elem_id="lesson-where", js_on_load=KEYS_JS, head=STYLE,
                            min_width=190, scale=0, elem_classes=[access.LIVE])  # a step change is said
            back = gr.Button(static(TEXT["back"]), elem_id="lesson-back", scale=0, min_width=110)
            nxt = gr.Button(static(TEXT["next"]), elem_id="lesson-next", variant="primary", scale=0, min_width=110)
            to_lab = gr.Button(static(TEXT["lab"]), elem_id="lesson-lab", scale=0, min_width=170)
        failed = gr.HTML(failed_html(shelf), elem_id="lesson-failed", padding=False, container=False)
        with gr.Row(equal_height=False):
            with gr.Column(scale=1, min_width=320):
                text = gr.HTML(elem_id="lesson-text", padding=False, container=False)  # markdown-it's HTML only
                check = gr.Markdown(elem_id="lesson-check", sanitize_html=True, elem_classes=[access.LIVE])  # the lab's (tokens escaped)
                causal = gr.Checkbox(True, label=static(TEXT["causal"]), visible=False, elem_id="lesson-causal")
                scaled = gr.Checkbox(True, label=static(TEXT["scaled"]), visible=False, elem_id="lesson-scaled")
                sentence = gr.Textbox(label=static(TEXT["sentence"]), visible=False, elem_id="lesson-sentence",
                                      max_lines=2)
                mistake = gr.Radio(list(MISTAKES), value="none", label=static(TEXT["mistake"]),
                                   visible=False, elem_id="lesson-mistake")
                mode = gr.Radio([(static(ABLATIONS[m]), m) for m in MODES], value="zero", label=static(TEXT["mode"]),
                                visible=False, elem_id="lesson-mode")
            with gr.Column(scale=1, min_width=420):
                shown = view(None, elem_id="lesson-view")
        with gr.Accordion(static(TEXT["status"]), open=False, elem_id="lesson-status-box"):
            status = gr.Markdown(elem_id="lesson-status")
    position = gr.Textbox(json.dumps([first, 0]), visible=False, elem_id="lesson-position")
    lab_state = gr.JSON(None, visible=False)
    controls = [causal, scaled, sentence, mistake, mode]

    def lesson_of(name: Any):
        """The lesson of that name in the page's language; None for a name the shelf does not have."""
        return shelf.get(name, i18n.current()) if isinstance(name, str) and name in shelf.lessons else None

    def drawn(lesson, k: int, overrides: dict | None = None) -> tuple:
        """The step's view, check and lab state; a state the view refuses is said in the check (the page stays)."""
        step = lesson.steps[k]
        try:
            s = lessons.show(ctx.lab, step.view, lessons.state(step, overrides))
            return s.view, s.check, {**s.lab, "view": step.view}
        except Exception as exc:  # a teacher's state the view cannot take: one sentence where the check goes
            return None, sentence_of(exc, "lesson"), None

    def present(name: Any, k: Any) -> tuple:
        """Step k (from 0, held to the lesson) of the lesson: position, text, view, check, controls preset."""
        lesson = lesson_of(name)
        if lesson is None:
            return (json.dumps(["", 0]), "", html.escape(t(MESSAGES["none"])), "", None, None,
                    *(gr.update(visible=False) for _ in CONTROLS))
        k = lessons.step_at(lesson, k)
        step = lesson.steps[k]
        st = lessons.state(step)
        v, c, lab = drawn(lesson, k)
        ups = [gr.update(visible=name in step.controls, value=st[name]) for name in CONTROLS]
        return (json.dumps([lesson.name, k]), where_html(lesson.name, *lessons.numbered(lesson, k), step.title),
                lessons.text_html(lesson, k), c, v, lab, *ups)

    def absent(name: str) -> tuple:
        """A link to a lesson that is not shown: the one line that says why, no step, no other lesson."""
        return (json.dumps(["", 0]), where_html(name, "", 0), missing_html(shelf, name), "", None, None,
                *(gr.update(visible=False) for _ in CONTROLS))

    def moved(pos: str, by: int) -> tuple:
        name, k = lessons.position(pos)
        lesson = lesson_of(name)
        if lesson is None:  # no lesson shown (a link to one that did not load): the picker opens one
            return tuple(gr.skip() for _ in outputs)
        return present(name, lessons.step_at(lesson, k, by))

    def changed(pos: str, *values) -> tuple:
        """A control moved: the same step redrawn with the presenter's value."""
        name, k = lessons.position(pos)
        lesson = lesson_of(name)
        if lesson is None:
            return gr.skip(), gr.skip(), gr.skip()
        v, c, lab = drawn(lesson, lessons.step_at(lesson, k), dict(zip(CONTROLS, values, strict=True)))
        return v, c, lab

    def opened(request: gr.Request):
        """The page's first step: ?lesson=NAME&step=N (from 1), else the first lesson; the picker, the files that did
        not load and the loaded ones, in the page's language. A link to a lesson not shown says why, in one line."""
        params = dict(getattr(request, "query_params", {}) or {})
        asked = params.get("lesson")
        choices = [(lesson_of(n).title, n) for n in names]
        top = (failed_html(shelf), loaded_text(shelf, names))
        if isinstance(asked, str) and asked not in names:
            return (gr.update(choices=choices, value=None), *top, *absent(asked))
        name = asked if asked in names else first
        k = lessons.linked_step(params.get("step", "1"))
        return (gr.update(choices=choices, value=name or None), *top, *present(name, k))

    outputs = [position, where, text, check, shown, lab_state, *controls]
    # A step change skips the queue (one round trip: the views are cached); a bug keeps the step shown (logged).
    fast = dict(api_visibility="private", show_progress="hidden", trigger_mode="always_last", queue=False)
    ctx.shared["demo"].load(opened, None, [picker, failed, status, *outputs], api_visibility="private",
                            show_progress="hidden").then(None, js=MARK_JS)
    picker.input(kept(lambda n: present(n, 0), len(outputs)), picker, outputs, **fast).then(None, js=MARK_JS)
    back.click(kept(lambda p: moved(p, -1), len(outputs)), position, outputs, **fast).then(None, js=MARK_JS)
    nxt.click(kept(lambda p: moved(p, +1), len(outputs)), position, outputs, **fast).then(None, js=MARK_JS)
    for control in controls:
        (control.submit if control is sentence else control.input)(
            kept(changed, 3), [position, *controls], [shown, check, lab_state], **fast)
    class_panel.build(ctx, present, outputs, MARK_JS, lesson_of)  # a live class follows this lesson (#34)
    ctx.shared.setdefault("after_tabs", []).append(lambda: _wire_lab(ctx, to_lab, lab_state, position))
    ctx.warm.append(lambda: [lessons.show(ctx.lab, s.view, lessons.state(s))
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


def _wire_lab(ctx, to_lab: gr.Button, lab_state: gr.JSON, position: gr.Textbox) -> None:
    """Once every tab is built: "open in the lab" writes the step's state into the Attention tab's inputs, opens
    the tab the step's view comes from and leaves that state's lab link in the address bar; a lab link
    (core/ui/lab_link.py) fills them when the page opens."""
    inputs, order = ctx.shared.get("attention_inputs"), ctx.shared.get("tabs", [])
    if not inputs or "attention_tab" not in order:
        return
    weights = list(ctx.shared.get("attention_weights", ()))  # the weights switch and the trained model's sentence

    def to_inputs(lab: Any) -> tuple:
        if not isinstance(lab, dict):
            return tuple(gr.skip() for _ in [*inputs, *weights])
        trained = lab.get("weights") == "trained"
        switch = (trained_panel.TRAINED if trained else trained_panel.RANDOM,
                  lab["sentence"] if trained else gr.skip())[:len(weights)]
        return (lab["sentence"], lab["variant"], lab["causal"], lab["scaled"], lab["heads"], lab["d_model"],
                lab["seed"], json.dumps(lab["options"]), *switch)

    js = """(lab, pos) => {
      const tabs = TABS, order = ORDER, view = (lab && lab.view) || "heatmaps";
      const i = order.indexOf(tabs[view] || "attention_tab");
      const b = document.querySelectorAll('[role="tab"]')[i];
      if (b) b.click();
    }""".replace("TABS", json.dumps(lessons.LAB_TABS)).replace("ORDER", json.dumps(order))
    to_lab.click(to_inputs, lab_state, [*inputs, *weights], api_visibility="private", show_progress="hidden").then(
        None, [lab_state, position], None, js=js).then(None, lab_state, None, js=lab_link.replace_js(lessons.LAB_TABS))
    lab_link.wire_reader(ctx, inputs, ctx.shared.get("attention_option_controls", {}), order)
