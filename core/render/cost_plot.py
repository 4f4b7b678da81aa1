"""The Cost tab's figure: scores in memory and time per call against T (Figure + Agg, never pyplot)."""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..bench.cost import square_sizes


def live_figure(rows: list[dict], window: int, max_T: int = 8192) -> Figure:
    """Scores in memory against T: the square (naive) against the band (windowed); live points on top."""
    fig = Figure(figsize=(8, 3.6), dpi=90)
    FigureCanvasAgg(fig)
    ax_mem, ax_time = fig.subplots(1, 2)
    Ts = [2**k for k in range(4, max_T.bit_length())]
    for name, style in (("naive", "-"), ("windowed", "--")):
        ax_mem.plot(Ts, [square_sizes(T, window)[name] / 2**20 for T in Ts], style, label=f"{name} (one scores tensor)")
    ax_mem.plot([r["T"] for r in rows], [r["naive_mib"] for r in rows], "o", label="naive, measured (whole trace)")
    ax_mem.set(xscale="log", yscale="log", xlabel="T", ylabel="MiB of scores in memory")
    ax_mem.text(0.03, 0.03, "fused (SDPA): no square in memory", transform=ax_mem.transAxes, fontsize=8)
    for key, label in (("naive_ms", "naive (trace)"), ("fused_ms", "fused SDPA"), ("windowed_ms", "windowed (banded)")):
        ax_time.plot([r["T"] for r in rows], [r[key] for r in rows], "o-", ms=3, label=label)
    ax_time.set(xscale="log", yscale="log", xlabel="T", ylabel="ms per call, measured now")
    for ax in (ax_mem, ax_time):
        ax.set_xscale("log", base=2)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.15, wspace=0.3)
    return fig
