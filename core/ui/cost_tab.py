"""The Cost tab, "the square that grows": live measurements for short T, the saved benchmark for long T."""

from __future__ import annotations

import gradio as gr

from core.bench import cost
from core.bench.longseq import METHOD
from core.i18n import mark, t
from core.lab.tiny import one_thread
from core.render.cost_plot import live_chart, saved_chart

from .common import CPU_GROUP, CPU_LIMIT, export_button, user_errors, view
from .i18n import static

TITLE = mark("Cost")
TEXT = {  # msgids: the page shows each in its own language (core.ui.i18n.static)
    "intro": mark("### The square that grows\nNaive attention writes down every score: an **(H, T, T)** square that "
                  "quadruples each time the\nsentence doubles. Fused attention (`F.scaled_dot_product_attention`) "
                  "computes the same numbers\nin tiles and never keeps the square. A sliding window only computes a "
                  "**band** of width\n`window`: work and memory grow as T·window. Measure it here for short "
                  "sentences; the table and\nplot below were measured up to T = 8192 with `attention-lab bench "
                  "--flex`."),
    "max_T": mark("longest T to measure now"),
    "window": mark("window (sliding-window width)"),
    "go": mark("Measure now"),
    "measured": mark("Measured now"),
    "saved_title": mark("### Measured offline, T = 256 … 8192 (B = 1, d_model 128, 4 heads, fp32)"),
    "missing": mark("No saved benchmark ships with this copy; run `attention-lab bench --out core/assets`."),
    "saved": mark("Saved benchmark: time and peak memory growth per call"),
    "method": mark("How it was measured: {method}"),
}
HEADERS = ["T", mark("naive: scores in memory (MiB, measured)"), mark("windowed: band (MiB)"), mark("naive ms"),
           mark("fused ms"), mark("windowed ms")]
SAVED_HEADERS = [mark("path"), "T", "ms", mark("peak MiB")]
UNITS = {"T", "ms"}  # a header that is a symbol or a unit, the same in every language


def headers(names: list[str]) -> list[str]:
    """A table's column names in the reader's language."""
    return [h if h in UNITS else t(h) for h in names]


@user_errors
def measure(max_T: float, window: float):
    """Live run at T = 32, 64, … up to max_T; the figure and the table of what was measured."""
    with one_thread():  # one core per CPU slot: on both, a T=1024 run slowed the other slot's student 3x (#26)
        rows, table = cost.measure_up_to(max_T, window)
    return live_chart(rows, window), {"headers": headers(HEADERS), "data": table}


def method(saved: dict) -> str:
    """How the saved benchmark was measured: the lab's own method in the reader's language; another run's words
    (a file measured some other way) as they were saved."""
    said = saved.get("meta", {}).get("method", "")
    return t(TEXT["method"], method=t(METHOD) if said == METHOD else said)


def build(ctx) -> None:
    gr.Markdown(static(TEXT["intro"]))
    with gr.Row():
        max_T = gr.Slider(32, cost.LIVE_MAX_T, value=256, step=32, label=static(TEXT["max_T"]), elem_id="cost-T")
        window = gr.Slider(4, 256, value=32, step=4, label=static(TEXT["window"]), elem_id="cost-window")
        go = gr.Button(static(TEXT["go"]), variant="primary", elem_id="cost-go")
    figure = view(None, elem_id="cost-live")
    export_button(figure, "cost-live")
    table = gr.Dataframe(headers=headers(HEADERS), interactive=False, label=static(TEXT["measured"]))
    go.click(measure, [max_T, window], [figure, table], api_name="cost",
             concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
    saved = cost.load_saved()
    gr.Markdown(static(TEXT["saved_title"]))
    if saved is None:
        gr.Markdown(static(TEXT["missing"]))
        ctx.first_values([table], lambda: {"headers": headers(HEADERS), "data": []})
        return
    saved_view = view(saved_chart(saved), elem_id="cost-saved")
    export_button(saved_view, "cost-saved")
    rows = cost.saved_rows(saved)
    saved_table = gr.Dataframe(value=rows, headers=headers(SAVED_HEADERS), interactive=False,
                               label=static(TEXT["saved"]))
    how = gr.Markdown(method(saved))

    def first():
        """What the tab was built with (in English), in the page's language."""
        return ({"headers": headers(HEADERS), "data": []}, saved_chart(saved),
                {"headers": headers(SAVED_HEADERS), "data": rows}, method(saved))

    ctx.first_values([table, saved_view, saved_table, how], first)
