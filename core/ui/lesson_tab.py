"""The landing page: a lesson, one step per screen, presented with Next/Back or a clicker. Layout and wiring only."""

from __future__ import annotations

import html
import json
from typing import Any

import gradio as gr

from core.lab.lesson_format import MISTAKES, MODES, safe_markdown
from core.serve import lessons

from . import access, i18n, lab_link, trained_panel
from .common import never_raises, sentence_of, view

TITLE = "Lesson"
FIRST = "chapter"  # the lesson a page opens on
BUILT_IN = ("chapter", "v1-v2", "by-hand")  # the picker's order: these first, then a teacher's and the plugins'
TEXT = {
    "lesson": "Lesson",
    "back": "← Back",
    "next": "Next →",
    "lab": "Open in the lab",
    "causal": "causal mask",
    "scaled": "divide scores by √d_head",
    "sentence": "Sentence",
    "mistake": "mistake",
    "mode": "Ablation: how a head is taken out",
    "status": "Which lessons loaded",
}
MESSAGES = {
    "where": "step {n} of {total}",
    "loaded": "Lessons loaded:",  # then the names: a name stays a name in every language
    "failed": "Not loaded:",  # then the file's sentence (a teacher's diagnostic, as the CLI says it)
    "none": "No lesson loaded.",
}
ABLATIONS = {"zero": "zero its output", "uniform": "uniform weights"}  # short: the step's text says more
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
#lesson-check, #lesson-check p { font-size: 20px !important; font-weight: 500; line-height: 1.3; }
#lesson-check { border-left: 5px solid #0072B2; padding-left: 10px; }
.al-lesson-where { font-size: 20px; white-space: nowrap; margin-right: 12px; }
#lesson-bar { align-items: center; }
#lesson-lab, #lesson-next, #lesson-back { white-space: nowrap; }
#lesson-where { flex: 0 0 190px !important; min-width: 190px !important; }
</style>"""


def where_html(name: str, k: int, n: int, title: str = "") -> str:
    """The position line: 'step k of n', with the lesson and step for #lesson's data attributes (escaped); the
    step's title follows for a screen reader only (the line is a live region: a step change is said)."""
    text = i18n.tr(MESSAGES["where"].format(n=k, total=n))
    said = f'<span class="al-sr">{html.escape(title)}</span>' if title else ""
    return (f'<span class="al-lesson-where" data-lesson="{html.escape(name)}" data-step="{k}">'
            f"{html.escape(text)}</span> {said}")


def build(ctx) -> None:
    shelf = lessons.load(ctx.registry)
    names = sorted(shelf.names(), key=lambda n: BUILT_IN.index(n) if n in BUILT_IN else len(BUILT_IN))
    first = FIRST if FIRST in names else (names[0] if names else "")
    with gr.Column(elem_id="lesson"):
        with gr.Row(elem_id="lesson-bar", equal_height=True):
            picker = gr.Dropdown([(shelf.get(n).title, n) for n in names], value=first or None, label=TEXT["lesson"],
                                 show_label=False, container=False, elem_id="lesson-picker",
                                 elem_classes=["al-example"], scale=3, min_width=200)  # titles: the lessons' own
            where = gr.HTML(where_html(first, 1, 1), elem_id="lesson-where", js_on_load=KEYS_JS, head=STYLE,
                            min_width=190, scale=0, elem_classes=[access.LIVE])  # a step change is said
            back = gr.Button(TEXT["back"], elem_id="lesson-back", scale=0, min_width=110)
            nxt = gr.Button(TEXT["next"], elem_id="lesson-next", variant="primary", scale=0, min_width=110)
            to_lab = gr.Button(TEXT["lab"], elem_id="lesson-lab", scale=0, min_width=170)
        with gr.Row(equal_height=False):
            with gr.Column(scale=1, min_width=320):
                text = gr.Markdown(elem_id="lesson-text", sanitize_html=True)
                check = gr.Markdown(elem_id="lesson-check", sanitize_html=True, elem_classes=[access.LIVE])
                causal = gr.Checkbox(True, label=TEXT["causal"], visible=False, elem_id="lesson-causal")
                scaled = gr.Checkbox(True, label=TEXT["scaled"], visible=False, elem_id="lesson-scaled")
                sentence = gr.Textbox(label=TEXT["sentence"], visible=False, elem_id="lesson-sentence", max_lines=2)
                mistake = gr.Radio(list(MISTAKES), value="none", label=TEXT["mistake"],
                                   visible=False, elem_id="lesson-mistake")
                mode = gr.Radio([(ABLATIONS[m], m) for m in MODES], value="zero", label=TEXT["mode"], visible=False,
                                elem_id="lesson-mode")
            with gr.Column(scale=1, min_width=420):
                shown = view(None, elem_id="lesson-view")
        with gr.Accordion(TEXT["status"], open=False, elem_id="lesson-status-box"):
            status = gr.Markdown(elem_id="lesson-status")
    position = gr.Textbox(json.dumps([first, 0]), visible=False, elem_id="lesson-position")
    lab_state = gr.JSON(None, visible=False)
    controls = [causal, scaled, sentence, mistake, mode]

    def lesson_of(name: Any):
        lesson = shelf.get(name if isinstance(name, str) else "", i18n.current())
        return lesson if lesson is not None else shelf.get(first, i18n.current())

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
            return (json.dumps(["", 0]), "", i18n.tr(MESSAGES["none"]), "", None, None, *(gr.skip() for _ in CONTROLS))
        k = lessons.step_at(lesson, k)
        step = lesson.steps[k]
        st = lessons.state(step)
        v, c, lab = drawn(lesson, k)
        ups = [gr.update(visible=name in step.controls, value=st[name]) for name in CONTROLS]
        body = f"## {safe_markdown(step.title)}\n\n{safe_markdown(step.text)}"
        return (json.dumps([lesson.name, k]), where_html(lesson.name, *lessons.numbered(lesson, k), step.title), body, c,
                v, lab, *ups)

    def moved(pos: str, by: int) -> tuple:
        name, k = lessons.position(pos)
        lesson = lesson_of(name)
        return present(name, lessons.step_at(lesson, k, by) if lesson is not None else 0)

    def changed(pos: str, *values) -> tuple:
        """A control moved: the same step redrawn with the presenter's value."""
        name, k = lessons.position(pos)
        lesson = lesson_of(name)
        if lesson is None:
            return gr.skip(), gr.skip(), gr.skip()
        v, c, lab = drawn(lesson, lessons.step_at(lesson, k), dict(zip(CONTROLS, values, strict=True)))
        return v, c, lab

    def opened(request: gr.Request):
        """The page's first step: ?lesson=NAME&step=N (from 1), else the first lesson; the picker in its language."""
        params = dict(getattr(request, "query_params", {}) or {})
        name = params.get("lesson") if params.get("lesson") in names else first
        k = lessons.linked_step(params.get("step", "1"))
        choices = [(lesson_of(n).title, n) for n in names]
        loaded = " ".join([i18n.tr(MESSAGES["loaded"]), ", ".join(
            f"{n} ({', '.join(shelf.lessons[n])})" for n in names)]) if names else i18n.tr(MESSAGES["none"])
        failed = [f"{i18n.tr(MESSAGES['failed'])} {safe_markdown(e)}" for e in shelf.errors]
        return (gr.update(choices=choices, value=name), "\n\n".join([loaded, *failed]), *present(name, k))

    outputs = [position, where, text, check, shown, lab_state, *controls]
    # A step change skips the queue (one round trip: the views are cached); a bug keeps the step shown (logged).
    fast = dict(api_visibility="private", show_progress="hidden", trigger_mode="always_last", queue=False)
    ctx.shared["demo"].load(opened, None, [picker, status, *outputs], api_visibility="private",
                            show_progress="hidden").then(None, js=MARK_JS)
    picker.input(kept(lambda n: present(n, 0), len(outputs)), picker, outputs, **fast).then(None, js=MARK_JS)
    back.click(kept(lambda p: moved(p, -1), len(outputs)), position, outputs, **fast).then(None, js=MARK_JS)
    nxt.click(kept(lambda p: moved(p, +1), len(outputs)), position, outputs, **fast).then(None, js=MARK_JS)
    for control in controls:
        (control.submit if control is sentence else control.input)(
            kept(changed, 3), [position, *controls], [shown, check, lab_state], **fast)
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
