"""The Generate tab's drawings and tables: next-word bars, the new token's attention rows, the KV cache's rows,
the cache's cost per variant and the measured decode benchmark. Numbers in (core.lab), dicts and rows out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..i18n import mark, t
from . import charts, matrix, scales

MIB, KIB = 2**20, 2**10
MAX_CACHE_LAYERS = 4  # layers of the cache drawn (GPT-2 small has 12: the first ones make the point)
MAX_CACHE_COLUMNS = 16  # values per row drawn: the first K/V head's first ones (a row label per token stays readable)
LABELS = {  # msgids (core.i18n); a hover's {fields} are filled by the page
    "next_title": mark("What comes after '{word}' (position {position}): the {n} likeliest next words"),
    "next_x": mark("next word"),
    "next_y": mark("probability"),
    "next_name": mark("probability"),
    "next_actual": mark("the word that follows in the sentence"),
    "rows_x": mark("earlier token (key)"),
    "rows_y": mark("head"),
    "rows_title": mark("layer {layer}"),
    "rows_hover": mark("head {i} of {head}: '{k}' ({j}) gets weight {value}"),
    "rows_scale": mark("weight of the new token on each earlier token (each row sums to 1)"),
    "rows_note": mark("The new word '{word}' looks back: one row per head, one panel per layer."),
    "cache_title": mark("{which} · layer {layer} {shape}"),
    "cache_x": mark("value (K/V head · dimension)"),
    "cache_y": mark("token"),
    "cache_hover": mark("{head}: token '{q}' ({i}), column {k}: {value}"),
    "cache_scale": mark("value stored in the cache"),
    "cache_note": mark("Each token adds one row to K and one to V in every layer; the last row is the newest word. "
                       "Nothing above it is ever recomputed."),
    "cache_cut_values": mark("Each token adds one row to K and one to V in every layer; the last row is the newest "
                             "word. Nothing above it is ever recomputed. Drawn: the first {columns} of the {width} "
                             "values in each row (the first K/V head's)."),
    "cache_cut_layers": mark("Each token adds one row to K and one to V in every layer; the last row is the newest "
                             "word. Nothing above it is ever recomputed. Drawn: the first {layers} of the {n_layers} "
                             "layers, and the first {columns} of the {width} values in each row."),
    "decode_title": mark("Time per generated token, measured (gpt2-small shape, random weights, B = 1, fp32)"),
    "decode_x": mark("tokens of context T"),
    "decode_y": mark("ms per token"),
    "decode_cached": mark("with the KV cache (one row per step)"),
    "decode_uncached": mark("without (the T x T square every step)"),
}
HEADERS = {  # the tables' column names, msgids (the *_headers() functions give them in the reader's language)
    "steps": [mark("step"), mark("word"), mark("probability"), mark("keys in each layer's cache"),
              mark("tokens run through the model"), "ms"],
    "cache": [mark("variant"), mark("K and V in each layer"), mark("tokens kept"), mark("KiB per token"),
              mark("cache MiB"), mark("scores per step without a cache"), mark("scores per step with it"),
              mark("tokens run per step (without / with)")],
    "decode": [mark("T (context)"), mark("ms per token with the cache"), mark("ms per token without"),
               mark("× faster with the cache"), mark("cache MiB")],
}
UNITS = {"ms"}  # a header that is a unit, the same in every language


def _headers(kind: str) -> list[str]:
    return [h if h in UNITS else t(h) for h in HEADERS[kind]]


def steps_headers() -> list[str]:
    """The generated words' table: its column names."""
    return _headers("steps")


def cache_headers() -> list[str]:
    """The cache's cost per variant: its column names."""
    return _headers("cache")


def decode_headers() -> list[str]:
    """The measured decode benchmark: its column names."""
    return _headers("decode")


def next_words(candidates: Sequence[Mapping[str, Any]], word: str, position: int,
               actual: str | None) -> dict:
    """The top-n next words as bars (likeliest first); the word that does follow, if among them, marked."""
    words = [c["word"] for c in candidates]
    highlight = words.index(actual) if actual is not None and actual in words else None
    legend = [{"text": t(LABELS["next_name"]), "color": 0}]
    if highlight is not None:
        legend.append({"text": t(LABELS["next_actual"]), "color": 1})
    title = t(LABELS["next_title"], word=charts.short(word), position=position, n=len(words))
    return charts.bars(words, [c["probability"] for c in candidates], highlight, title, t(LABELS["next_x"]),
                       t(LABELS["next_y"]), t(LABELS["next_name"]), legend=legend)


def attention_rows(seen: Sequence[str], attention: Any, word: str) -> dict:
    """The new token's attention row in every head: one panel per layer, (heads x earlier tokens) each."""
    a = np.asarray(attention, dtype=float)  # (L, H, n_seen)
    L, H, n = a.shape
    labels = {"x": t(LABELS["rows_x"]), "y": t(LABELS["rows_y"]), "hover": t(LABELS["rows_hover"]),
              "note": t(LABELS["rows_note"], word=charts.short(word))}
    data = matrix.heatmaps([""] * H, list(a), [t(LABELS["rows_title"], layer=la) for la in range(L)],
                           cols=list(seen), labels=labels,
                           legend=[{"swatch": "scale", "text": t(LABELS["rows_scale"])}],
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
            titles.append(t(LABELS["cache_title"], which=which, layer=la, shape=tuple(layer_shape)))
    cols = [f"{c // head_dim}·{c % head_dim}" for c in range(shown_cols)]
    if shown_layers < L:
        note = t(LABELS["cache_cut_layers"], layers=shown_layers, n_layers=L, columns=shown_cols, width=width)
    elif shown_cols < width:
        note = t(LABELS["cache_cut_values"], columns=shown_cols, width=width)
    else:
        note = t(LABELS["cache_note"])
    labels = {"x": t(LABELS["cache_x"]), "y": t(LABELS["cache_y"]), "hover": t(LABELS["cache_hover"]), "note": note}
    data = matrix.heatmaps(list(tokens), mats, titles, scale=scales.signed_scale(np.stack(mats)), cols=cols,
                           labels=labels, legend=[{"swatch": "scale", "text": t(LABELS["cache_scale"])}],
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
        charts.series(t(LABELS["decode_cached"]), T, [p["cached_s"] * 1000 for p in points], color=0, markers=True),
        charts.series(t(LABELS["decode_uncached"]), T, [p["uncached_s"] * 1000 for p in points], color=1, dash=True,
                      markers=True),
    ]
    p = charts.panel(t(LABELS["decode_title"]), charts.axis(t(LABELS["decode_x"]), log=2, ticks=T),
                     charts.axis(t(LABELS["decode_y"]), log=10), lines)
    return charts.chart([p], legend=charts.legend_of(lines), digits=1, height=360)
