"""The Cost tab, "the square that grows": live measurements for short T, the saved benchmark for long T."""

from __future__ import annotations

import gradio as gr

from core.bench import cost
from core.bench.longseq import LABELS as BENCH_LABELS
from core.bench.longseq import METHOD
from core.i18n import mark, t
from core.lab.threads import one_thread
from core.render.cost_plot import SAVED, SAVED_PANELS, live_chart, saved_chart, saved_paths

from . import lab_open
from .common import CPU_GROUP, CPU_LIMIT, export_button, never_raises, user_errors, view
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
    "paths": mark("paths shown"),
    "panels": mark("charts shown"),
    "both": mark("time and memory"),
}
PANEL_LABELS = {"time": SAVED["time"], "memory": SAVED["memory"]}  # a panel's choice: its chart's title
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


def saved_shown(saved: dict, paths: object, panels: object) -> tuple[dict, dict]:
    """The saved chart and its table with the paths and charts chosen (a value the page could not have sent: read as
    the nearest it could, unknown paths left out, unknown charts as both)."""
    known = saved_paths(saved)
    chosen = [p for p in paths if p in known] if isinstance(paths, list) else known
    shown = [panels] if panels in SAVED_PANELS else list(SAVED_PANELS)
    return (saved_chart(saved, chosen, shown),
            {"headers": headers(SAVED_HEADERS), "data": cost.saved_rows(saved, tuple(chosen))})


def step_panel(lab: dict):
    """The charts a lesson's cost step showed (its `panel`, counted from 0), as the tab's choice."""
    panel = lab.get("panel")
    return SAVED_PANELS[panel] if isinstance(panel, int) and 0 <= panel < len(SAVED_PANELS) else gr.skip()


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
    known = saved_paths(saved)
    with gr.Row():
        paths = gr.CheckboxGroup([(static(BENCH_LABELS[r]) if r in BENCH_LABELS else r, r) for r in known],
                                 value=known, label=static(TEXT["paths"]), elem_id="cost-paths", scale=4)
        panels = gr.Radio([(static(TEXT["both"]), "both"), *((static(PANEL_LABELS[k]), k) for k in SAVED_PANELS)],
                          value="both", label=static(TEXT["panels"]), elem_id="cost-panels", scale=1, min_width=220)
    saved_view = view(saved_chart(saved), elem_id="cost-saved")
    export_button(saved_view, "cost-saved")
    rows = cost.saved_rows(saved, tuple(known))
    saved_table = gr.Dataframe(value=rows, headers=headers(SAVED_HEADERS), interactive=False,
                               label=static(TEXT["saved"]))
    how = gr.Markdown(method(saved))
    # The page's own event (cheap: the saved file, no CPU slot), as the other tabs' choices: it skips the queue
    @never_raises  # saved_shown reads any value
    def chosen(shown_paths, shown_panels):
        return saved_shown(saved, shown_paths, shown_panels)

    gr.on([paths.change, panels.change], chosen, [paths, panels], [saved_view, saved_table], queue=False,
          api_visibility="private", show_progress="hidden",
          trigger_mode="always_last")  # (both set at once by Open in the lab: the last run reads both)
    # a lesson's cost step: the lines it drew and its chart (core.serve.lesson_lab)
    lab_open.takes(ctx, "cost_tab", {paths: "paths", panels: step_panel})

    def first(_paths=None, _panels=None):
        """What the tab was built with (in English), in the page's language, with the paths and charts the page
        holds (Open in the lab may have set them before the tab is first shown)."""
        return ({"headers": headers(HEADERS), "data": []}, *saved_shown(saved, _paths, _panels), method(saved))

    ctx.first_values([table, saved_view, saved_table, how], first, inputs=[paths, panels])
