"""A real model's layer, step by step and under a causality test: the Step-through and Causality views on GPT-2.

Step through: one layer and head, from the hidden states that really enter that layer (every earlier
layer run with the student's toggles): its Q, K, V (GPT-2's c_attn split), scores, scaled, masked,
weights and context. Causality: change one later token; with the causal mask, every earlier row of
every layer and head stays exactly as it was, and the later rows move. Both are measured, never assumed.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from ..config import ConfigError
from ..model import GPT
from .ablate import edited_run, run_layers
from .session import rounded
from .steps import LATEX, STAGE_NAMES, Stage, _dims_header, _tokens_header

FIELDS = ("q", "k", "v", "scores", "scaled", "masked", "weights", "context")
FORMULAS = {
    "q": "Q = ln_1(x) · W_q  (the first third of the layer's QKV projection, GPT-2's c_attn; layer {layer} head {head})",
    "k": "K = ln_1(x) · W_k  (its second third)",
    "v": "V = ln_1(x) · W_v  (its last third)",
    "scores": "scores = Q · Kᵀ",
    "scaled": "scaled = scores / √d_head, d_head = {d_head}",
    "scaled_off": "scaled = scores (the √d scaling is switched off)",
    "masked": "masked = scaled, with -inf where the causal mask says no",
    "masked_off": "masked = scaled (the causal mask is switched off: nothing is blocked)",
    "weights": "weights = softmax(masked) over each row",
    "context": "context = weights · V",
}
MESSAGES = {
    "layer": "layer={value} does not exist; this model has layers 0 to {last}",
    "head": "head={value} does not exist; this model has heads 0 to {last}",
    "position": "position={value} is not a token of the sentence; choose 1 to {last} (token 0 has nothing before it)",
    "word": "the replacement {word!r} is {n} tokens for this model; type one that is a single token (e.g. ' dog')",
    "same": "the replacement {word!r} is the token already at position {position}; type a different one",
}


@dataclass(frozen=True)
class LayerSteps:
    """One head of one real layer on the sentence: every stage as a tensor, and where it came from."""

    layer: int
    head: int
    causal: bool
    scaled: bool
    x: Tensor  # (T, d) the hidden states entering the layer (before its ln_1)
    stages: dict[str, Tensor]  # field -> (T, hd) or (T, T) for this head

    def shown(self, tokens: list[str], digits: int = 4) -> list[Stage]:
        """The stages as the Step-through view draws them (core.render.tab_matrices.stage)."""
        hd = self.stages["q"].shape[-1]
        toks = _tokens_header(tuple(tokens))
        out = []
        for field in FIELDS:
            key = field + ("_off" if (field == "scaled" and not self.scaled) or
                           (field == "masked" and not self.causal) else "")
            formula = FORMULAS[key].format(layer=self.layer, head=self.head, d_head=hd)
            latex = LATEX.get("scaled (off)" if key == "scaled_off" else STAGE_NAMES[field], "")
            t = self.stages[field]
            cols = toks if t.shape[-1] == len(tokens) and field in ("scores", "scaled", "masked", "weights") \
                else _dims_header(hd, field[0])
            out.append(Stage(STAGE_NAMES[field], formula, tuple(t.shape), rounded(t, digits), cols, latex))
        return out


def _check(name: str, value: int, n: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
        raise ConfigError(MESSAGES[name].format(value=value, last=n - 1))
    return value


@torch.no_grad()
def layer_steps(model: GPT, ids: list[int], layer: int, head: int, causal: bool = True,
                scaled: bool = True) -> LayerSteps:
    """Every stage of `head` in `layer`, the earlier layers run with the same toggles (the model is not patched)."""
    _check("layer", layer, len(model.blocks))
    _check("head", head, model.config.n_heads)
    idx = torch.tensor([ids])  # (1, T)
    for at, x, stages in run_layers(model, idx, (), None, causal, scaled):
        if at == layer:
            assert stages is not None
            kv = head // (stages["q"].shape[1] // stages["k"].shape[1])  # the K/V head this head reads
            picked = {f: stages[f][0, kv if f in ("k", "v") else head] for f in FIELDS}  # (T, hd) / (T, T)
            return LayerSteps(layer, head, causal, scaled, x[0], picked)
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class Causality:
    """A later token changed: how far each layer's weights moved, on the rows before it and on the rest."""

    position: int  # the token changed
    before: Tensor  # (L, H, T, T) weights on the sentence
    after: Tensor  # (L, H, T, T) weights with the token changed
    earlier: float  # max |Δ weight| over rows < position, every layer and head (0 exactly with the mask)
    later: float  # max |Δ weight| over rows >= position
    logits_earlier: float  # max |Δ logit| over rows < position: the predictions there did not move either

    @property
    def per_layer(self) -> Tensor:
        """(L, T, T): max |Δ| over the heads, per layer."""
        return (self.after - self.before).abs().amax(dim=1)

    def layer_max(self, earlier: bool) -> list[float]:
        """Per layer, max |Δ| over the rows before the change (earlier) or from it on."""
        rows = self.per_layer[:, :self.position] if earlier else self.per_layer[:, self.position:]
        return [float(r.max()) if r.numel() else 0.0 for r in rows]


def replacement(tokenizer, word: str, ids: list[int], position: int) -> int:
    """The one token id `word` is for this tokenizer; ConfigError in one sentence otherwise."""
    if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position < len(ids):
        raise ConfigError(MESSAGES["position"].format(value=position, last=len(ids) - 1))
    new = tokenizer.encode(word)
    if len(new) != 1:
        raise ConfigError(MESSAGES["word"].format(word=word, n=len(new)))
    if new[0] == ids[position]:
        raise ConfigError(MESSAGES["same"].format(word=word, position=position))
    return new[0]


@torch.no_grad()
def causality(model: GPT, ids: list[int], position: int, new_id: int, causal: bool = True,
              scaled: bool = True) -> Causality:
    """The sentence and the sentence with token `position` replaced by `new_id`, through every layer."""
    edited = list(ids)
    edited[position] = new_id
    logits_a, wa = edited_run(model, torch.tensor([ids]), causal=causal, scaled=scaled)
    logits_b, wb = edited_run(model, torch.tensor([edited]), causal=causal, scaled=scaled)
    before, after = wa[:, 0], wb[:, 0]  # (L, H, T, T)
    delta = (after - before).abs()  # (L, H, T, T)
    earlier = float(delta[:, :, :position].max())
    later = float(delta[:, :, position:].max())
    logits_earlier = float((logits_b[0, :position] - logits_a[0, :position]).abs().max())
    return Causality(position, before, after, earlier, later, logits_earlier)
