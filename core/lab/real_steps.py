"""A real model's layer, step by step and under a causality test: the Step-through and Causality views on any family.

Step through: one layer and head, from the hidden states that really enter that layer (every earlier layer run
with the student's switches): Q and K as its projections make them, then — RoPE as the step it is — Q and K
rotated by their positions, V, the scores, scaled (by the model's own scale), capped (Gemma 2), masked (its
causal triangle and, in a sliding-window layer, its band), weights and context. A query head reads the KV head
of its group. Causality: change one later token; with the causal mask every earlier row of every layer and
head stays exactly as it was, and the later rows move. Both are measured, never assumed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from ..config import ConfigError
from ..gpt.lab_attention import Formula, attention_modules, lab_forward
from ..gpt.pretrained import Architecture, architecture
from ..i18n import mark, t
from .broken_model import Breakage, switches
from .session import rounded
from .steps import LATEX, Stage, _dims_header, _tokens_header

STAGES = {  # field -> (name a student reads, LaTeX); the order is the layer's
    "q_pre": (mark("Q before RoPE"), r"Q = X\,W_q^{(h)}"),
    "k_pre": (mark("K before RoPE"), r"K = X\,W_k^{(g)}"),
    "q": (mark("Q"), LATEX["Q"]),
    "k": (mark("K"), LATEX["K"]),
    "v": (mark("V"), LATEX["V"]),
    "scores": (mark("scores"), LATEX["scores"]),
    "scaled": (mark("scaled"), LATEX["scaled"]),
    "capped": (mark("capped"), r"\hat S = c\,\tanh(\tilde S / c)"),
    "masked": (mark("masked"), LATEX["masked"]),
    "weights": (mark("weights"), LATEX["weights"]),
    "context": (mark("context"), LATEX["context"]),
}
ROTATED = {"q": (mark("Q after RoPE"), r"Q' = \operatorname{RoPE}_{t}(Q)"),
           "k": (mark("K after RoPE"), r"K' = \operatorname{RoPE}_{t}(K)")}
FIELDS = tuple(STAGES)
TOKEN_FIELDS = ("scores", "scaled", "capped", "masked", "weights")
FORMULAS = {
    "q_gpt2": mark("Q = ln_1(x) · W_q  (the first third of the layer's QKV projection, GPT-2's c_attn; layer "
                   "{layer} head {head})"),
    "k_gpt2": mark("K = ln_1(x) · W_k  (its second third)"),
    "v_gpt2": mark("V = ln_1(x) · W_v  (its last third)"),
    "q_pre": mark("Q = norm(x) · W_q, before any rotation  (layer {layer}, query head {head})"),
    "k_pre": mark("K = norm(x) · W_k, before any rotation  (key/value head {kv}, which query heads {first} to {last} "
                  "share)"),
    "q": mark("Q after RoPE: each pair of its {d_head} numbers turned by an angle that grows with the token's "
              "position"),
    "k": mark("K after RoPE, turned the same way: Q · Kᵀ now depends on how far apart two tokens are"),
    "v": mark("V = norm(x) · W_v  (key/value head {kv}: no rotation, values carry no position)"),
    "scores": mark("scores = Q · Kᵀ"),
    "scaled": mark("scaled = scores / √d_head, d_head = {d_head}"),
    "scaled_own": mark("scaled = scores × {scale:.4g}  (this model's own scale: 1/√{root:.4g})"),
    "scaled_off": mark("scaled = scores (the √d scaling is switched off)"),
    "capped": mark("capped = {cap:g} · tanh(scaled / {cap:g})  (every score kept between -{cap:g} and {cap:g})"),
    "masked": mark("masked = scaled, with -inf where the causal mask says no"),
    "masked_window": mark("masked = scaled, with -inf where the causal mask or this layer's window of {window} "
                          "tokens says no"),
    "masked_off": mark("masked = scaled (the causal mask is switched off: nothing is blocked)"),
    "weights": mark("weights = softmax(masked) over each row"),
    "context": mark("context = weights · V"),
    "context_zeroed": mark("context = weights · V  (this head is zeroed: its context never reaches the output "
                           "projection)"),
    "variant": mark("{stage}: the variant {variant}'s own formula, run in this layer in the model's place"),
}
MESSAGES = {
    "layer": mark("layer={value} does not exist; this model has layers 0 to {last}"),
    "head": mark("head={value} does not exist; this model has heads 0 to {last}"),
    "position": mark("position={value} is not a token of the sentence; choose 1 to {last} (token 0 has nothing "
                     "before it)"),
    "word": mark("the replacement '{word}' is {n} tokens for this model; type one that is a single token "
                 "(e.g. ' dog')"),
    "same": mark("the replacement '{word}' is the token already at position {position}; type a different one"),
}


@dataclass(frozen=True)
class LayerSteps:
    """One head of one real layer on the sentence: every stage as a tensor, and where it came from."""

    layer: int
    head: int
    kv_head: int  # the key/value head this query head reads
    arch: Architecture
    breakage: Breakage
    scale: float  # what the model multiplies its scores by (1/√d_head, or Gemma's own)
    x: Tensor  # (T, d) the hidden states entering the layer (before its norm)
    stages: dict[str, Tensor]  # field -> (T, hd) or (T, T) for this head
    zeroed: bool = False  # this head's output is zeroed

    def fields(self) -> list[str]:
        """The stages this layer has, in its order (no RoPE for GPT-2, no cap but for Gemma 2)."""
        return [f for f in FIELDS if f in self.stages]

    def formula(self, field: str) -> str:
        """The stage's formula in the reader's language."""
        arch, b = self.arch, self.breakage
        group = arch.group
        values = dict(layer=self.layer, head=self.head, kv=self.kv_head, first=self.kv_head * group,
                      last=(self.kv_head + 1) * group - 1, d_head=arch.head_dim)
        if b.variant and (b.layer is None or b.layer == self.layer) and field in TOKEN_FIELDS + ("context",):
            return t(FORMULAS["variant"], stage=t(STAGES[field][0]), variant=b.variant)
        if not arch.rope and field in ("q", "k", "v"):
            return t(FORMULAS[field + "_gpt2"], **values)
        if field == "scaled":
            if not b.scaled:
                return t(FORMULAS["scaled_off"])
            if abs(self.scale - arch.head_dim ** -0.5) > 1e-9:
                return t(FORMULAS["scaled_own"], scale=self.scale, root=self.scale ** -2)
        if field == "capped":
            return t(FORMULAS["capped"], cap=arch.softcap or 0.0)
        if field == "masked":
            window = arch.windows[self.layer]
            key = "masked_off" if not b.causal else ("masked_window" if window else "masked")
            return t(FORMULAS[key], window=window)
        if field == "context" and self.zeroed:
            return t(FORMULAS["context_zeroed"])
        return t(FORMULAS[field], **values)

    def shown(self, tokens: list[str], digits: int = 4) -> list[Stage]:
        """The stages as the Step-through view draws them (core.render.tab_matrices.stage)."""
        hd = self.arch.head_dim
        toks = _tokens_header(tuple(tokens))
        out = []
        for field in self.fields():
            name, latex = ROTATED[field] if (field in ROTATED and self.arch.rope) else STAGES[field]
            if field == "scaled" and not self.breakage.scaled:
                latex = LATEX["scaled (off)"]
            elif field == "scaled" and abs(self.scale - hd ** -0.5) > 1e-9:
                latex = r"\tilde S = s\,S"  # the model's own scale s (Gemma's 1/sqrt(query_pre_attn_scalar))
            tensor = self.stages[field]
            is_tokens = field in TOKEN_FIELDS
            cols = toks if is_tokens else _dims_header(hd, field[0])
            out.append(Stage(t(name), self.formula(field), tuple(tensor.shape), rounded(tensor, digits), cols, latex,
                             columns_are_tokens=is_tokens, field=field))
        return out


def check(name: str, value: Any, n: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
        raise ConfigError(t(MESSAGES[name], value=str(value)[:20], last=n - 1))
    return value


def _before_rope(module: Any, x: Tensor, n: int, hd: int, which: str) -> Tensor:
    """(T, d) normed states -> (n, T, hd): the module's own q_proj/k_proj (and q_norm/k_norm), before rotation."""
    out = getattr(module, f"{which}_proj")(x).view(x.shape[0], n, hd)  # (T, n, hd)
    norm = getattr(module, f"{which}_norm", None)
    return (norm(out) if norm is not None else out).transpose(0, 1)  # (n, T, hd)


@torch.no_grad()
def layer_steps(model: Any, ids: list[int], layer: int, head: int, breakage: Breakage = Breakage(),
                formula: Formula | None = None) -> LayerSteps:
    """Every stage of `head` in `layer`, the earlier layers run with the same switches (the model is not patched)."""
    arch = architecture(model)
    check("layer", layer, arch.n_layers)
    check("head", head, arch.n_heads)
    run = lab_forward(model, ids, switches(breakage, formula), steps_layer=layer)
    st = run.stages
    kv = head // arch.group
    picked = {f: st[f][kv if f in ("k", "v") else head] for f in FIELDS if f in st}  # (T, hd) / (T, T)
    module = attention_modules(model)[layer]
    if arch.rope and run.attention_input is not None:
        picked["q_pre"] = _before_rope(module, run.attention_input, arch.n_heads, arch.head_dim, "q")[head]
        picked["k_pre"] = _before_rope(module, run.attention_input, arch.n_kv_heads, arch.head_dim, "k")[kv]
    scale = float(getattr(module, "scaling", arch.head_dim ** -0.5) or 1.0)
    zeroed = head in st.get("zeroed", torch.tensor([])).tolist()
    assert run.hidden is not None
    return LayerSteps(layer, head, kv, arch, breakage, scale, run.hidden, picked, zeroed)


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


def replacement(tokenizer: Any, word: str, ids: list[int], position: int) -> int:
    """The one token id `word` is for this tokenizer; ConfigError in one sentence otherwise."""
    if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position < len(ids):
        raise ConfigError(t(MESSAGES["position"], value=str(position)[:20], last=len(ids) - 1))
    new = [i for i in tokenizer.encode(word) if i not in _specials(tokenizer)]  # Gemma's <bos> is not the word
    if len(new) != 1:
        raise ConfigError(t(MESSAGES["word"], word=word[:40], n=len(new)))
    if new[0] == ids[position]:
        raise ConfigError(t(MESSAGES["same"], word=word[:40], position=position))
    return new[0]


def _specials(tokenizer: Any) -> set[int]:
    hf = getattr(tokenizer, "hf", None)
    return set(getattr(hf, "all_special_ids", None) or ())


@torch.no_grad()
def causality(model: Any, ids: list[int], position: int, new_id: int, breakage: Breakage = Breakage(),
              formula: Formula | None = None) -> Causality:
    """The sentence and the sentence with token `position` replaced by `new_id`, through every layer."""
    edited = list(ids)
    edited[position] = new_id
    sw = switches(breakage, formula)
    a, b = lab_forward(model, ids, sw), lab_forward(model, edited, sw)
    delta = (b.weights - a.weights).abs()  # (L, H, T, T)
    earlier = float(delta[:, :, :position].max())
    later = float(delta[:, :, position:].max())
    logits_earlier = float((b.logits[:position] - a.logits[:position]).abs().max())
    return Causality(position, a.weights, b.weights, earlier, later, logits_earlier)
