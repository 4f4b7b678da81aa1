"""The Generate tab's drawings and tables: next-word bars, the new token's attention rows, the KV cache's rows,
the cache's cost per variant and the measured decode benchmark. Numbers in (core.lab), dicts and rows out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import charts, matrix

MIB, KIB = 2**20, 2**10
MAX_CACHE_LAYERS = 4  # layers of the cache drawn (GPT-2 small has 12: the first ones make the point)
MAX_CACHE_COLUMNS = 16  # values per row drawn: the first K/V head's first ones (a row label per token stays readable)
LABELS = {
    "next_title": "What comes after '{word}' (position {position}): the {n} likeliest next words",
    "next_x": "next word",
    "next_y": "probability",
    "next_name": "probability",
    "next_actual": "the word that follows in the sentence",
    "rows_x": "earlier token (key)",
    "rows_y": "head",
    "rows_title": "layer {layer}",
    "rows_hover": "head {i} of {head}: '{k}' ({j}) gets weight {value}",
    "rows_scale": "weight of the new token on each earlier token (each row sums to 1)",
    "rows_note": "The new word '{word}' looks back: one row per head, one panel per layer.",
    "cache_title": "{which} · layer {layer} {shape}",
    "cache_x": "value (K/V head · dimension)",
    "cache_y": "token",
    "cache_hover": "{head}: token '{q}' ({i}), column {k}: {value}",
    "cache_scale": "value stored in the cache",
    "cache_note": "Each token adds one row to K and one to V in every layer; the last row is the newest word. "
                  "Nothing above it is ever recomputed.",
    "cache_cut_values": "Drawn: the first {columns} of the {width} values in each row (the first K/V head's).",
    "cache_cut_layers": "Drawn: the first {layers} of the {n_layers} layers, and the first {columns} of the {width} "
                        "values in each row.",
    "decode_title": "Time per generated token, measured (gpt2-small shape, random weights, B = 1, fp32)",
    "decode_x": "tokens of context T",
    "decode_y": "ms per token",
    "decode_cached": "with the KV cache (one row per step)",
    "decode_uncached": "without (the T x T square every step)",
}
HEADERS = {
    "steps": ["step", "word", "probability", "keys in each layer's cache", "tokens run through the model", "ms"],
    "cache": ["variant", "K and V in each layer", "tokens kept", "KiB per token", "cache MiB",
              "scores per step without a cache", "scores per step with it", "tokens run per step (without / with)"],
    "decode": ["T (context)", "ms per token with the cache", "ms per token without", "× faster with the cache",
               "cache MiB"],
}


def next_words(candidates: Sequence[Mapping[str, Any]], word: str, position: int,
               actual: str | None) -> dict:
    """The top-n next words as bars (likeliest first); the word that does follow, if among them, marked."""
    words = [c["word"] for c in candidates]
    highlight = words.index(actual) if actual is not None and actual in words else None
    legend = [{"text": LABELS["next_name"], "color": 0}]
    if highlight is not None:
        legend.append({"text": LABELS["next_actual"], "color": 1})
    title = LABELS["next_title"].format(word=charts.short(word), position=position, n=len(words))
    return charts.bars(words, [c["probability"] for c in candidates], highlight, title, LABELS["next_x"],
                       LABELS["next_y"], LABELS["next_name"], legend=legend)


def attention_rows(seen: Sequence[str], attention: Any, word: str) -> dict:
    """The new token's attention row in every head: one panel per layer, (heads x earlier tokens) each."""
    a = np.asarray(attention, dtype=float)  # (L, H, n_seen)
    L, H, n = a.shape
    labels = {"x": LABELS["rows_x"], "y": LABELS["rows_y"], "hover": LABELS["rows_hover"],
              "note": LABELS["rows_note"].format(word=charts.short(word))}
    data = matrix.heatmaps([""] * H, list(a), [LABELS["rows_title"].format(layer=la) for la in range(L)],
                           cols=list(seen), labels=labels, legend=[{"swatch": "scale", "text": LABELS["rows_scale"]}],
                           max_columns=min(L, 4), max_cell=64)
    data["col_tokens"] = True  # the columns are the sentence's tokens: a click lights them up in every layer
    data["show_values"] = n <= matrix.VALUES_UP_TO
    data["boundary"] = False
    return data


def cache_rows(tokens: Sequence[str], keys: Any, values: Any, layer_shape: Sequence[int], kv_heads: int,
               head_dim: int) -> dict:
    """K and V of each layer as stored: one row per kept token, the heads' values side by side (a cut of big models)."""
    k, v = np.asarray(keys, dtype=float), np.asarray(values, dtype=float)  # (L, kept, Hkv * hd)
    L, _, width = k.shape
    shown_layers, shown_cols = min(L, MAX_CACHE_LAYERS), min(width, MAX_CACHE_COLUMNS)
    mats, titles = [], []
    for la in range(shown_layers):
        for which, m in (("K", k), ("V", v)):
            mats.append(m[la, :, :shown_cols])
            titles.append(LABELS["cache_title"].format(which=which, layer=la, shape=tuple(layer_shape)))
    cols = [f"{c // head_dim}·{c % head_dim}" for c in range(shown_cols)]
    note = LABELS["cache_note"]
    if shown_layers < L:
        note += " " + LABELS["cache_cut_layers"].format(layers=shown_layers, n_layers=L, columns=shown_cols, width=width)
    elif shown_cols < width:
        note += " " + LABELS["cache_cut_values"].format(columns=shown_cols, width=width)
    labels = {"x": LABELS["cache_x"], "y": LABELS["cache_y"], "hover": LABELS["cache_hover"], "note": note}
    data = matrix.heatmaps(list(tokens), mats, titles, scale=matrix.signed_scale(np.stack(mats)), cols=cols,
                           labels=labels, legend=[{"swatch": "scale", "text": LABELS["cache_scale"]}],
                           max_columns=2, max_cell=26)
    data["show_values"] = False
    data["boundary"] = False
    return data


def step_rows(words: Sequence[str], probabilities: Sequence[float], cache_lengths: Sequence[int],
              computed: Sequence[int], seconds: Sequence[float]) -> list[list]:
    """One table row per generated word: what it cost to predict it."""
    return [[i + 1, w, round(p, 4), c, n, round(s * 1000, 2)]
            for i, (w, p, c, n, s) in enumerate(zip(words, probabilities, cache_lengths, computed, seconds, strict=True))]


def cache_table(numbers: Mapping[str, Any]) -> list[list]:
    """One row per variant (core.lab.cache_view.CacheNumbers): its cache's shape and size, one step's work."""
    rows = []
    for name, n in numbers.items():
        rows.append([
            name, str(tuple(n.layer_shape)), n.kept_tokens, round(n.bytes_per_token / KIB, 1),
            round(n.cache_bytes / MIB, 2), f"{n.without_cache.scores:,}", f"{n.with_cache.scores:,}",
            f"{n.without_cache.tokens_run:,} / {n.with_cache.tokens_run:,}",
        ])
    return rows


def decode_rows(saved: Mapping[str, Any]) -> list[list]:
    """The saved decode benchmark (core/assets/decode.json) as table rows, times in ms per token."""
    return [[p["T"], round(p["cached_s"] * 1000, 1), round(p["uncached_s"] * 1000, 1), round(p["speedup"], 1),
             round(p["cache_mib"], 1)] for p in saved.get("points", [])]


def decode_chart(saved: Mapping[str, Any]) -> dict:
    """ms per token against T, with and without the cache, both axes logarithmic."""
    points = saved.get("points", [])
    T = [p["T"] for p in points]
    lines = [
        charts.series(LABELS["decode_cached"], T, [p["cached_s"] * 1000 for p in points], color=0, markers=True),
        charts.series(LABELS["decode_uncached"], T, [p["uncached_s"] * 1000 for p in points], color=1, dash=True,
                      markers=True),
    ]
    p = charts.panel(LABELS["decode_title"], charts.axis(LABELS["decode_x"], log=2, ticks=T),
                     charts.axis(LABELS["decode_y"], log=10), lines)
    return charts.chart([p], legend=charts.legend_of(lines), digits=1, height=360)
