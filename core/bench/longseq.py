"""`attention-lab bench`: time and peak memory against T for every fast path, ratios from one run."""

from __future__ import annotations

import os
import platform
from collections.abc import Callable
from dataclasses import asdict, dataclass

from ..i18n import mark

DEFAULT_T = (256, 512, 1024, 2048, 4096, 8192)
QUICK_T = (32, 64, 128)
TRACE_MAX_T = 1024  # the explicit path materialises (B, H, T, T) five times over: short T only
TIME_TARGET, MEMORY_TARGET_MIB, WINDOW_TARGET = 1.5, 256.0, 0.25  # fast paths vs raw SDPA; window vs dense mask

LABELS = {  # each row's name for a reader (msgids: a chart shows them in its reader's language, core.i18n)
    "single-head": mark("single-head fast path"),
    "multi-head": mark("multi-head fast path"),
    "multi-head-stacked": mark("multi-head-stacked fast path"),
    "gqa": mark("gqa fast path (n_kv_heads=1)"),
    "sliding-window": mark("sliding-window fast path (banded)"),
    "window-before": mark("sliding-window, dense (T,T) mask (before)"),
    "trace": mark("trace path, multi-head (naive)"),
    "sdpa": mark("raw SDPA, is_causal"),
    "dense-mask-sdpa": mark("SDPA + dense window mask"),
    "flex": mark("FlexAttention, compiled, block mask"),
}
VARIANT_ROWS = ("single-head", "multi-head", "multi-head-stacked", "gqa", "sliding-window")
METHOD = mark(  # a msgid: the Cost tab says it in its reader's language when the saved run was measured this way
    "B=1, d_model=128, 4 heads (head_dim 32), fp32, no grad, torch threads as configured. "
    "Time: median of the reps, each rep runs the row then raw causal SDPA on the same q/k/v "
    "shapes, so 'x sdpa' is a ratio from the same seconds of the same process. "
    "Memory: peak RSS growth of one call after a warm-up (VmHWM reset via /proc/self/clear_refs, "
    "MALLOC_MMAP_THRESHOLD_ fixed so freed tensors leave the process); one process per row."
)


@dataclass(frozen=True)
class BenchSpec:
    """What to measure; frozen so a run records exactly what it did."""

    Ts: tuple[int, ...] = DEFAULT_T
    window: int = 256
    reps: int = 5
    flex: bool = False
    quick: bool = False  # rows in this process, small T: for tests and a first look


def rows_for(spec: BenchSpec) -> list[str]:
    """Variant fast paths, then the references; FlexAttention only when asked (its compile is slow)."""
    rows = [*VARIANT_ROWS, "window-before", "trace", "sdpa", "dense-mask-sdpa"]
    return rows + ["flex"] if spec.flex else rows


def _run_row_child(row: str, Ts: list[int], spec: BenchSpec) -> list[dict]:
    """One fresh child process per row (core.proc.sandbox), so no row inherits another's heap."""
    import torch

    from ..proc.sandbox import run_in_child
    from .worker import measure_apart

    points: list[dict] = []
    try:
        for p in run_in_child(measure_apart, row, Ts, spec.window, spec.reps, label=f"bench {row}", timeout=1800,
                              threads=torch.get_num_threads(), stream=True):
            points.append(p)
    except Exception as exc:  # noqa: BLE001 - a row that fails is reported, the others still run
        points.append({"row": row, "error": f"{type(exc).__name__}: {exc}"})
    return points


def _run_row_inprocess(row: str, Ts: list[int], spec: BenchSpec) -> list[dict]:
    from .worker import measure

    return [measure(row, T, spec.window, spec.reps) for T in Ts]


def run_bench(spec: BenchSpec, log: Callable[[str], None] = lambda s: None) -> dict:
    """Measure every row at every T; returns the JSON-ready result with the ratios at the largest T."""
    run_row = _run_row_inprocess if spec.quick else _run_row_child
    points: list[dict] = []
    for row in rows_for(spec):
        Ts = [T for T in spec.Ts if row != "trace" or T <= TRACE_MAX_T]
        log(f"bench: {LABELS[row]} at T = {', '.join(map(str, Ts))}")
        points += run_row(row, Ts, spec)
    return {"meta": meta(spec), "points": points, "summary": summarise(points, spec)}


def meta(spec: BenchSpec) -> dict:
    """Where and how the numbers were taken."""
    import torch

    return {
        "spec": asdict(spec), "method": METHOD, "labels": LABELS,
        "torch": torch.__version__, "threads": torch.get_num_threads(),
        "cpus": os.cpu_count(), "machine": platform.machine(), "python": platform.python_version(),
    }


def point(points: list[dict], row: str, T: int) -> dict | None:
    """The measurement of row at T, if it was taken and did not fail."""
    return next((p for p in points if p.get("row") == row and p.get("T") == T), None)


def summarise(points: list[dict], spec: BenchSpec) -> dict:
    """Ratios at the largest T, and whether the targets hold there."""
    T = max(spec.Ts)
    out: dict = {"T": T, "variants": {}, "window": {}}
    for row in VARIANT_ROWS:
        p = point(points, row, T)
        if p:
            out["variants"][row] = {
                "time_vs_sdpa": p["ratio_vs_sdpa"], "peak_mib": p["peak_mib"],
                "ok": p["ratio_vs_sdpa"] <= TIME_TARGET and (p["peak_mib"] or 0) <= MEMORY_TARGET_MIB,
            }
    window = point(points, "sliding-window", T)
    for other in ("dense-mask-sdpa", "window-before", "flex"):
        ref = point(points, other, T)
        if window and ref:  # both are ratios to raw SDPA in their own process: divide them
            out["window"][f"time_vs_{other}"] = window["ratio_vs_sdpa"] / ref["ratio_vs_sdpa"]
            out["window"][f"peak_mib_{other}"] = ref["peak_mib"]
    if "time_vs_dense-mask-sdpa" in out["window"]:
        out["window"]["ok"] = out["window"]["time_vs_dense-mask-sdpa"] <= WINDOW_TARGET
    return out
