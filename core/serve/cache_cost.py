"""The Generate tab's cost numbers: the KV cache of a real-sized model side by side, and the measured decode benchmark."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..config import ConfigError, choices_text, named, whole_in
from ..lab.cache_view import compare
from ..model import PRESETS
from ..render import generate_views

DECODE_SAVED = Path(__file__).resolve().parents[1] / "assets" / "decode.json"
CACHE_T = (256, 512, 1024, 2048, 4096)  # tokens of context for the cache table (the benchmark's T's among them)
MAX_WINDOW = 8192
MESSAGES = {
    "preset": "{value} is not one of the presets; choose {choices}",
    "T": "{value} is not one of the lengths; choose {choices}",
    "cache_numbers": "After T = {T} tokens, per sequence, fp16. Without a cache the step that predicts token "
                     "T+1 runs all T tokens and scores the whole T x T square again; with it, it runs one token "
                     "and scores one row.",
    "decode_caption": "Measured with `attention-lab bench --decode` on this project's machine ({machine}, "
                      "{cpus} CPUs, {threads} torch thread(s), torch `{torch}`, Python {python}). From T = {low} to "
                      "{high} the cached step grew {cached:.1f}x and the uncached one {uncached:.1f}x.",
    "decode_missing": "No measured decode benchmark ships with this copy; run `attention-lab bench --decode "
                      "--out core/assets`.",
}


@dataclass(frozen=True)
class CacheTable:
    """Multi-head, GQA and sliding window side by side for a preset at T tokens; the JSON behind it."""

    rows: list[list]
    summary: str
    payload: dict[str, Any]


def cache_table(preset: Any, n_kv_heads: Any, window: Any, T: Any) -> CacheTable:
    """Raw values -> the (cached) comparison, counted on the meta device."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ConfigError(MESSAGES["preset"].format(value=named("preset", preset), choices=choices_text(PRESETS)))
    heads = PRESETS[preset].n_heads
    return _cache_table(preset, whole_in("n_kv_heads", n_kv_heads, 1, heads),
                        whole_in("window", window, 1, MAX_WINDOW), _context(T))


def _context(T: Any) -> int:
    if isinstance(T, bool) or not isinstance(T, (int, float)) or T not in CACHE_T:
        raise ConfigError(MESSAGES["T"].format(value=named("T", T), choices=choices_text(CACHE_T)))
    return int(T)


@lru_cache(maxsize=64)
def _cache_table(preset: str, n_kv_heads: int, window: int, T: int) -> CacheTable:
    numbers = compare(PRESETS[preset], T, n_kv_heads=n_kv_heads, window=window)
    payload = {name: dataclasses.asdict(n) for name, n in numbers.items()}
    return CacheTable(generate_views.cache_table(numbers), MESSAGES["cache_numbers"].format(T=T), payload)


@dataclass(frozen=True)
class DecodeBench:
    """The saved `attention-lab bench --decode` run: chart, table rows, how and where it was measured."""

    chart: dict[str, Any] | None
    rows: list[list]
    caption: str


@lru_cache(maxsize=1)
def decode_bench(path: Path = DECODE_SAVED) -> DecodeBench:
    """Read once; a copy without the file says how to measure it."""
    try:
        saved = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return DecodeBench(None, [], MESSAGES["decode_missing"])
    meta, summary = saved.get("meta", {}), saved.get("summary", {})
    caption = MESSAGES["decode_caption"].format(
        machine=meta.get("machine", "?"), cpus=meta.get("cpus", "?"), threads=meta.get("threads", "?"),
        torch=meta.get("torch", "?"), python=meta.get("python", "?"), low=summary.get("from_T", "?"),
        high=summary.get("to_T", "?"), cached=summary.get("cached_growth", math.nan),
        uncached=summary.get("uncached_growth", math.nan))
    return DecodeBench(generate_views.decode_chart(saved), generate_views.decode_rows(saved), caption)

