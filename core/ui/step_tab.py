"""Step through one head: every stage as a shaded matrix beside its typeset formula and shape. Wiring only."""

from __future__ import annotations

import gradio as gr

from core.i18n import mark
from core.serve import exports, views

from . import lab_open
from .common import api_accordion, problem_box, user_errors, view
from .i18n import static

TITLE = mark("Step through")
STAGES = ("Q", "K", "V", "scores", "scaled", "masked", "weights", "context", "output")  # (names: element ids)
CARD_MIN_WIDTH = 560  # px: a 10-token (T, T) stage with 13 px numbers in its cells


def build(ctx) -> None:
    inputs = ctx.shared["attention_inputs"]  # the Attention tab's sentence and settings
    gr.Markdown(static("The sentence and settings of the **Attention** tab, one stage at a time, for the head you "
                       "pick. Each matrix is shaded by its values (hover a cell for its number); rows are query "
                       "tokens."))
    with gr.Row():
        head = gr.Slider(0, 7, value=0, step=1, label=static("head"), elem_id="step-head", scale=1)
        sharing = gr.Textbox(label=static("Heads and band"), interactive=False, scale=2, elem_id="step-sharing")
    problem = problem_box("step-problem")
    note = gr.Textbox(label=static("How the sentence was read"), interactive=False, visible=False,
                      elem_id="step-note")
    formulas, matrices = [], []
    # one card per stage, its formula above its matrix; the cards wrap, three abreast at 1920 px, two at 1280,
    # one at 1024: the matrices use the width and a long sentence adds rows of cards, not a column of nine
    with gr.Row(equal_height=False, elem_classes=["al-step-cards"]):
        for name in STAGES:
            with gr.Column(min_width=CARD_MIN_WIDTH, elem_classes=["al-step-card"]):
                formulas.append(gr.Markdown(elem_id=f"step-formula-{name}", elem_classes=["al-formula"]))
                matrices.append(view(None, elem_id=f"step-{name}"))
    with api_accordion():
        download = gr.DownloadButton(static("Download the whole trace (JSON)"), elem_id="trace-download")

    @user_errors
    def step(sentence, variant, causal, scaled, n_heads, d_model, seed, options, head):
        """Every stage of one head, the head sharing / band, and the trace file to download."""
        v = views.step(ctx.lab, sentence, variant, causal, scaled, n_heads, d_model, seed, options, head)
        shown = views.padded(v.stages, len(STAGES))  # a variant may bring fewer stages: the rest stay empty
        return (gr.update(maximum=v.last_head, value=v.head), v.sharing, gr.update(value=v.note, visible=bool(v.note)),
                exports.trace_file(v.run), *[formula for formula, _ in shown], *[data for _, data in shown])

    lab_open.takes(ctx, "step_tab", {head: "head"})  # a lesson's stage step: its head (its stage: brought in sight)
    outputs = [head, sharing, note, download, *formulas, *matrices]
    # the Attention tab's inputs cannot change while this tab is open: refresh when it is opened. Unqueued, as
    # the Attention tab's events (a finished queued event costs every later event of the page, docs/app.md);
    # core.serve.slots bounds the CPU; a mistake is said in the problem box.
    gr.on([ctx.tab.select, head.input], user_errors(step, unqueued=len(outputs)), [*inputs, head],
          [*outputs, problem], queue=False, trigger_mode="always_last", show_progress="hidden",
          api_visibility="private")
