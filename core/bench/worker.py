"""One benchmark row at a list of T: time (interleaved with raw SDPA) and peak memory growth.

core.bench.longseq runs measure_apart in a child process per row (core.proc.sandbox) so a row's
allocations never hide inside another's; the --quick mode calls measure in-process.

Memory method (Linux): before the measured call we write "5" to /proc/self/clear_refs, which
resets the process's peak resident set (VmHWM) to its current RSS; after the call,
peak growth = VmHWM - VmRSS(before). The child fixes malloc's mmap threshold first, so large
tensors are mmapped and returned to the OS when freed, so a warm-up cannot lend its memory.
"""

from __future__ import annotations

import ctypes
import statistics
import time
from collections.abc import Callable, Iterator
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


def measure_apart(row: str, Ts: list[int], window: int, reps: int) -> Iterator[dict]:
    """measure() at each T, in a process of its own: malloc's mmap threshold fixed first (glibc's M_MMAP_THRESHOLD)."""
    try:
        ctypes.CDLL(None).mallopt(-3, 65536)  # large tensors mmapped, returned to the OS on free
    except (OSError, AttributeError):  # not glibc: the numbers are only noisier
        pass
    for T in Ts:
        yield measure(row, T, window, reps)
