"""The trained tiny model's side of the Attention tab: every layer x head for a sentence, cached."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import torch

from ..i18n import current, mark, t
from ..lab.session import rounded
from ..lab.text import sentences
from ..lab.trained_view import model_panel, most_telling_head, pronoun_row, row_focus, trained_attention_payload
from ..mistakes import ConfigError, whole
from ..render import matrix
from .exports import remember

MESSAGES = {
    "focus": mark("In this sentence, the row of '{pronoun}' ({row}) puts its largest weight, {weight}, on '{key}' "
                  "({col})."),
}


@dataclass(frozen=True)
class TrainedView:
    """The model view, the opened head's measured role, one line per head of its layer, notes, the API JSONs."""

    model: dict[str, Any]  # core.render.matrix model view
    selected: str
    roles: str
    note: str
    model_json: dict[str, Any]  # {"tokens", "weights": [L][H][T][T], "roles": [L][H]}: the whole model
    payload: dict[str, Any]  # {"tokens", "layer", "head", "weights": [H][T][T], "heads"}: the opened layer


@lru_cache(maxsize=128)
def _trained(sentence: str, layer: int, head: int, language: str) -> TrainedView:
    """(cached per language: the heads' descriptions and the view's labels are words)"""
    panel = model_panel(sentence, layer, head)
    T = len(panel.tokens)
    allowed = torch.ones(T, T, dtype=torch.bool).tril().numpy()  # the tiny model is causal
    row = pronoun_row(panel.tokens)
    descriptions = [list(d) for d in panel.descriptions]
    if row is not None:  # each head says where the pronoun's row looks in this sentence
        for la, heads in enumerate(row_focus(panel.weights, row)):
            for h, (col, weight) in enumerate(heads):
                descriptions[la][h] = sentences(descriptions[la][h], t(
                    MESSAGES["focus"], pronoun=panel.tokens[row], row=row, weight=format(weight, ".2f"),
                    key=panel.tokens[col], col=col))
    data = matrix.model_view(panel.tokens, panel.weights.numpy(), panel.titles, descriptions, panel.selected,
                             allowed=allowed, note=panel.note, highlight=row)
    payload = {"tokens": panel.tokens, "layer": layer, "head": head, "weights": rounded(panel.weights[layer]),
               "heads": panel.titles[layer]}
    return TrainedView(data, descriptions[layer][head], "\n".join(descriptions[layer]), panel.note,
                       _model_json(sentence), payload)


@lru_cache(maxsize=128)
def _model_json(sentence: str) -> dict[str, Any]:
    return trained_attention_payload(sentence)


def trained(sentence: Any, layer: Any, head: Any) -> TrainedView:
    """Raw UI/API values -> the (cached) view; ConfigError for a sentence, layer or head the model cannot take."""
    if not isinstance(sentence, str):
        raise ConfigError(t("type a sentence first"))
    view = _trained(sentence, whole("layer", layer), whole("head", head), current())
    remember(view.model)
    return view


def opening_head() -> tuple[int, int]:
    """Where the trained view opens: its most telling head, measured on held-out text."""
    return most_telling_head()
