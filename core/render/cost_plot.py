"""The Cost tab's charts: scores in memory and time per call against T, live and from the saved benchmark."""

from __future__ import annotations

from collections.abc import Sequence

from ..bench.cost import square_sizes
from ..bench.longseq import LABELS as BENCH_LABELS
from ..i18n import mark, t
from . import charts
from .charts import axis, panel, series

LIVE = {  # msgids (core.i18n): the charts are made in the reader's language
    "memory": mark("Scores kept in memory (fused SDPA keeps none)"),
    "time": mark("Time per call, measured now"),
    "x": mark("sequence length T (tokens)"),
    "mib": mark("MiB of attention scores"),
    "ms": mark("ms per call"),
    "naive": mark("naive: the (H, T, T) square"),
    "windowed": mark("windowed: a band T × window"),
    "naive_measured": mark("naive, measured (whole trace)"),
    "naive_ms": mark("naive (trace)"),
    "fused_ms": mark("fused (SDPA)"),
    "windowed_ms": mark("windowed (banded)"),
}
SAVED = {
    "time": mark("Time per call"),
    "memory": mark("Peak memory growth per call"),
    "x": mark("sequence length T (tokens)"),
    "ms": mark("ms per call (log)"),
    "mib": mark("MiB (log)"),
}
SAVED_PANELS = ("time", "memory")  # the saved chart's panels, in order (a lesson step's `panel:` counts them)
REFERENCE_ROWS = ("sdpa", "dense-mask-sdpa", "flex", "window-before", "trace")  # dashed: paths to compare with
# ten lines told apart from the back of a room: colour, and a marker and a dash of their own, named at their end
MARKERS = ("circle", "square", "triangle", "diamond", "ring")
DASHES = ("dash", "dot", "dashdot", "long", "dash")
SHORT = {"flex": "FlexAttention"}  # a line's name at its end: the benchmark's row name (a code path's own name)
LABEL_ROOM = 160  # px right of each plot for the lines' short names (the legend has the long ones)


def live_chart(rows: list[dict], window: int, max_T: int = 8192) -> dict:
    """The square (naive) against the band (windowed) up to max_T, live points on top; and the live times."""
    Ts = [2**k for k in range(4, max_T.bit_length())]
    sizes = [square_sizes(T, window) for T in Ts]
    mem = [
        series(t(LIVE["naive"]), Ts, [s["naive"] / 2**20 for s in sizes], 1),
        series(t(LIVE["windowed"]), Ts, [s["windowed"] / 2**20 for s in sizes], 2, dash=True),
        series(t(LIVE["naive_measured"]), [r["T"] for r in rows], [r["naive_mib"] for r in rows], 1,
               markers_only=True),
    ]
    time = [series(t(LIVE[k]), [r["T"] for r in rows], [r[k] for r in rows], c, markers=True)
            for k, c in (("naive_ms", 1), ("fused_ms", 0), ("windowed_ms", 2))]
    panels = [panel(t(LIVE["memory"]), axis(t(LIVE["x"]), log=2), axis(t(LIVE["mib"]), log=10), mem),
              panel(t(LIVE["time"]), axis(t(LIVE["x"]), log=2), axis(t(LIVE["ms"]), log=10), time)]
    return charts.chart(panels, legend=charts.legend_of(mem + time), columns=2)


def saved_paths(result: dict) -> list[str]:
    """The saved benchmark's paths (its rows), in the file's order: the lines its chart can draw."""
    return list(dict.fromkeys(p["row"] for p in result.get("points", []) if "T" in p))


def saved_chart(result: dict, paths: Sequence[str] | None = None, panels: Sequence[str] = SAVED_PANELS) -> dict:
    """The saved benchmark: time and peak memory growth against T, one line per path. paths: the lines drawn (None:
    every path), each in the colour, marker and dash it has among all the file's (a line left out moves no other's
    style); panels: which of SAVED_PANELS, in their order."""
    rows = saved_paths(result)
    drawn = set(rows if paths is None else paths)
    time, mem = [], []
    for n, row in enumerate(rows):
        if row not in drawn:
            continue
        pts = sorted((p for p in result["points"] if p.get("row") == row and "T" in p), key=lambda p: p["T"])
        name = t(BENCH_LABELS[row]) if row in BENCH_LABELS else row  # a row the lab does not know: its own name
        dash = DASHES[n % len(DASHES)] if row in REFERENCE_ROWS else False
        style = dict(dash=dash, markers=True, marker=MARKERS[n % len(MARKERS)], width=4)
        time.append({**series(name, [p["T"] for p in pts], [p["time_s"] * 1000 for p in pts], n, **style), "short": SHORT.get(row, row)})
        mem.append({**series(name, [p["T"] for p in pts], [p["peak_mib"] for p in pts], n, **style), "short": SHORT.get(row, row)})
    x = axis(t(SAVED["x"]), log=2)
    both = {"time": panel(t(SAVED["time"]), x, axis(t(SAVED["ms"]), log=10), time, direct_labels=LABEL_ROOM),
            "memory": panel(t(SAVED["memory"]), x, axis(t(SAVED["mib"]), log=10), mem, direct_labels=LABEL_ROOM)}
    shown = [both[k] for k in SAVED_PANELS if k in panels] or list(both.values())  # (none named: both)
    return charts.chart(shown, legend=charts.legend_of(time), columns=len(shown))
