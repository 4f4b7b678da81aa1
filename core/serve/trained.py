"""The trained tiny model's side of the Attention tab: every layer x head for a sentence, cached."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import torch

from ..config import whole
from ..lab.session import rounded
from ..lab.trained_view import model_panel, most_telling_head
from ..render import matrix
from .exports import remember


@dataclass(frozen=True)
class TrainedView:
    """The model view, the opened head's measured role, one line per head of its layer, notes, the API JSON."""

    model: dict[str, Any]  # core.render.matrix model view
    selected: str
    roles: str
    note: str
    payload: dict[str, Any]


@lru_cache(maxsize=128)
def _trained(sentence: str, layer: int, head: int) -> TrainedView:
    panel = model_panel(sentence, layer, head)
    T = len(panel.tokens)
    allowed = torch.ones(T, T, dtype=torch.bool).tril().numpy()  # the tiny model is causal
    data = matrix.model_view(panel.tokens, panel.weights.numpy(), panel.titles, panel.descriptions, panel.selected,
                             allowed=allowed, note=panel.note)
    payload = {"tokens": panel.tokens, "layer": layer, "head": head, "weights": rounded(panel.weights[layer]),
               "heads": panel.titles[layer]}
    return TrainedView(data, panel.descriptions[layer][head], "\n".join(panel.descriptions[layer]), panel.note,
                       payload)


def trained(sentence: Any, layer: Any, head: Any) -> TrainedView:
    """Raw UI/API values -> the (cached) view; ValueError for a sentence, layer or head the model cannot take."""
    if not isinstance(sentence, str):
        raise ValueError("type a sentence first")
    view = _trained(sentence, whole("layer", layer), whole("head", head))
    remember(view.model)
    return view


def opening_head() -> tuple[int, int]:
    """Where the trained view opens: its most telling head, measured on held-out text."""
    return most_telling_head()
