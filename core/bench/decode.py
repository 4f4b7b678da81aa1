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
    "random tokens is run once into a KV cache ('prefill') and one warm-up step taken; then 'cached' times "
    "one new token against the cache, the T's in turn (round-robin, so a noisy neighbour slows each alike), "
    "and 'uncached' times full recomputes of the whole sequence (Decoder(use_cache=False)). Both apply the "
    "output head to the last position only and neither samples: the time is the model step that yields "
    "the next token's logits. Medians are reported."
)


@dataclass(frozen=True)
class DecodeSpec:
    """What to measure; frozen so a run records exactly what it did."""

    Ts: tuple[int, ...] = DECODE_T
    cached_steps: int = 16  # timed tokens per T with the cache (cheap)
    uncached_steps: int = 2  # timed recomputes per T (a few: at 4096 each is a whole forward over 4096 tokens)
    quick: bool = False  # tiny shapes: for tests and a first look


def build_model(spec: DecodeSpec):
    """The measured model: gpt2-small's shape (or a tiny one), context_length raised to fit the longest run."""
    import torch

    from ..model import GPT, GPTConfig

    shape = QUICK_SHAPE if spec.quick else SHAPE
    context = max(spec.Ts) + max(spec.cached_steps, spec.uncached_steps) + 2
    torch.manual_seed(0)
    return GPT(GPTConfig(context_length=context, **shape)).eval()


def measure(model, spec: DecodeSpec, log: Callable[[str], None] = lambda s: None) -> list[dict]:
    """Seconds per token at every T: cached steps taken round-robin across T, then the recomputes."""
    import torch

    from ..gpt.decode import Decoder

    points, decoders = {}, {}
    clock = time.perf_counter
    with torch.no_grad():
        for T in spec.Ts:  # one prompt per T, run once into its cache
            log(f"bench --decode: a prompt of {T} tokens into the cache")
            prompt = torch.randint(0, model.config.vocab_size, (1, T), generator=torch.Generator().manual_seed(T))
            t0 = clock()
            decoders[T] = Decoder(model, prompt, use_cache=True, reserve=T + spec.cached_steps + 2)
            points[T] = {"T": T, "prompt": prompt, "prefill_s": clock() - t0, "cached": [], "uncached": []}
            decoders[T].push(decoders[T].logits.argmax(-1, keepdim=True))  # warm-up: the cache takes its final size
        log(f"bench --decode: {spec.cached_steps} cached steps at each T, in turn")
        for _ in range(spec.cached_steps):  # round-robin: a noisy neighbour slows every T alike
            for T, decoder in decoders.items():
                nxt = decoder.logits.argmax(-1, keepdim=True)  # (1, 1)
                t0 = clock()
                decoder.push(nxt)
                points[T]["cached"].append(clock() - t0)
        for T in spec.Ts:
            points[T]["cache_mib"] = sum(layer.nbytes for layer in decoders.pop(T).cache) / 2**20
            log(f"bench --decode: {spec.uncached_steps} full recomputes of {T} tokens")
            t0 = clock()
            decoder = Decoder(model, points[T]["prompt"], use_cache=False)  # itself one full recompute
            points[T]["uncached"].append(clock() - t0)
            for _ in range(spec.uncached_steps - 1):
                nxt = decoder.logits.argmax(-1, keepdim=True)
                t0 = clock()
                decoder.push(nxt)
                points[T]["uncached"].append(clock() - t0)
    out = []
    for T, p in points.items():
        c, u = statistics.median(p["cached"]), statistics.median(p["uncached"])
        out.append({"T": T, "cached_s": c, "uncached_s": u, "speedup": u / c, "prefill_s": p["prefill_s"],
                    "cache_mib": p["cache_mib"], "cached_steps": len(p["cached"]), "uncached_steps": len(p["uncached"])})
    return out


def run_decode_bench(spec: DecodeSpec, log: Callable[[str], None] = lambda s: None) -> dict:
    """Every T in one process, on one model; the JSON-ready result with the growth ratios."""
    import torch

    model = build_model(spec)
    points = measure(model, spec, log)
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
