"""One benchmark row at a list of T: time (interleaved with raw SDPA) and peak memory growth.

Run as `python -m core.bench.worker ROW [ROW ...] --T 256 512 ... --window 256 --reps 5`; prints
one JSON object per (row, T) on stdout. core.bench starts one of these per row so a row's
allocations never hide inside another's; the --quick mode runs rows in-process.

Memory method (Linux): before the measured call we write "5" to /proc/self/clear_refs, which
resets the process's peak resident set (VmHWM) to its current RSS; after the call,
peak growth = VmHWM - VmRSS(before). MALLOC_MMAP_THRESHOLD_ is fixed by the parent so large
tensors are mmapped and returned to the OS when freed, so a warm-up cannot lend its memory.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from ..attention import AttentionModule
from ..config import AttentionConfig
from ..masks import sliding_window_mask

VARIANTS = ("single-head", "multi-head", "multi-head-stacked", "gqa", "sliding-window")
RAW = ("sdpa", "dense-mask-sdpa", "window-before", "trace", "flex")
D_MODEL, N_HEADS = 128, 4
HD = D_MODEL // N_HEADS


@dataclass
class Case:
    """A prepared measurement: the call to time, and raw SDPA on the same q/k/v shapes."""

    call: Callable[[], object]
    ref: Callable[[], object]


def _module(name: str, window: int) -> AttentionModule:
    from ..registry import load_registry  # lazy: the registry imports the plugins

    options = {"window": window, "stride": 0} if name == "sliding-window" else {}
    config = AttentionConfig(d_model=D_MODEL, n_heads=N_HEADS, options=options)
    torch.manual_seed(0)
    return load_registry(entry_points=False).build(name, config).eval()


def _raw_sdpa(q, k, v) -> Callable[[], object]:
    """Plain causal SDPA: the floor every fast path is compared with."""
    gqa = k.shape[1] != q.shape[1]
    return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=gqa)


def prepare(row: str, T: int, window: int) -> Case:
    """Inputs and closures for one row at one T (B = 1, d_model 128, 4 heads, fp32)."""
    gen = torch.Generator().manual_seed(T)
    if row in VARIANTS or row in ("window-before", "trace"):
        name = {"window-before": "sliding-window", "trace": "multi-head"}.get(row, row)
        module = _module(name, window)
        x = torch.randn(1, T, D_MODEL, generator=gen)  # (1, T, d_model)
        q, k, v = (t.contiguous() for t in module.project(x))  # (1, H, T, hd), (1, Hkv, T, hd)
        call = {
            "window-before": lambda: AttentionModule.forward(module, x),  # the dense (T, T) mask path
            "trace": lambda: module.trace(x),
        }.get(row, lambda: module(x))
        return Case(call, _raw_sdpa(q, k, v))
    q, k, v = (torch.randn(1, N_HEADS, T, HD, generator=gen) for _ in range(3))  # (1, H, T, hd)
    if row == "sdpa":
        call = _raw_sdpa(q, k, v)
    elif row == "dense-mask-sdpa":  # the mask is built per call, as a forward would
        call = lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=sliding_window_mask(T, window))  # noqa: E731
    elif row == "flex":
        call = _flex(q, k, v, T, window)
    else:
        raise ValueError(f"unknown benchmark row {row!r}; choose one of {', '.join(VARIANTS + RAW)}")
    return Case(call, _raw_sdpa(q, k, v))


def _flex(q, k, v, T: int, window: int) -> Callable[[], object]:
    """Compiled FlexAttention with a sliding-window block mask (compile happens in the warm-up)."""
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    def sliding(b, h, q_idx, kv_idx):
        return (q_idx >= kv_idx) & (q_idx - kv_idx < window)

    block_mask = create_block_mask(sliding, B=None, H=None, Q_LEN=T, KV_LEN=T, device="cpu")
    compiled = torch.compile(flex_attention, dynamic=False)
    return lambda: compiled(q, k, v, block_mask=block_mask)


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise OSError(f"{field} missing from /proc/self/status")


def peak_growth_mib(call: Callable[[], object]) -> float | None:
    """Peak RSS growth of one call, via the VmHWM reset; None where /proc cannot do it."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = _status_kib("VmRSS")
        call()
        return max(0, _status_kib("VmHWM") - before) / 1024
    except OSError:
        return None


def measure(row: str, T: int, window: int, reps: int) -> dict:
    """Warm up, measure memory once, then time row and raw SDPA alternately (medians)."""
    with torch.no_grad():
        case = prepare(row, T, window)
        case.call()  # warm-up (and FlexAttention's compile)
        case.ref()
        peak = peak_growth_mib(case.call)
        times, refs = [], []
        for _ in range(reps):  # alternate, so a noisy neighbour slows both alike
            for fn, out in ((case.call, times), (case.ref, refs)):
                t0 = time.perf_counter()
                fn()
                out.append(time.perf_counter() - t0)
    t, r = statistics.median(times), statistics.median(refs)
    return {"row": row, "T": T, "time_s": t, "ref_time_s": r, "ratio_vs_sdpa": t / r, "peak_mib": peak}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m core.bench.worker")
    parser.add_argument("rows", nargs="+")
    parser.add_argument("--T", type=int, nargs="+", required=True)
    parser.add_argument("--window", type=int, default=256)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args(argv)
    for row in args.rows:
        for T in args.T:
            print(json.dumps(measure(row, T, args.window, args.reps)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
