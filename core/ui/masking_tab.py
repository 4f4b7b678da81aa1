"""Masking and scaling: three ways to hide the future, and why scores are divided by √d. Wiring only."""

from __future__ import annotations

import gradio as gr

from core.i18n import mark
from core.lab.lesson_keys import DEFAULTS, DROPOUT
from core.serve import views

from . import endpoints, lab_open
from .common import CPU_GROUP, CPU_LIMIT, export_button, problem_box, user_errors, view
from .i18n import static

TITLE = mark("Masking & scaling")
SENTENCE = "The cat sat on the mat"
TEXT = {
    "dropout": mark("### Dropout on the weights: evaluation beside one training step"),
    "p": mark("dropout rate p"),
    "dropout_check": mark("What dropout did"),
}


def build(ctx) -> None:
    gr.Markdown(static("Head 0 of the sentence (multi-head, d_model 16, 2 heads), masked three ways."))
    problem = problem_box("masking-problem")
    with gr.Row():
        sentence = gr.Textbox(SENTENCE, label=static("Sentence"), scale=3, elem_id="masking-sentence")
        seed = gr.Number(0, precision=0, label=static("seed"), scale=1)
    three = view(None, elem_id="masking-three")
    three_summary = gr.Textbox(label=static("What the three show"), interactive=False)
    export_button(three, "masking-three")
    gr.Markdown(static("### Why divide by √d: softmax sharpness against head dimension"))
    sqrt_d = view(None, elem_id="masking-sqrt-d")
    sqrt_summary = gr.Textbox(label=static("What the curves show"), interactive=False)
    export_button(sqrt_d, "masking-sqrt-d")
    gr.Markdown(static(TEXT["dropout"]))
    p = gr.Radio(list(DROPOUT), value=DEFAULTS["dropout"], label=static(TEXT["p"]), elem_id="masking-p")
    dropped = view(None, elem_id="masking-dropout")  # head 0: evaluation | training (the v1-v2 lesson's step)
    dropped_check = gr.Textbox(label=static(TEXT["dropout_check"]), interactive=False, elem_id="masking-dropout-check")
    export_button(dropped, "masking-dropout")

    @user_errors
    def masking(sentence, seed=0):
        v = views.masking(ctx.lab, sentence, seed)
        return v.three, v.three_summary, v.sqrt_d, v.sqrt_d_summary

    @user_errors
    def dropout(sentence, seed=0, p=DEFAULTS["dropout"]):
        return views.dropout(ctx.lab, sentence, p, seed)

    def page(sentence, seed=0, p=DEFAULTS["dropout"]):
        """The page's view: the three ways and √d (the /masking endpoint's), then the dropout pair (/dropout's)."""
        return (*masking(sentence, seed), *dropout(sentence, seed, p))

    ctx.warm.append(lambda: masking(sentence.value, seed.value))
    inputs, outputs = [sentence, seed], [three, three_summary, sqrt_d, sqrt_summary]
    lab_open.takes(ctx, "masking_tab", {sentence: "sentence", seed: "seed", p: "dropout"})
    endpoints.publish(masking, "masking", inputs, outputs, concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
    endpoints.publish(dropout, "dropout", [*inputs, p], [dropped, dropped_check], concurrency_id=CPU_GROUP,
                      concurrency_limit=CPU_LIMIT)
    # the page's own events skip the queue (docs/app.md: a finished queued event costs every later one)
    shown = [*outputs, dropped, dropped_check]
    gr.on([ctx.tab.select, sentence.change, seed.change, p.change], user_errors(page, unqueued=len(shown)),
          [*inputs, p], [*shown, problem], queue=False, api_visibility="private", trigger_mode="always_last",
          show_progress="hidden")
