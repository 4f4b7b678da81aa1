"""The Cost tab, "the square that grows": live measurements for short T, the saved benchmark for long T."""

from __future__ import annotations

import gradio as gr

from core.bench import cost
from core.i18n import mark
from core.lab.tiny import one_thread
from core.render.cost_plot import live_chart, saved_chart

from .common import CPU_GROUP, CPU_LIMIT, export_button, user_errors, view

TITLE = mark("Cost")
INTRO = """### The square that grows
Naive attention writes down every score: an **(H, T, T)** square that quadruples each time the
sentence doubles. Fused attention (`F.scaled_dot_product_attention`) computes the same numbers
in tiles and never keeps the square. A sliding window only computes a **band** of width
`window`: work and memory grow as T·window. Measure it here for short sentences; the table and
plot below were measured up to T = 8192 with `attention-lab bench --flex`."""
HEADERS = ["T", "naive: scores in memory (MiB, measured)", "windowed: band (MiB)",
           "naive ms", "fused ms", "windowed ms"]


@user_errors
def measure(max_T: float, window: float):
    """Live run at T = 32, 64, … up to max_T; the figure and the table of what was measured."""
    with one_thread():  # one core per CPU slot: on both, a T=1024 run slowed the other slot's student 3x (#26)
        rows, table = cost.measure_up_to(max_T, window)
    return live_chart(rows, window), table


def build(ctx) -> None:
    gr.Markdown(INTRO)
    with gr.Row():
        max_T = gr.Slider(32, cost.LIVE_MAX_T, value=256, step=32, label="longest T to measure now", elem_id="cost-T")
        window = gr.Slider(4, 256, value=32, step=4, label="window (sliding-window width)", elem_id="cost-window")
        go = gr.Button("Measure now", variant="primary", elem_id="cost-go")
    figure = view(None, elem_id="cost-live")
    export_button(figure, "cost-live")
    table = gr.Dataframe(headers=HEADERS, interactive=False, label="Measured now")
    go.click(measure, [max_T, window], [figure, table], api_name="cost",
             concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
    saved = cost.load_saved()
    gr.Markdown("### Measured offline, T = 256 … 8192 (B = 1, d_model 128, 4 heads, fp32)")
    if saved is None:
        gr.Markdown("No saved benchmark ships with this copy; run `attention-lab bench --out core/assets`.")
        return
    saved_view = view(saved_chart(saved), elem_id="cost-saved")
    export_button(saved_view, "cost-saved")
    gr.Dataframe(value=cost.saved_rows(saved), headers=["path", "T", "ms", "peak MiB"],
                 interactive=False, label="Saved benchmark: time and peak memory growth per call")
    gr.Markdown("How it was measured: " + saved["meta"]["method"])
