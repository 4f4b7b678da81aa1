"""The Chapter tab's views: each spot-the-bug card's weights (wrong line beside the fix) and the intervention
chart (each head's weight on its pattern beside what removing it costs). Contract: core.render.matrix, charts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..i18n import mark, t
from . import charts
from .matrix import heatmaps
from .scales import weight_scale

NAN_COLOR = "#d55e00"  # Okabe-Ito vermillion: a NaN cell must not look like a small weight
CARD_LABELS = {  # msgids (core.i18n); the hovers' {fields} are filled by the page
    "wrong": mark("with the wrong line"),
    "right": mark("with the fix"),
    "scale": mark("weight"),
    "hover": mark("query '{q}' ({i}) → key '{k}' ({j}): weight {value}"),
    "hover_blocked": mark("query '{q}' ({i}) → key '{k}' ({j}): masked (-inf), weight 0"),
    "blocked": mark("masked with -inf: weight exactly 0"),
    "nan": mark("NaN: a row with nothing to see (0 / 0)"),
}
EFFECT_LABELS = {
    "weight": mark("Mean weight on its pattern"),
    "weight_y": mark("weight (0 to 1)"),
    "loss": mark("Held-out loss increase when removed"),
    "loss_y": mark("bits per word"),
    "may": mark("Increase on the word after 它 可能 / it may"),
    "may_y": mark("bits"),
    "head": mark("head"),
    "series_weight": mark("mean weight"),
    "series_loss": mark("loss increase"),
}


def card_weights(tokens: Sequence[str], wrong: Any | None, right: Any, hatch_wrong: bool) -> dict:
    """One card's weights as heatmaps: the wrong line's (None when it raises before any weight exists) beside the
    fix's. A cell is hatched only where -inf masked it, so its weight is exactly 0 (a padding row the fix lets see
    everything is drawn with its weights, never hatched); NaN cells are painted and written."""
    shown = ([(wrong, t(CARD_LABELS["wrong"]), hatch_wrong)] if wrong is not None else []) + [
        (right, t(CARD_LABELS["right"]), True)]
    mats = [_matrix(w) for w, _, _ in shown]
    titles = [title for _, title, _ in shown]
    blocked = np.stack([(m == 0) if hatch else np.zeros(m.shape, dtype=bool)
                        for m, (_, _, hatch) in zip(mats, shown, strict=True)])  # (n, T, T) (NaN == 0 is False)
    legend = [{"swatch": "scale", "text": t(CARD_LABELS["scale"])},
              {"swatch": "blocked", "text": t(CARD_LABELS["blocked"])}]
    nan = any(np.isnan(m).any() for m in mats)
    if nan:
        legend.append({"swatch": NAN_COLOR, "text": t(CARD_LABELS["nan"])})
    data = heatmaps(tokens, mats, titles, scale=weight_scale(), blocked=blocked, legend=legend,
                    labels={"hover": t(CARD_LABELS["hover"]), "hover_blocked": t(CARD_LABELS["hover_blocked"])},
                    max_columns=2, max_cell=64, height_budget=360)
    if nan:
        data["nan_color"] = NAN_COLOR
    return data


def _matrix(rows: Any) -> np.ndarray:
    """Nested lists from the cards' JSON (None = NaN) -> (T, T) floats."""
    return np.array([[np.nan if v is None else float(v) for v in row] for row in rows], dtype=float)


def effects_chart(heads: Sequence[str], weight: Sequence[float], loss: Sequence[float], may: Sequence[float],
                  highlight: int | None) -> dict:
    """Three bar panels over the same heads: weight on its pattern, held-out loss increase, and the increase on the
    word after 它 可能 / it may; `highlight` marks one head in all three (the striking one that matters little)."""
    x = {"label": t(EFFECT_LABELS["head"]), "categories": list(heads)}

    def bar_panel(title: str, y_label: str, name: str, values: Sequence[float], **y: Any) -> dict:
        return {"title": t(title), "type": "bars", "x": x, "y": {"label": t(y_label), **y},
                "series": [charts.series(t(name), range(len(values)), values)], "highlight": highlight}

    panels = [
        bar_panel(EFFECT_LABELS["weight"], EFFECT_LABELS["weight_y"], EFFECT_LABELS["series_weight"], weight, min=0, max=1),
        bar_panel(EFFECT_LABELS["loss"], EFFECT_LABELS["loss_y"], EFFECT_LABELS["series_loss"], loss),
        bar_panel(EFFECT_LABELS["may"], EFFECT_LABELS["may_y"], EFFECT_LABELS["series_loss"], may),
    ]
    return charts.chart(panels, columns=3, hover=t(charts.BAR_HOVER), digits=3, height=340)
