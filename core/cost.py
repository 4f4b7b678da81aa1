"""The square that grows: what naive, fused and windowed attention hold and compute as T grows."""

from __future__ import annotations

import json
import time
from pathlib import Path

import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .banded import score_entries
from .config import AttentionConfig

ASSETS = Path(__file__).parent / "assets"
SAVED_BENCH = ASSETS / "bench.json"  # `attention-lab bench --flex --out core/assets` on the 2-core machine
SAVED_PLOT = ASSETS / "bench.png"
LIVE_MAX_T = 1024  # the trace keeps five (B, H, T, T) tensors: beyond this the app would stall
D_MODEL, N_HEADS, BYTES = 128, 4, 4  # the bench's shape, fp32
SQUARES = ("scores", "scaled", "mask", "masked", "weights")  # the trace stages that are (T, T) per head


def square_sizes(T: int, window: int, n_heads: int = N_HEADS) -> dict[str, int]:
    """Bytes of attention scores each approach holds at once (one scores tensor, all heads)."""
    return {
        "naive": n_heads * T * T * BYTES,  # the whole (H, T, T) square, and the trace keeps five
        "fused": 0,  # SDPA streams tiles through registers and cache: no square in memory
        "windowed": n_heads * score_entries(T, window) * BYTES,  # T x (window + block) band
    }


def _timed(fn, reps: int = 5) -> tuple[float, object]:
    """Best of reps, in seconds; the best is the least disturbed by a busy neighbour."""
    best, out = float("inf"), None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def live_measure(Ts: list[int], window: int = 32) -> list[dict]:
    """Measure now, for short T: trace (naive), forward (fused SDPA), sliding-window forward (banded)."""
    from .registry import load_registry  # lazy: only when someone asks

    if not Ts or max(Ts) > LIVE_MAX_T or min(Ts) < 2:
        raise ValueError(f"live measurement takes T from 2 to {LIVE_MAX_T}")
    registry = load_registry(entry_points=False)
    torch.manual_seed(0)
    fused = registry.build("multi-head", AttentionConfig(d_model=D_MODEL, n_heads=N_HEADS)).eval()
    options = {"window": window, "stride": 0}
    windowed = registry.build("sliding-window", AttentionConfig(d_model=D_MODEL, n_heads=N_HEADS, options=options)).eval()
    rows = []
    with torch.no_grad():
        for T in Ts:
            x = torch.randn(1, T, D_MODEL)  # (1, T, d_model)
            naive_s, trace = _timed(lambda x=x: fused.trace(x))
            squares = [getattr(trace, name) for name in SQUARES]  # each (B|1, H|1, T, T)
            rows.append({
                "T": T,
                "naive_mib": sum(t.numel() * t.element_size() for t in squares) / 2**20,  # measured
                "windowed_mib": square_sizes(T, window)["windowed"] / 2**20,
                "naive_ms": naive_s * 1000,
                "fused_ms": _timed(lambda x=x: fused(x))[0] * 1000,
                "windowed_ms": _timed(lambda x=x: windowed(x))[0] * 1000,
            })
    return rows


def load_saved(path: Path = SAVED_BENCH) -> dict | None:
    """The benchmark shipped with the app (large T takes minutes: it is measured offline)."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def saved_rows(saved: dict, rows: tuple[str, ...] = ("trace", "multi-head", "sliding-window", "dense-mask-sdpa")) -> list[list]:
    """[row, T, ms, peak MiB] from the saved benchmark, for a table."""
    return [[p["row"], p["T"], round(p["time_s"] * 1000, 1), None if p["peak_mib"] is None else round(p["peak_mib"], 1)]
            for p in saved.get("points", []) if p.get("row") in rows and "T" in p]


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
