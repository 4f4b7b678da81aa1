"""Causality: edit one token and watch which output rows move; the autograd dependency map. Wiring only."""

from __future__ import annotations

import gradio as gr

from core.i18n import mark
from core.serve import views

from . import endpoints, lab_open, stale
from .attention_tab import variant_choices
from .common import CPU_GROUP, CPU_LIMIT, api_accordion, export_button, never_raises, problem_box, user_errors, view
from .i18n import static

TITLE = mark("Causality")
MAX_POSITION = 63  # the longest sentence the lab reads has 64 tokens
SENTENCE = "The cat sat on the mat because it was tired"


def build(ctx) -> None:
    gr.Markdown(static("Replace one token and measure how much each output row changes. With the causal mask, rows "
                       "before the edit cannot move at all; switch the mask off to see the future leak into the past."))
    with gr.Row():
        with gr.Column(scale=1, min_width=440):  # (440: a variant's title whole, in Spanish too)
            sentence = gr.Textbox(SENTENCE, label=static("Sentence"), lines=2, elem_id="causality-sentence")
            position = gr.Slider(0, MAX_POSITION, value=3, step=1, label=static("position to edit (0 = first token)"),
                                 elem_id="causality-position")  # the API's range; the page narrows it to the sentence
            replacement = gr.Textbox("dog", label=static("replacement word"), elem_id="causality-replacement")
            causal = gr.Checkbox(value=True, label=static("causal mask"), elem_id="causality-causal")
            variant = gr.Dropdown(variant_choices(ctx.registry), value="multi-head", label=static("Variant"),
                                  allow_custom_value=True, elem_id="causality-variant")
        with gr.Column(scale=3):
            problem = problem_box("causality-problem")
            summary = gr.Textbox(label=static("What changed"), interactive=False, elem_id="causality-summary")
            with gr.Row():
                bars = view(None, elem_id="causality-bars", scale=1, min_width=420)
                dependency = view(None, elem_id="causality-dependency", scale=1, min_width=420)
            export_button(bars, "causality-bars")
            with api_accordion():
                payload = gr.JSON(label=static("JSON (the /causality API output)"), open=False)

    @user_errors
    def causality(sentence, position, replacement, causal=True, variant="multi-head"):
        """Max |output change| per row after replacing one token; JSON {"row_max_abs_diff": [T numbers]}."""
        v = views.causality(ctx.lab, sentence, position, replacement, causal, variant)
        return v.bars, v.dependency, v.summary, v.payload

    @never_raises  # position_range answers any value
    def positions(sentence, position):
        """The slider ranges over the sentence's tokens; a position past the end moves to the last token. A position
        within it is left as the page holds it: this event may have read it before Open in the lab set the step's."""
        last, value = views.position_range(sentence, position)
        return gr.update(maximum=last, value=value) if value != position else gr.update(maximum=last)

    inputs, outputs = [sentence, position, replacement, causal, variant], [bars, dependency, summary, payload]
    lab_open.takes(ctx, "causality_tab", dict(zip(inputs, ["sentence", "position", "replacement", "causal", "variant"],
                                                  strict=True)))  # a lesson's causality step: its very edit
    ctx.warm.append(lambda: causality(sentence.value, position.value, replacement.value, causal.value, variant.value))
    endpoints.publish(causality, "causality", inputs, outputs, concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
    # The page's own events skip the queue, as the Attention tab's do (a finished queued event would leave its
    # inputs in every later event's walk, docs/app.md); core.serve.slots bounds their CPU; a mistake is said
    # in the problem box.
    fast = dict(queue=False, api_visibility="private", trigger_mode="always_last", show_progress="hidden")
    def draw(*values):
        """The page's call: the view, its bars marked with what they were drawn for (core.ui.stale)."""
        v = views.causality(ctx.lab, *values)
        return stale.marked(v.bars, values), v.dependency, v.summary, v.payload

    drawn = user_errors(draw, unqueued=len(outputs))
    redraw = gr.Textbox("", visible=False)  # "draw <time>": the bars came back for values the controls no longer hold
    events = [gr.on([position.input, replacement.change, causal.change, variant.change, redraw.change], drawn, inputs,
                    [*outputs, problem], **fast)]
    events.append(gr.on([sentence.change], positions, [sentence, position], position, **fast).then(
        drawn, inputs, [*outputs, problem], **fast))
    # the Attention tab's sentence, when it has changed since this tab last took it (an edit here stays)
    attention_sentence = ctx.shared["attention_inputs"][0]
    events.append(ctx.tab.select(None, [attention_sentence, sentence], sentence, js=FOLLOW_JS, queue=False).then(
        positions, [sentence, position], position, **fast).then(drawn, inputs, [*outputs, problem], **fast))
    for event in events:  # several controls set at once (Open in the lab): the last answer may be for half of them
        event.then(None, [bars, *inputs], redraw, js=stale.js(), queue=False, show_progress="hidden")


FOLLOW_JS = """(theirs, mine) => {
  if (window.__alCausalityFrom === theirs) return mine;
  window.__alCausalityFrom = theirs;
  return theirs;
}"""
