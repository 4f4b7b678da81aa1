"""Masking and scaling: three ways to hide the future, and why scores are divided by √d. Wiring only."""

from __future__ import annotations

import gradio as gr

from core.serve import views

from .common import CPU_GROUP, CPU_LIMIT, plot, user_errors

TITLE = "Masking & scaling"
SENTENCE = "The cat sat on the mat"


def build(ctx) -> None:
    gr.Markdown("Head 0 of the sentence (multi-head, d_model 16, 2 heads), masked three ways.")
    with gr.Row():
        sentence = gr.Textbox(SENTENCE, label="Sentence", scale=3)
        seed = gr.Number(0, precision=0, label="seed", scale=1)
    three = gr.Plot(label="Three ways to mask")
    three_summary = gr.Textbox(label="What the three show", interactive=False)
    sqrt_d = gr.Plot(label="Why divide by √d: softmax sharpness against head dimension")
    sqrt_summary = gr.Textbox(label="What the curves show", interactive=False)

    @user_errors
    def masking(sentence, seed=0):
        v = views.masking(ctx.lab, sentence, seed)
        return plot(v.three), v.three_summary, plot(v.sqrt_d), v.sqrt_d_summary

    ctx.warm.append(lambda: masking(sentence.value, seed.value))
    gr.on([ctx.tab.select, sentence.change, seed.change], masking, [sentence, seed], [three, three_summary, sqrt_d, sqrt_summary],
          api_name="masking", concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT,
          trigger_mode="always_last", show_progress="minimal")
