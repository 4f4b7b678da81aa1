"""Causality: edit one token and watch which output rows move; the autograd dependency map. Wiring only."""

from __future__ import annotations

import gradio as gr

from core.serve import views

from .common import CPU_GROUP, CPU_LIMIT, plot, user_errors

TITLE = "Causality"
SENTENCE = "The cat sat on the mat because it was tired"


def build(ctx) -> None:
    gr.Markdown("Replace one token and measure how much each output row changes. With the causal mask, rows "
                "before the edit cannot move at all; switch the mask off to see the future leak into the past.")
    with gr.Row():
        with gr.Column(scale=1, min_width=280):
            sentence = gr.Textbox(SENTENCE, label="Sentence", lines=2, elem_id="causality-sentence")
            position = gr.Slider(0, 63, value=3, step=1, label="position to edit (0 = first token)",
                                 elem_id="causality-position")
            replacement = gr.Textbox("dog", label="replacement word", elem_id="causality-replacement")
            causal = gr.Checkbox(value=True, label="causal mask", elem_id="causality-causal")
            variant = gr.Dropdown([(v.title, v.name) for v in ctx.registry.variants.values()], value="multi-head",
                                  label="Variant", allow_custom_value=True)
        with gr.Column(scale=2):
            summary = gr.Textbox(label="What changed", interactive=False, elem_id="causality-summary")
            with gr.Row():
                bars = gr.Plot(label="max |change| of each output row")
                dependency = gr.Plot(label="dependency |d out_i / d x_j| (autograd)")
            payload = gr.JSON(label="JSON (the /causality API output)", open=False)

    @user_errors
    def causality(sentence, position, replacement, causal=True, variant="multi-head"):
        """Max |output change| per row after replacing one token; JSON {"row_max_abs_diff": [T numbers]}."""
        v = views.causality(ctx.lab, sentence, position, replacement, causal, variant)
        return plot(v.bars), plot(v.dependency), v.summary, v.payload

    ctx.warm.append(lambda: causality(sentence.value, position.value, replacement.value, causal.value, variant.value))
    gr.on([ctx.tab.select, sentence.change, position.release, replacement.change, causal.change, variant.change], causality,
          [sentence, position, replacement, causal, variant], [bars, dependency, summary, payload],
          api_name="causality", concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT, trigger_mode="always_last",
          show_progress="minimal")
