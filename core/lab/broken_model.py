"""A real model broken live: the mask lifted, √d dropped, heads zeroed in every layer, and what its predictions lose.

The chapter's "mask or no mask" and "do not mythologise weights" on a trained model: the same sentence
through the intact model and the broken one, side by side — every layer's weights, the next-word top 5,
and the sentence's loss in bits per token (each token predicted from the ones before it).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from ..config import ConfigError
from ..model import GPT
from .ablate import Ablation, edited_run
from .trained_view import NAME_THRESHOLD, pattern_scores

TOP = 5
MESSAGES = {
    "ablate": "ablate must be a JSON list of [layer, head] pairs, like [[0, 1], [5, 3]]",
    "head": "ablate names layer {layer} head {head}, but the model has layers 0-{L} and heads 0-{H}",
    "short": "the sentence needs at least two tokens: the loss is each token predicted from the ones before it",
}


@dataclass(frozen=True)
class Breakage:
    """What the student changed: the causal mask, the 1/sqrt(d_head) scaling, the heads taken out."""

    causal: bool = True
    scaled: bool = True
    ablate: tuple[tuple[int, int], ...] = ()

    @property
    def intact(self) -> bool:
        return self.causal and self.scaled and not self.ablate


def parse_ablate(value: Any, n_layers: int, n_heads: int) -> tuple[tuple[int, int], ...]:
    """'[[0, 1], [5, 3]]' (or a list) -> ((0, 1), (5, 3)); ConfigError in one sentence otherwise."""
    try:
        raw = json.loads(value) if isinstance(value, str) else value
        if not isinstance(raw, (list, tuple)) or not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in raw):
            raise ValueError
        pairs = [(int(la), int(h)) for la, h in raw]
        if any(isinstance(n, bool) or float(n) != int(n) for pair in raw for n in pair):
            raise ValueError  # 1.5 is no head; true is no number
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(MESSAGES["ablate"]) from None
    for layer, head in pairs:
        if not (0 <= layer < n_layers and 0 <= head < n_heads):
            raise ConfigError(MESSAGES["head"].format(layer=layer, head=head, L=n_layers - 1, H=n_heads - 1))
    return tuple(sorted(set(pairs)))


@dataclass(frozen=True)
class Side:
    """One model's answer on the sentence: every layer's weights, its next-word top 5, its loss."""

    weights: Tensor  # (L, H, T, T)
    next_words: list[tuple[str, float]]  # the likeliest next tokens after the sentence, with probabilities
    loss_bits: float  # mean over t of -log2 p(token t+1 | tokens up to t)


def _side(logits: Tensor, weights: Tensor, ids: list[int], tokenizer: Any) -> Side:
    logp = torch.log_softmax(logits[0].float(), -1)  # (T, V)
    target = torch.tensor(ids[1:])  # (T-1,)
    loss = float(-logp[:-1].gather(1, target[:, None]).mean()) / math.log(2)
    top = torch.topk(logp[-1].exp(), TOP)
    return Side(weights[:, 0], [(tokenizer.decode([int(i)]), float(p)) for p, i in zip(*top, strict=True)], loss)


@torch.no_grad()
def side(model: GPT, tokenizer: Any, ids: list[int], breakage: Breakage) -> Side:
    """One model's answer on the tokens, broken as `breakage` says (the model itself is never patched)."""
    if len(ids) < 2:
        raise ConfigError(MESSAGES["short"])
    ablations = [Ablation(layer, head) for layer, head in breakage.ablate]
    run = edited_run(model, torch.tensor([ids]), ablations, causal=breakage.causal, scaled=breakage.scaled)
    return _side(*run, ids, tokenizer)


def intact_and_broken(model: GPT, tokenizer: Any, ids: list[int], breakage: Breakage) -> tuple[Side, Side]:
    """The intact model and the broken one on the same tokens."""
    intact = side(model, tokenizer, ids, Breakage())
    return intact, (intact if breakage.intact else side(model, tokenizer, ids, breakage))


def describe_heads(words: list[str], weights: Tensor) -> list[list[str]]:
    """Each head named by the pattern it shows most on this sentence (measured here, never a stored label):
    weights (L, H, T, T) -> [L][H] lines like "layer 3 head 2: previous token, mean weight 0.81"."""
    out = []
    for layer, heads in enumerate(weights):
        row = []
        for head, w in enumerate(heads):
            scores = pattern_scores(words, w)
            best = max(scores, key=scores.get) if scores else None
            named = best if best is not None and scores[best] >= NAME_THRESHOLD else None
            row.append(f"layer {layer} head {head}: " + (f"{named}, mean weight {scores[named]:.2f}" if named else
                                                          "spread out (no pattern above 0.4)"))
        out.append(row)
    return out


def payload(tokens: list[str], intact: Side, broken: Side, digits: int = 4) -> dict[str, Any]:
    """The /model_attention JSON: the broken model's weights [L][H][T][T]; both sides' words and losses."""
    return {
        "tokens": tokens,
        "weights": torch.round(broken.weights, decimals=digits).tolist(),
        "next_words": [[w, round(p, digits)] for w, p in broken.next_words],
        "loss_bits": round(broken.loss_bits, digits),
        "intact": {"next_words": [[w, round(p, digits)] for w, p in intact.next_words],
                   "loss_bits": round(intact.loss_bits, digits)},
    }
