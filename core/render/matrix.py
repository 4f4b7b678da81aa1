"""Matrices for the browser: numbers -> the dict a heatmap, head view or model view draws (web/*.js).

The data contract (JSON; every string is drawn as text, never parsed as HTML):

    kind        "heatmaps" (one matrix per head), "modelview" (layers x heads as small multiples)
    stamp       names what is drawn; the page writes it to data-stamp after drawing (tests wait for it)
    rows        row tokens (queries), in order, made visible (core.render.tokens: ⟨U+202E⟩); labels read "i token"
    cols        column labels when they are not the row tokens (e.g. "q0".."q7" for Q); omitted = rows
    col_tokens  True when cols are tokens too (a key/value cache): clicks highlight columns as well
    heads       [{"title", "values", "blocked" (0/1, absent = none), "extra" (absent = none: a second number the
                  hover shows, e.g. the scaled score)}]; each matrix either packed ({"f32": base64 little-endian
                  float32, "shape": [R, C]}; {"u8": ...} for blocked; see scales.packed) or nested lists (numbers,
                  "-inf", "inf" or null): the page reads both, the lab sends packed
    scale       {"min", "max", "stops": ["#rrggbb", ...], "ticks": [...], "digits"}: the colour bar, with numbers
    show_values write each value in its cell (short sentences); digits: decimals written and hovered
    boundary    draw the edge between allowed and blocked cells (the causal diagonal, a window's band)
    labels      every visible string: x, y, hover, hover_blocked, legend [{"swatch", "text"}], title, note,
                warning (a note the reader must not miss, e.g. "the sentence was cut"), ...;
                hover templates take {q} {i} {k} {j} {value} {extra} {head}; the words of each head's name,
                its table of numbers and its keyboard cursor: core.render.access.LABELS
    headview    {"labels"}: also draw the head view (lines from one token) under the heatmaps
    head_colors one colour per head (head view); max_columns, height_budget, max_cell: layout limits
    focus       True: heads too small side by side for every label are drawn as one big head (a click on
                a thumbnail beside it picks which); font_px: the labels' size, made smaller (to 15) to fit
    nan_color   "#rrggbb": NaN cells painted this colour and written "NaN" (omitted = NaN drawn as the scale's bottom)
    modelview   adds "layers": [[head, ...], ...], "descriptions": [[text]], "selected": [layer, head],
                "heatmap_labels" (the labels of the opened head's heatmap)
    highlight   the row (query token) lit when a sentence is first drawn, and the head view's token; omitted = none

Values go as float32 (a hover shows 2 decimals; the API's JSON keeps 6).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from ..i18n import current, mark, t
from ..lab.page_softmax import SETTINGS
from ..lab.session import measure_rows
from . import access, colors
from .scales import fitted_scale, packed, value_scale, weight_scale
from .tokens import all_visible, visible
from .web import stamp

VALUES_UP_TO = 16  # tokens: write each value in its cell up to this many rows

# Every string a view shows is a msgid here, looked up when the view is made (in the request's language): words()
LABELS = {
    "x": mark("key (attended to)"),
    "y": mark("query (attending)"),
    "hover": mark("query '{q}' ({i}) → key '{k}' ({j}): weight {value}, scaled score {extra}"),
    "hover_plain": mark("query '{q}' ({i}) → key '{k}' ({j}): weight {value}"),
    "hover_blocked": mark("query '{q}' ({i}) → key '{k}' ({j}): blocked by the mask, weight 0"),
    "scale": mark("weight"),
    "scale_rows": mark("weight (each row sums to 1)"),
    "scale_not_normalised": mark("weight (not a softmax: rows need not sum to 1)"),
    "blocked": mark("blocked by the mask: never attended, weight exactly 0"),
    "click": mark("Click a token or a cell: its row and column light up in every head. Hover a cell for its numbers."),
    "headview_title": mark("Head view: lines from one token to the tokens it attends to"),
    "headview_help": mark("Hover or click a token on the left. Line thickness = weight; one colour per head; click a "
                          "head's button to switch it off or on."),
    "headview_hover": mark("{head}: '{q}' ({i}) → '{k}' ({j}): weight {value}"),
    "head": mark("head {h}"),
    "head_shares": mark("head {h} · K/V head {g}"),
}
MASK_LABELS = {
    "title": mark("Mask: which keys each query may attend to"),
    "x": mark("key position"),
    "y": mark("query position"),
    "hover": mark("query {i} → key {j}: may attend"),
    "hover_blocked": mark("query {i} → key {j}: blocked"),
    "may_attend": mark("may attend"),
    "blocked": mark("blocked (weight forced to 0)"),
}
CHECK_LABELS = {  # the check line's title and the fitted scale's words (the lines: core.lab.session.measure_rows)
    "check_title": mark("Check (measured on the weights drawn)"),
    "scale_fitted": mark("weight (each row sums to 1); colours fitted to this sentence: 0 to {max}, larger at full "
                         "colour"),
}
# The page's own controls a softmax view follows (ids of the Attention tab's checkboxes).
CONTROLS = {"causal": "#causal input[type=checkbox]", "scaled": "#scaled input[type=checkbox]"}
VALUES_UP_TO_HEADS = 24  # tokens: the Attention tab's heads (never under MIN_HEAD px) write their weights up to this
MIN_HEAD = 610  # px: a head is never drawn smaller (one head of two at 1920x1080 before issue 22)
FIT_ABOVE = 24  # tokens: past this the colours are fitted to the largest weight (a long row's weights are small)

MODEL_LABELS = {
    "title": mark("Every layer and head of the trained model"),
    "help": mark("Each square is one head's weights for this sentence. Click one to open it below."),
    "layer": mark("layer {layer}"),
    "opened": mark("Layer {layer}, {title}"),
}


def words(table: dict[str, Any]) -> dict[str, Any]:
    """A table of msgids in the request's language (a template keeps its {fields}: the page fills them in)."""
    return {k: t(v) if isinstance(v, str) else v for k, v in table.items()}


def heatmaps(
    tokens: Sequence[str],
    mats: Sequence[Any],
    titles: Sequence[str],
    *,
    scale: dict | None = None,
    blocked: Any = None,
    extra: Sequence[Any] | None = None,
    cols: Sequence[str] | None = None,
    labels: dict | None = None,
    legend: list[dict] | None = None,
    headview: bool = False,
    **layout: Any,
) -> dict:
    """One matrix per head, as the page's heatmaps draw them. blocked: (T, T) or (H, T, T) bools, True = blocked."""
    mats = [np.asarray(m, dtype=float) for m in mats]
    scale = scale or weight_scale()
    labels = {**words(LABELS), **words(access.LABELS), **(labels or {})}  # (a caller's own labels: already in the request's language)
    if labels.get("warning"):
        labels["warning"] = visible(labels["warning"])
    blocked_h = None
    if blocked is not None:
        b = np.asarray(blocked, dtype=bool)
        blocked_h = [b] * len(mats) if b.ndim == 2 else list(np.broadcast_to(b, (len(mats), *b.shape[-2:])))
    heads = []
    for h, m in enumerate(mats):
        head: dict[str, Any] = {"title": visible(titles[h]), "values": packed(m)}
        if blocked_h is not None and blocked_h[h].any():
            head["blocked"] = packed(blocked_h[h], "u8")
        if extra is not None:
            head["extra"] = packed(extra[h])
        heads.append(head)
    if legend is None:
        legend = [{"swatch": "scale", "text": labels["scale"]}]
        if any("blocked" in head for head in heads):
            legend.append({"swatch": "blocked", "text": labels["blocked"]})
    data: dict[str, Any] = {
        "kind": "heatmaps",
        "rows": all_visible(tokens),  # a bidi override or a zero-width space drawn as ⟨U+202E⟩, never raw
        "heads": heads,
        "scale": scale,
        "show_values": len(tokens) <= VALUES_UP_TO,
        "digits": 2,
        "boundary": True,
        "labels": {**labels, "legend": legend},
        "head_colors": list(colors.CATEGORICAL),
        **layout,
    }
    if cols is not None:
        data["cols"] = all_visible(cols)
    if headview:
        data["headview"] = {"labels": labels}
    data["stamp"] = stamp(data["rows"], data.get("cols"), [h["title"] for h in heads], _digest(heads),
                          scale["min"], scale["max"], labels.get("warning", ""), current())  # (its words' language)
    return data


def _digest(heads: list[dict]) -> str:
    """A short hash of every packed matrix of the heads (cheap: the bytes, not the numbers)."""
    h = hashlib.blake2b(digest_size=8)
    for head in heads:
        for key in ("values", "blocked", "extra"):
            if key in head:
                h.update(key.encode() + head[key].get("f32", head[key].get("u8", "")).encode())
    return h.hexdigest()


def head_titles(n_heads: int, n_kv_heads: int | None = None) -> list[str]:
    """'head 2', or for grouped-query attention 'head 2 · K/V head 1' (the K/V head it shares)."""
    if not n_kv_heads or n_kv_heads == n_heads:
        return [t(LABELS["head"], h=h) for h in range(n_heads)]
    group = n_heads // n_kv_heads
    return [t(LABELS["head_shares"], h=h, g=h // group) for h in range(n_heads)]


def setting(causal: bool, scaled: bool) -> str:
    """The key of one setting of the two toggles in a softmax view's tables ("10": causal, not scaled)."""
    return f"{int(causal)}{int(scaled)}"


def softmax_inputs(page: Any, causal: bool, scaled: bool, fitted: bool = False) -> dict:
    """The raw scores and both masks, for the page's own scale, mask and softmax (core.lab.page_softmax), and for
    each setting of the toggles its check line (and, fitted, its colour scale), measured here: the page picks."""
    checks, scales, legends = {}, {}, {}
    for c, s in SETTINGS:
        w, key = page.weights(c, s), setting(c, s)  # (H, T, T)
        checks[key] = measure_rows(w, page.allowed(c)).line
        if fitted:
            scales[key] = fitted_scale(w.numpy())
            legends[key] = t(CHECK_LABELS["scale_fitted"], max=format(scales[key]["max"], ".2f"))
    sm = {"scores": [packed(s) for s in page.scores.numpy()], "head_dim": int(page.head_dim),
          "allowed": {"causal": packed(page.allowed_causal.numpy(), "u8"), "full": packed(page.allowed_full.numpy(), "u8")},
          "causal": bool(causal), "scaled": bool(scaled), "controls": dict(CONTROLS), "checks": checks}
    if fitted:
        sm["scales"], sm["legends"] = scales, legends  # the colour bar and its words, per setting
    return sm


def attention(tokens: Sequence[str], weights: Any, allowed: Any, scaled: Any | None = None,
              n_kv_heads: int | None = None, normalised: bool = True, note: str = "",
              maps: dict[str, Any] | None = None, page: Any = None, causal: bool = True,
              is_scaled: bool = True, check: str = "") -> dict:
    """The Attention tab's heatmaps: weights (H, T, T), the mask (T, T) or (H, T, T) True = may attend,
    the scaled scores (H, T, T), or (H, M, T, T) with maps, for the hover; the head view below; a note above.

    maps {name: (H, T, T)}: a variant's several maps per head, one more panel each after the heads ("head 0 · A₁").
    """
    w = np.asarray(weights, dtype=float)
    H = w.shape[0]
    titles = head_titles(H, n_kv_heads)
    mats, hover = list(w), None if scaled is None else np.asarray(scaled, dtype=float)
    extra = None if hover is None else list(hover[:, 0] if hover.ndim == 4 else hover)
    for i, (name, m) in enumerate((maps or {}).items()):
        mats += list(np.asarray(m, dtype=float))
        titles = [*titles, *(f"{title} · {name}" for title in head_titles(H, n_kv_heads))]
        if extra is not None:
            extra += list(hover[:, i] if hover.ndim == 4 else hover)
    w = np.stack(mats)
    fitted = normalised and len(tokens) > FIT_ABOVE
    scale = (fitted_scale(w) if fitted else weight_scale()) if normalised else value_scale(w)
    text = t(LABELS["scale_rows"] if normalised else LABELS["scale_not_normalised"])
    if fitted:
        text = t(CHECK_LABELS["scale_fitted"], max=format(scale["max"], ".2f"))
    legend = [{"swatch": "scale", "text": text}]
    blocked = ~np.asarray(allowed, dtype=bool)
    if blocked.any() or page is not None:  # (the page may block keys itself: the causal toggle)
        legend.append({"swatch": "blocked", "text": t(LABELS["blocked"])})
    if not check:  # (a caller's weights alone, e.g. core.notebook's: measured here, as every check line is)
        check = measure_rows(torch.as_tensor(np.asarray(weights, dtype=float)), torch.as_tensor(~blocked)).line
    labels = {"hover": t(LABELS["hover"] if scaled is not None else LABELS["hover_plain"]), "note": t(LABELS["click"]),
              "warning": note, **words(CHECK_LABELS), "check_text": check}
    data = heatmaps(tokens, list(w), titles, scale=scale, blocked=blocked, extra=extra,
                    labels=labels, legend=legend, headview=True)
    data["check"] = True  # the check line under the heads: check_text, or the softmax view's line for its toggles
    data["show_values"] = len(tokens) <= VALUES_UP_TO_HEADS
    data["min_head"] = MIN_HEAD
    if page is not None:
        sm = data["softmax"] = softmax_inputs(page, causal, is_scaled, fitted)
        sm["key"] = stamp(data["rows"], titles, note, sm["head_dim"], fitted, *(s["f32"] for s in sm["scores"]),
                          sm["allowed"]["causal"]["u8"], sm["allowed"]["full"]["u8"],
                          current())  # all but the two switches (and the language its words are in)
    return data


def drawn_stamp(data: dict) -> str:
    """What the page marks a drawn view with (tests and benches wait for it): a softmax view's key and switches."""
    sm = data.get("softmax")
    if not sm or not sm.get("key"):
        return data.get("stamp", "")
    return f"{sm['key']}:{setting(sm['causal'], sm['scaled'])}"  # (core.js A.paintKey, the page's checkboxes absent)


def mask(allowed: Any) -> dict:
    """The mask pattern alone (it depends on the length and the variant, never on the words)."""
    a = np.asarray(allowed, dtype=bool)  # (T, T)
    T = a.shape[-1]
    labels = words(MASK_LABELS)
    legend = [{"swatch": colors.MAY_ATTEND, "text": labels["may_attend"]},
              {"swatch": "blocked", "text": labels["blocked"]}]
    data = heatmaps([str(i) for i in range(T)], [a.astype(float)], [""], blocked=~a, labels=labels, legend=legend,
                    scale={"min": 0, "max": 1, "stops": [colors.MAY_ATTEND, colors.MAY_ATTEND], "ticks": [],
                           "digits": 0}, max_columns=1, max_cell=28)
    data["show_values"] = False
    data["position_labels"] = True
    return data


def model_view(tokens: Sequence[str], weights: Any, titles: Sequence[Sequence[str]],
               descriptions: Sequence[Sequence[str]], selected: tuple[int, int], allowed: Any = None,
               note: str = "", highlight: int | None = None, layer_notes: Sequence[str] | None = None,
               groups: int = 1) -> dict:
    """Every layer x head (weights (L, H, T, T)) as small multiples; `selected` opened first; allowed (T, T), or
    (L, T, T) when layers differ (a sliding-window layer's band), True = may attend (the opened head hatches the
    rest); a note written above them, if any; `highlight`: the row lit first (a pronoun's), None for none;
    layer_notes: a few words after each layer's label ("window 4"); groups: query heads per key/value head (the
    thumbnails of one group drawn together)."""
    w = np.asarray(weights, dtype=float)
    a = None if allowed is None else np.asarray(allowed, dtype=bool)
    per_layer = a is not None and a.ndim == 3
    masks = [None] * w.shape[0] if a is None else \
        [packed(~(a[la] if per_layer else a), "u8") for la in range(w.shape[0])]
    layers = [[{"title": visible(titles[la][h]), "values": packed(w[la, h]), **({"blocked": masks[la]} if masks[la] else {})}
               for h in range(w.shape[1])] for la in range(w.shape[0])]
    blocked = masks[0]
    data = {
        "kind": "modelview",
        "rows": all_visible(tokens),
        "layers": layers,
        "descriptions": [list(d) for d in descriptions],
        "selected": [int(selected[0]), int(selected[1])],
        "scale": weight_scale(),
        "show_values": len(tokens) <= VALUES_UP_TO,
        "digits": 2,
        "boundary": True,
        "labels": {**words(MODEL_LABELS), **words(access.LABELS), "warning": visible(note)},
        "heatmap_labels": {**(shown := words(LABELS)), **words(access.LABELS), "hover": shown["hover_plain"], "note": shown["click"],
                           "legend": [{"swatch": "scale", "text": shown["scale"]},
                                      *([{"swatch": "blocked", "text": shown["blocked"]}] if blocked else [])]},
        "head_colors": list(colors.CATEGORICAL),
    }
    if highlight is not None:
        data["highlight"] = int(highlight)
    if layer_notes is not None:
        data["layer_notes"] = [str(n) for n in layer_notes]
    if groups > 1:
        data["groups"] = int(groups)
    data["stamp"] = stamp(data["rows"], [_digest(layer) for layer in layers], data["selected"], note, highlight,
                          data.get("layer_notes"), data.get("groups"), current())
    return data

