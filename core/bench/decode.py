"""`attention-lab bench --decode`: time per generated token with and without the KV cache, ratios from one run.

A gpt2-small-shaped GPT (12 layers, d_model 768, 12 heads, vocab 50257) with random weights and
context_length raised to fit the longest T. At each context length T the same model decodes
the next token two ways: one new token against the cache, or the whole sequence again. Targets:
the cached time per token stays flat (<= 2x from the shortest T to the longest) while the
recompute grows at least 8x.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

DECODE_T = (256, 1024, 4096)
QUICK_T = (16, 32, 64)
FLAT_TARGET, GROWTH_TARGET = 2.0, 8.0
SHAPE = {"vocab_size": 50257, "d_model": 768, "n_heads": 12, "n_layers": 12}  # gpt2-small
QUICK_SHAPE = {"vocab_size": 64, "d_model": 32, "n_heads": 4, "n_layers": 2}
METHOD = (
    "B=1, fp32, no grad, random weights (seed 0), torch threads as configured. At each T a prompt of T "
    "random tokens is run once; then 'cached' times each of the next steps (one token against the KV "
    "cache) and 'uncached' each full recompute of the whole sequence (Decoder(use_cache=False)). Both "
    "apply the output head to the last position only, and neither samples: the time is the model step "
    "that yields the next token's logits. One warm-up step each (without the cache: the prompt's own "
    "run); the medians are reported."
)


@dataclass(frozen=True)
class DecodeSpec:
    """What to measure; frozen so a run records exactly what it did."""

    Ts: tuple[int, ...] = DECODE_T
    cached_steps: int = 16  # timed tokens per T with the cache (cheap)
    uncached_steps: int = 2  # timed tokens per T without it (a few: at 4096 each is a whole forward)
    quick: bool = False  # tiny shapes: for tests and a first look


def build_model(spec: DecodeSpec):
    """The measured model: gpt2-small's shape (or a tiny one), context_length raised to fit the longest run."""
    import torch

    from ..model import GPT, GPTConfig

    shape = QUICK_SHAPE if spec.quick else SHAPE
    context = max(spec.Ts) + max(spec.cached_steps, spec.uncached_steps) + 2
    torch.manual_seed(0)
    return GPT(GPTConfig(context_length=context, **shape)).eval()


def measure(model, T: int, spec: DecodeSpec) -> dict:
    """Seconds per token at context T: cached and uncached medians, the prompt's one-off run, the cache's size."""
    import torch

    from ..decode import Decoder

    gen = torch.Generator().manual_seed(T)
    prompt = torch.randint(0, model.config.vocab_size, (1, T), generator=gen)  # (1, T)
    out = {"T": T}
    with torch.no_grad():
        for use_cache, steps in ((True, spec.cached_steps), (False, spec.uncached_steps)):
            t0 = time.perf_counter()
            decoder = Decoder(model, prompt, use_cache=use_cache, reserve=T + steps + 2)
            first = time.perf_counter() - t0  # the prompt (prefill) with the cache; a full step without it
            times = []
            warm_up = 1 if use_cache else 0  # without a cache the first full run above was the warm-up
            for i in range(steps + warm_up):
                nxt = decoder.logits.argmax(-1, keepdim=True)  # (1, 1)
                t0 = time.perf_counter()
                decoder.push(nxt)
                if i >= warm_up:
                    times.append(time.perf_counter() - t0)
            key = "cached" if use_cache else "uncached"
            out[f"{key}_s"] = statistics.median(times)
            out[f"{key}_steps"] = steps
            if use_cache:
                out["prefill_s"] = first
                out["cache_mib"] = sum(layer.nbytes for layer in decoder.cache) / 2**20
    out["speedup"] = out["uncached_s"] / out["cached_s"]
    return out


def run_decode_bench(spec: DecodeSpec, log: Callable[[str], None] = lambda s: None) -> dict:
    """Every T in one process, on one model; the JSON-ready result with the growth ratios."""
    import torch

    model = build_model(spec)
    points = []
    for T in spec.Ts:
        log(f"bench --decode: T = {T}")
        points.append(measure(model, T, spec))
    meta = {
        "spec": asdict(spec), "method": METHOD, "model": QUICK_SHAPE if spec.quick else SHAPE,
        "context_length": model.config.context_length, "torch": torch.__version__,
        "threads": torch.get_num_threads(), "cpus": os.cpu_count(), "machine": platform.machine(),
        "python": platform.python_version(),
    }
    return {"meta": meta, "points": points, "summary": summarise(points)}


def summarise(points: list[dict]) -> dict:
    """Growth of each path's time per token from the shortest T to the longest, against the targets."""
    first, last = min(points, key=lambda p: p["T"]), max(points, key=lambda p: p["T"])
    cached, uncached = last["cached_s"] / first["cached_s"], last["uncached_s"] / first["uncached_s"]
    return {
        "from_T": first["T"], "to_T": last["T"],
        "cached_growth": cached, "uncached_growth": uncached, "speedup_at_longest": last["speedup"],
        "cached_flat": cached <= FLAT_TARGET, "uncached_grows": uncached >= GROWTH_TARGET,
    }


def format_table(result: dict) -> str:
    """Per T: ms per token both ways and their ratio; then the growth ratios against the targets."""
    m = result["meta"]["model"]
    lines = [result["meta"]["method"], "",
             f"model: {m['n_layers']} layers, d_model {m['d_model']}, {m['n_heads']} heads, vocab {m['vocab_size']}; "
             f"{result['meta']['threads']} torch thread(s)", "",
             f"{'T':>6} {'cached ms/token':>16} {'uncached ms/token':>18} {'uncached/cached':>16} "
             f"{'prefill s':>10} {'cache MiB':>10}"]
    for p in result["points"]:
        lines.append(f"{p['T']:>6} {p['cached_s'] * 1e3:>16.2f} {p['uncached_s'] * 1e3:>18.1f} {p['speedup']:>15.1f}x "
                     f"{p['prefill_s']:>10.2f} {p['cache_mib']:>10.1f}")
    s = result["summary"]
    lines += ["", f"from T={s['from_T']} to T={s['to_T']}:",
              f"  cached time per token   x{s['cached_growth']:.2f} (target <= {FLAT_TARGET:g}x)  "
              f"{'ok' if s['cached_flat'] else 'MISSED'}",
              f"  uncached time per token x{s['uncached_growth']:.2f} (target >= {GROWTH_TARGET:g}x)  "
              f"{'ok' if s['uncached_grows'] else 'MISSED'}"]
    return "\n".join(lines)


def write_json(result: dict, out_dir: str | Path) -> Path:
    """decode.json in out_dir (created)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "decode.json"
    path.write_text(json.dumps(result, indent=1))
    return path
