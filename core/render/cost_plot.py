"""The Cost tab's charts: scores in memory and time per call against T, live and from the saved benchmark."""

from __future__ import annotations

from ..bench.cost import square_sizes
from ..bench.longseq import LABELS as BENCH_LABELS
from . import charts
from .charts import axis, panel, series

LIVE = {
    "memory": "Scores kept in memory (fused SDPA keeps none)",
    "time": "Time per call, measured now",
    "x": "sequence length T (tokens)",
    "mib": "MiB of attention scores",
    "ms": "ms per call",
    "naive": "naive: the (H, T, T) square",
    "windowed": "windowed: a band T × window",
    "naive_measured": "naive, measured (whole trace)",
    "naive_ms": "naive (trace)",
    "fused_ms": "fused (SDPA)",
    "windowed_ms": "windowed (banded)",
}
SAVED = {
    "time": "Time per call",
    "memory": "Peak memory growth per call",
    "x": "sequence length T (tokens)",
    "ms": "ms per call (log)",
    "mib": "MiB (log)",
}
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
        series(LIVE["naive"], Ts, [s["naive"] / 2**20 for s in sizes], 1),
        series(LIVE["windowed"], Ts, [s["windowed"] / 2**20 for s in sizes], 2, dash=True),
        series(LIVE["naive_measured"], [r["T"] for r in rows], [r["naive_mib"] for r in rows], 1, markers_only=True),
    ]
    time = [series(LIVE[k], [r["T"] for r in rows], [r[k] for r in rows], c, markers=True)
            for k, c in (("naive_ms", 1), ("fused_ms", 0), ("windowed_ms", 2))]
    panels = [panel(LIVE["memory"], axis(LIVE["x"], log=2), axis(LIVE["mib"], log=10), mem),
              panel(LIVE["time"], axis(LIVE["x"], log=2), axis(LIVE["ms"], log=10), time)]
    return charts.chart(panels, legend=charts.legend_of(mem + time), columns=2)


def saved_chart(result: dict) -> dict:
    """The saved benchmark: time and peak memory growth against T, one line per path."""
    rows = list(dict.fromkeys(p["row"] for p in result.get("points", []) if "T" in p))
    time, mem = [], []
    for n, row in enumerate(rows):
        pts = sorted((p for p in result["points"] if p.get("row") == row and "T" in p), key=lambda p: p["T"])
        name = BENCH_LABELS.get(row, row)
        dash = DASHES[n % len(DASHES)] if row in REFERENCE_ROWS else False
        style = dict(dash=dash, markers=True, marker=MARKERS[n % len(MARKERS)], width=4)
        time.append({**series(name, [p["T"] for p in pts], [p["time_s"] * 1000 for p in pts], n, **style), "short": SHORT.get(row, row)})
        mem.append({**series(name, [p["T"] for p in pts], [p["peak_mib"] for p in pts], n, **style), "short": SHORT.get(row, row)})
    panels = [panel(SAVED["time"], axis(SAVED["x"], log=2), axis(SAVED["ms"], log=10), time, direct_labels=LABEL_ROOM),
              panel(SAVED["memory"], axis(SAVED["x"], log=2), axis(SAVED["mib"], log=10), mem, direct_labels=LABEL_ROOM)]
    return charts.chart(panels, legend=charts.legend_of(time), columns=2)
