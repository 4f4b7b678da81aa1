"""A real model broken live: the mask lifted, √d dropped, heads zeroed or a variant in its place, and what its
predictions lose.

The chapter's "mask or no mask" and "do not mythologise weights" on a trained model: the same sentence
through the intact model and the broken one, side by side — every layer's weights, the next-word top 5,
and the sentence's loss in bits per token (each token predicted from the ones before it). Every model runs in
transformers with the lab's attention inside (core.gpt.lab_attention); the model itself is never patched.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from ..config import ConfigError
from ..gpt.lab_attention import Formula, Switches, lab_forward
from ..i18n import mark, t

TOP = 5
MESSAGES = {
    "ablate": mark("ablate must be a JSON list of [layer, head] pairs, like [[0, 1], [5, 3]]"),
    "head": mark("ablate names layer {layer} head {head}, but the model has layers 0-{L} and heads 0-{H}"),
    "short": mark("the sentence needs at least two tokens: the loss is each token predicted from the ones before it"),
}
MAX_PAIRS = 4096  # more [layer, head] pairs than any model here has heads is a mistake, not a request


@dataclass(frozen=True)
class Breakage:
    """What the student changed: the causal mask, the scaling, the heads taken out, a variant in the model's place."""

    causal: bool = True
    scaled: bool = True
    ablate: tuple[tuple[int, int], ...] = ()  # (layer, query head)
    variant: str = ""  # a registered variant's name ("" = the model's own formula)
    options: tuple[tuple[str, Any], ...] = ()  # its options, sorted (hashable: a cache key)
    layer: int | None = None  # the one layer the variant runs in (None = every layer)

    @property
    def intact(self) -> bool:
        return self.causal and self.scaled and not self.ablate and not self.variant


def parse_ablate(value: Any, n_layers: int, n_heads: int) -> tuple[tuple[int, int], ...]:
    """'[[0, 1], [5, 3]]' (or a list) -> ((0, 1), (5, 3)); ConfigError in one sentence otherwise."""
    try:
        raw = json.loads(value) if isinstance(value, str) else value
        if not isinstance(raw, (list, tuple)) or len(raw) > MAX_PAIRS or \
                not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in raw):
            raise ValueError
        if any(isinstance(n, bool) or not isinstance(n, (int, float)) or float(n) != int(n) for p in raw for n in p):
            raise ValueError  # 1.5 is no head; true is no number
        pairs = [(int(la), int(h)) for la, h in raw]
    except (TypeError, ValueError, OverflowError, RecursionError):
        raise ConfigError(t(MESSAGES["ablate"])) from None
    for layer, head in pairs:
        if not (0 <= layer < n_layers and 0 <= head < n_heads):
            raise ConfigError(t(MESSAGES["head"], layer=layer, head=head, L=n_layers - 1, H=n_heads - 1))
    return tuple(sorted(set(pairs)))


def switches(breakage: Breakage, formula: Formula | None = None) -> Switches:
    """The runtime's switches for a breakage; `formula` is the variant's (core.lab.real_variant), when one runs."""
    return Switches(causal=breakage.causal, scaled=breakage.scaled, ablate=frozenset(breakage.ablate),
                    variant=formula if breakage.variant else None,
                    variant_key=(breakage.variant, breakage.options) if breakage.variant else None,
                    variant_layers=None if breakage.layer is None else frozenset({breakage.layer}))


@dataclass(frozen=True)
class Side:
    """One model's answer on the sentence: every layer's weights, its next-word top 5, its loss."""

    weights: Tensor  # (L, H, T, T)
    next_words: list[tuple[str, float]]  # the likeliest next tokens after the sentence, with probabilities
    loss_bits: float  # mean over t of -log2 p(token t+1 | tokens up to t)
    allowed: Tensor | None = None  # (L, T, T) bool: what each layer let each query see (its triangle, its band)


def _side(logits: Tensor, weights: Tensor, ids: list[int], tokenizer: Any, allowed: Tensor | None = None) -> Side:
    logp = torch.log_softmax(logits.float(), -1)  # (T, V)
    target = torch.tensor(ids[1:])  # (T-1,)
    loss = float(-logp[:-1].gather(1, target[:, None]).mean()) / math.log(2)
    top = torch.topk(logp[-1].exp(), TOP)
    return Side(weights, [(tokenizer.decode([int(i)]), float(p)) for p, i in zip(*top, strict=True)], loss, allowed)


def side(model: Any, tokenizer: Any, ids: list[int], breakage: Breakage, formula: Formula | None = None) -> Side:
    """One model's answer on the tokens, broken as `breakage` says (the model itself is never patched)."""
    if len(ids) < 2:
        raise ConfigError(t(MESSAGES["short"]))
    run = lab_forward(model, ids, switches(breakage, formula))
    return _side(run.logits, run.weights, ids, tokenizer, run.allowed)


def intact_and_broken(model: Any, tokenizer: Any, ids: list[int], breakage: Breakage,
                      formula: Formula | None = None) -> tuple[Side, Side]:
    """The intact model and the broken one on the same tokens."""
    intact = side(model, tokenizer, ids, Breakage())
    return intact, (intact if breakage.intact else side(model, tokenizer, ids, breakage, formula))


def payload(tokens: list[str], intact: Side, broken: Side, architecture: dict[str, Any] | None = None,
            digits: int = 4) -> dict[str, Any]:
    """The /model_attention JSON: the broken model's weights [L][H][T][T]; both sides' words and losses; the model's
    architecture (family, n_layers, n_heads, n_kv_heads, windows)."""
    out = {
        "tokens": tokens,
        "weights": torch.round(broken.weights, decimals=digits).tolist(),
        "next_words": [[w, round(p, digits)] for w, p in broken.next_words],
        "loss_bits": round(broken.loss_bits, digits),
        "intact": {"next_words": [[w, round(p, digits)] for w, p in intact.next_words],
                   "loss_bits": round(intact.loss_bits, digits)},
    }
    if architecture is not None:
        out["architecture"] = architecture
    return out
