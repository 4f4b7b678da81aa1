"""The teaching tabs' matrices, drawn by the heatmap renderer: the dependency map, the three ways to mask,
and each stage of the step-through (contract: core.render.matrix)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..i18n import mark, t
from ..lab.steps import TOKEN_STAGES
from .matrix import LABELS, heatmaps, words
from .scales import value_scale, weight_scale

DEPENDENCY_LABELS = {
    "title": mark("|d out_i / d x_j|, {where}"),
    "with_mask": mark("with the causal mask"),
    "without_mask": mark("WITHOUT the causal mask"),
    "x": mark("input token j"),
    "y": mark("output row i"),
    "scale": mark("|d out_i / d x_j| (autograd)"),
    "hover": mark("output row '{q}' ({i}) ← input '{k}' ({j}): |d out / d x| {value}"),
    "note": mark("Click a token or a cell to highlight its row and column; hover a cell for its number."),
}
THREE_WAYS_LABELS = {
    "titles": (mark("1. -inf, then softmax"), mark("2. softmax, zero the future, renormalise"),
               mark("3. WRONG: fill 0, then softmax")),
    "hover": LABELS["hover_plain"],
    "blocked": mark("the future: weight exactly 0 (ways 1 and 2)"),
}
STEP_VALUES_UP_TO = 10  # rows and columns: numbers in the cells of a step-through card (13 px and up)
STEP_BUDGET = {"short": 640, "long": 480}  # px of height per stage: a long sentence keeps its cards compact
STAGE_LABELS = {
    "hover_tokens": mark("row '{q}' ({i}), column '{k}' ({j}): {value}"),
    "hover_dims": mark("row '{q}' ({i}), {k}: {value}"),
    "hover_blocked": mark("row '{q}' ({i}), column '{k}' ({j}): -∞ (blocked by the mask)"),
    "x_tokens": mark("key"),
    "x_dims": mark("dimension"),
    "y": mark("query token"),
    "scale": mark("value"),
    "blocked": mark("-∞: blocked by the mask"),
}


def dependency(tokens: Sequence[str], dep: Any, causal: bool, note: str = "") -> dict:
    """|d out_i / d x_j| (T, T) from autograd: 0 to its largest value; exact zeros are what the mask forbids.
    note: how the sentence was read (segmented automatically, cut), written above the map."""
    d = np.asarray(dep, dtype=float)
    said = words(DEPENDENCY_LABELS)
    where = said["with_mask" if causal else "without_mask"]
    hi = float(d.max()) if d.size and d.max() > 0 else 1.0
    legend = [{"swatch": "scale", "text": said["scale"]}]
    return heatmaps(tokens, [d], [t(DEPENDENCY_LABELS["title"], where=where)], scale=weight_scale(0.0, hi),
                    labels={"x": said["x"], "y": said["y"], "hover": said["hover"], "note": said["note"],
                            "warning": note},
                    legend=legend, max_columns=1)


def three_ways(tokens: Sequence[str], neg_inf: Any, renormalised: Any, zero_fill: Any) -> dict:
    """The same scores masked three ways: the first two hatch the future (weight 0), the third shows its leak."""
    mats = [np.asarray(m, dtype=float) for m in (neg_inf, renormalised, zero_fill)]
    T = mats[0].shape[-1]
    future = np.triu(np.ones((T, T), dtype=bool), 1)
    blocked = np.stack([future, future, np.zeros_like(future)])  # (3, T, T)
    legend = [{"swatch": "scale", "text": t(LABELS["scale"])},
              {"swatch": "blocked", "text": t(THREE_WAYS_LABELS["blocked"])}]
    return heatmaps(tokens, mats, [t(title) for title in THREE_WAYS_LABELS["titles"]], blocked=blocked, legend=legend,
                    labels={"hover": t(THREE_WAYS_LABELS["hover"])}, max_columns=3)


def stage(st: Any, tokens: Sequence[str]) -> dict:
    """One stage of the step-through (core.lab.steps.Stage) as a shaded matrix: rows are the query tokens;
    columns are tokens ((T, T) stages) or dimensions; -inf cells hatched as blocked."""
    m = np.array(st.rows, dtype=float)  # "-inf" strings become -inf
    field = st.field or st.name  # (a stage made without its field: its name is the English one)
    is_tokens = st.columns_are_tokens if st.columns_are_tokens is not None else field in TOKEN_STAGES
    blocked = np.isneginf(m)
    finite = m[np.isfinite(m)]
    softmax = field == "weights" and (finite.size == 0 or (finite.min() >= 0 and finite.max() <= 1))
    scale = weight_scale() if softmax else value_scale(np.where(blocked, 0.0, m))
    said = words(STAGE_LABELS)
    legend = [{"swatch": "scale", "text": said["scale"] if field != "weights" else t(LABELS["scale"])}]
    if blocked.any():
        legend.append({"swatch": "blocked", "text": said["blocked"]})
    labels = {
        "x": said["x_tokens"] if is_tokens else said["x_dims"],
        "y": said["y"],
        "hover": said["hover_tokens"] if is_tokens else said["hover_dims"],
        "hover_blocked": said["hover_blocked"],
    }
    cols = None if is_tokens else list(st.columns)
    n_rows, n_cols = m.shape[-2:]  # (T, T) or (T, d)
    budget = STEP_BUDGET["short" if len(tokens) <= 24 else "long"]
    title = t("{name}  ({shape})", name=st.name, shape=", ".join(str(n) for n in st.shape))
    data = heatmaps(tokens, [m], [title], scale=scale, blocked=blocked if blocked.any() else None,
                    cols=cols, labels=labels, legend=legend, max_columns=1, height_budget=budget)
    data["show_values"] = max(n_rows, n_cols) <= STEP_VALUES_UP_TO  # more would be numbers under 13 px in a card
    return data
