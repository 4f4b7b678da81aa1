"""The square that grows: what naive, fused and windowed attention hold and compute as T grows."""

from __future__ import annotations

import json
import time
from pathlib import Path

import torch

from ..config import AttentionConfig
from ..fast_paths import score_entries
from ..i18n import t
from ..mistakes import ConfigError, whole

ASSETS = Path(__file__).resolve().parents[1] / "assets"
SAVED_BENCH = ASSETS / "bench.json"  # `attention-lab bench --flex --out core/assets` on the 2-core machine
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
    from ..registry import load_registry  # lazy: only when someone asks

    if not Ts or max(Ts) > LIVE_MAX_T or min(Ts) < 2:
        raise ConfigError(t("max_T must be from 2 to {most}", most=LIVE_MAX_T))
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


def measure_up_to(max_T: object, window: object) -> tuple[list[dict], list[list]]:
    """The Cost tab's "Measure now": T = 32, 64, ... up to max_T; the rows and a table of them, rounded for reading."""
    max_T, window = whole("max_T", max_T), whole("window", window)
    Ts = [T for T in (32, 64, 128, 256, 512, 1024) if T <= max_T] or [max_T]
    rows = live_measure(Ts, window=window)
    table = [[r["T"], *(round(r[k], 2) for k in ("naive_mib", "windowed_mib", "naive_ms", "fused_ms", "windowed_ms"))]
             for r in rows]
    return rows, table


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
