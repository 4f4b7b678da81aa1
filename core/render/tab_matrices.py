"""The teaching tabs' matrices, drawn by the heatmap renderer: the dependency map, the three ways to mask,
and each stage of the step-through (contract: core.render.matrix)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..lab.steps import TOKEN_STAGES
from .matrix import LABELS, heatmaps, value_scale, weight_scale

DEPENDENCY_LABELS = {
    "title": "|d out_i / d x_j|, {where}",
    "with_mask": "with the causal mask",
    "without_mask": "WITHOUT the causal mask",
    "x": "input token j",
    "y": "output row i",
    "scale": "|d out_i / d x_j| (autograd)",
    "hover": "output row '{q}' ({i}) ← input '{k}' ({j}): |d out / d x| {value}",
    "note": "Click a token or a cell to highlight its row and column; hover a cell for its number.",
}
THREE_WAYS_LABELS = {
    "titles": ("1. -inf, then softmax", "2. softmax, zero the future, renormalise", "3. WRONG: fill 0, then softmax"),
    "hover": "query '{q}' ({i}) → key '{k}' ({j}): weight {value}",
    "blocked": "the future: weight exactly 0 (ways 1 and 2)",
}
STEP_VALUES_UP_TO = 10  # rows and columns: numbers in the cells of a step-through card (13 px and up)
STEP_BUDGET = {"short": 640, "long": 480}  # px of height per stage: a long sentence keeps its cards compact
STAGE_LABELS = {
    "hover_tokens": "row '{q}' ({i}), column '{k}' ({j}): {value}",
    "hover_dims": "row '{q}' ({i}), {k}: {value}",
    "hover_blocked": "row '{q}' ({i}), column '{k}' ({j}): -∞ (blocked by the mask)",
    "x_tokens": "key",
    "x_dims": "dimension",
    "y": "query token",
    "scale": "value",
    "blocked": "-∞: blocked by the mask",
}


def dependency(tokens: Sequence[str], dep: Any, causal: bool, note: str = "") -> dict:
    """|d out_i / d x_j| (T, T) from autograd: 0 to its largest value; exact zeros are what the mask forbids.
    note: how the sentence was read (segmented automatically, cut), written above the map."""
    d = np.asarray(dep, dtype=float)
    where = DEPENDENCY_LABELS["with_mask" if causal else "without_mask"]
    hi = float(d.max()) if d.size and d.max() > 0 else 1.0
    legend = [{"swatch": "scale", "text": DEPENDENCY_LABELS["scale"]}]
    return heatmaps(tokens, [d], [DEPENDENCY_LABELS["title"].format(where=where)], scale=weight_scale(0.0, hi),
                    labels={"x": DEPENDENCY_LABELS["x"], "y": DEPENDENCY_LABELS["y"], "hover": DEPENDENCY_LABELS["hover"],
                            "note": DEPENDENCY_LABELS["note"], "warning": note},
                    legend=legend, max_columns=1)


def three_ways(tokens: Sequence[str], neg_inf: Any, renormalised: Any, zero_fill: Any) -> dict:
    """The same scores masked three ways: the first two hatch the future (weight 0), the third shows its leak."""
    mats = [np.asarray(m, dtype=float) for m in (neg_inf, renormalised, zero_fill)]
    T = mats[0].shape[-1]
    future = np.triu(np.ones((T, T), dtype=bool), 1)
    blocked = np.stack([future, future, np.zeros_like(future)])  # (3, T, T)
    legend = [{"swatch": "scale", "text": LABELS["scale"]}, {"swatch": "blocked", "text": THREE_WAYS_LABELS["blocked"]}]
    return heatmaps(tokens, mats, list(THREE_WAYS_LABELS["titles"]), blocked=blocked, legend=legend,
                    labels={"hover": THREE_WAYS_LABELS["hover"]}, max_columns=3)


def stage(st: Any, tokens: Sequence[str]) -> dict:
    """One stage of the step-through (core.lab.steps.Stage) as a shaded matrix: rows are the query tokens;
    columns are tokens ((T, T) stages) or dimensions; -inf cells hatched as blocked."""
    m = np.array(st.rows, dtype=float)  # "-inf" strings become -inf
    is_tokens = st.columns_are_tokens if st.columns_are_tokens is not None else st.name in TOKEN_STAGES
    blocked = np.isneginf(m)
    finite = m[np.isfinite(m)]
    kind = getattr(st, "kind", "") or st.name  # the trace field: its name may be in the reader's language
    softmax = kind == "weights" and (finite.size == 0 or (finite.min() >= 0 and finite.max() <= 1))
    scale = weight_scale() if softmax else value_scale(np.where(blocked, 0.0, m))
    legend = [{"swatch": "scale", "text": STAGE_LABELS["scale"] if kind != "weights" else LABELS["scale"]}]
    if blocked.any():
        legend.append({"swatch": "blocked", "text": STAGE_LABELS["blocked"]})
    labels = {
        "x": STAGE_LABELS["x_tokens"] if is_tokens else STAGE_LABELS["x_dims"],
        "y": STAGE_LABELS["y"],
        "hover": STAGE_LABELS["hover_tokens"] if is_tokens else STAGE_LABELS["hover_dims"],
        "hover_blocked": STAGE_LABELS["hover_blocked"],
    }
    cols = None if is_tokens else list(st.columns)
    n_rows, n_cols = m.shape[-2:]  # (T, T) or (T, d)
    budget = STEP_BUDGET["short" if len(tokens) <= 24 else "long"]
    data = heatmaps(tokens, [m], [f"{st.name}  {tuple(st.shape)}"], scale=scale, blocked=blocked if blocked.any() else None,
                    cols=cols, labels=labels, legend=legend, max_columns=1, height_budget=budget)
    data["show_values"] = max(n_rows, n_cols) <= STEP_VALUES_UP_TO  # more would be numbers under 13 px in a card
    return data
