"""The long-sequence benchmark as a PNG: time and peak memory against T (Figure + Agg, never pyplot)."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..bench.longseq import LABELS
from ..i18n import mark, t

TEXT = {  # msgids (core.i18n): the PNG in the current language (the CLI's: English)
    "title": mark("Attention cost against sequence length"),
    "time": mark("time per call (ms)"),
    "memory": mark("peak memory growth (MiB)"),
    "x": mark("sequence length T"),
}


def figure(result: dict, title: str | None = None) -> Figure:
    """Two log-log panels: time and peak memory growth against T, one line per row."""
    fig = Figure(figsize=(10, 4.2), dpi=100)
    FigureCanvasAgg(fig)
    ax_t, ax_m = fig.subplots(1, 2)
    rows = list(dict.fromkeys(p["row"] for p in result["points"] if "T" in p))
    for row in rows:
        pts = sorted((p for p in result["points"] if p.get("row") == row and "T" in p), key=lambda p: p["T"])
        Ts = [p["T"] for p in pts]
        style = "--" if row in ("sdpa", "dense-mask-sdpa", "flex", "window-before", "trace") else "-"
        ax_t.plot(Ts, [p["time_s"] * 1000 for p in pts], style, marker="o", ms=3, label=t(LABELS[row]) if row in LABELS else row)
        mem = [(T, p["peak_mib"]) for T, p in zip(Ts, pts, strict=True) if p["peak_mib"]]
        if mem:
            ax_m.plot(*zip(*mem, strict=True), style, marker="o", ms=3)
    for ax, ylabel in ((ax_t, t(TEXT["time"])), (ax_m, t(TEXT["memory"]))):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(t(TEXT["x"]))
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    fig.legend(loc="lower center", ncol=3, fontsize=7, frameon=False)
    fig.suptitle(t(TEXT["title"]) if title is None else title, fontsize=10)
    fig.subplots_adjust(bottom=0.33, wspace=0.25, top=0.9)
    return fig


def write_png(result: dict, out_dir: str | Path) -> Path:
    """bench.png in out_dir (created), beside the JSON."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    png_path = out / "bench.png"
    figure(result).savefig(png_path)
    return png_path
