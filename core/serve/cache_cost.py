"""The Generate tab's cost numbers: the KV cache of a real-sized model side by side, and the measured decode benchmark."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..i18n import current, mark, t
from ..lab.cache_view import compare
from ..mistakes import ConfigError, named, whole_in
from ..model import PRESETS
from ..render import generate_views

DECODE_SAVED = Path(__file__).resolve().parents[1] / "assets" / "decode.json"
CACHE_T = (256, 512, 1024, 2048, 4096)  # tokens of context for the cache table (the benchmark's T's among them)
MAX_WINDOW = 8192
MESSAGES = {  # msgids (core.i18n)
    "preset": mark("{value} is not one of the presets; choose {items} or {last}"),
    "T": mark("{value} is not one of the lengths; choose {items} or {last}"),
    "cache_numbers": mark("After T = {T} tokens, per sequence, fp16. Without a cache the step that predicts token "
                          "T+1 runs all T tokens and scores the whole T x T square again; with it, it runs one token "
                          "and scores one row."),
    "decode_caption": mark("Measured with `attention-lab bench --decode` on this project's machine ({machine}, "
                           "{cpus} CPUs, {threads} torch thread(s), torch `{torch}`, Python {python}). From T = {low} "
                           "to {high} the cached step grew {cached:.1f}x and the uncached one {uncached:.1f}x."),
    "decode_missing": mark("No measured decode benchmark ships with this copy; run `attention-lab bench --decode "
                           "--out core/assets`."),
}


@dataclass(frozen=True)
class CacheTable:
    """Multi-head, GQA and sliding window side by side for a preset at T tokens; the JSON behind it."""

    rows: list[list]
    headers: list[str]  # the table's column names
    summary: str
    payload: dict[str, Any]


def cache_table(preset: Any, n_kv_heads: Any, window: Any, T: Any) -> CacheTable:
    """Raw values -> the (cached) comparison, counted on the meta device."""
    if not isinstance(preset, str) or preset not in PRESETS:
        *items, last = PRESETS
        raise ConfigError(t(MESSAGES["preset"], value=named("preset", preset), items=", ".join(items), last=last))
    heads = PRESETS[preset].n_heads
    numbers = _cache_numbers(preset, whole_in("n_kv_heads", n_kv_heads, 1, heads),
                             whole_in("window", window, 1, MAX_WINDOW), _context(T))
    return CacheTable(generate_views.cache_table(numbers), generate_views.cache_headers(),
                      t(MESSAGES["cache_numbers"], T=numbers["multi-head"].T),
                      {name: dataclasses.asdict(n) for name, n in numbers.items()})


def _context(T: Any) -> int:
    if isinstance(T, bool) or not isinstance(T, (int, float)) or T not in CACHE_T:
        *items, last = CACHE_T
        raise ConfigError(t(MESSAGES["T"], value=named("T", T), items=", ".join(map(str, items)), last=last))
    return int(T)


@lru_cache(maxsize=64)
def _cache_numbers(preset: str, n_kv_heads: int, window: int, T: int) -> dict[str, Any]:
    """The numbers, counted once (the words around them are made per request, in its language)."""
    return compare(PRESETS[preset], T, n_kv_heads=n_kv_heads, window=window)


@dataclass(frozen=True)
class DecodeBench:
    """The saved `attention-lab bench --decode` run: chart, table rows, how and where it was measured."""

    chart: dict[str, Any] | None
    rows: list[list]
    headers: list[str]  # the table's column names
    caption: str


def decode_bench(path: Path = DECODE_SAVED) -> DecodeBench:
    """Read once; drawn once per language; a copy without the file says how to measure it."""
    return _decode_bench(path, current())


@lru_cache(maxsize=1)
def _saved(path: Path) -> dict[str, Any] | None:
    """The saved benchmark, read once (None: this copy has none)."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


@lru_cache(maxsize=8)
def _decode_bench(path: Path, language: str) -> DecodeBench:
    """(its words in `language`, the current one)"""
    saved = _saved(path)
    if saved is None:
        return DecodeBench(None, [], generate_views.decode_headers(), t(MESSAGES["decode_missing"]))
    meta, summary = saved.get("meta", {}), saved.get("summary", {})
    caption = t(MESSAGES["decode_caption"],
        machine=meta.get("machine", "?"), cpus=meta.get("cpus", "?"), threads=meta.get("threads", "?"),
        torch=meta.get("torch", "?"), python=meta.get("python", "?"), low=summary.get("from_T", "?"),
        high=summary.get("to_T", "?"), cached=summary.get("cached_growth", math.nan),
        uncached=summary.get("uncached_growth", math.nan))
    return DecodeBench(generate_views.decode_chart(saved), generate_views.decode_rows(saved),
                       generate_views.decode_headers(), caption)

