"""The lab's one attention function inside any transformers decoder: every head recorded, the lab's switches applied.

Registered once (by core.model.load_pretrained, never at import) under transformers' documented AttentionInterface
with a matching AttentionMaskInterface entry, as NAME. A model loaded with attn_implementation=NAME calls `attention`
in every layer with its own q, k (after RoPE) and v; `attention` reads the run in progress (a ContextVar, so
concurrent requests on one shared model never see each other's settings) and:

- records every head's weights (and, for one chosen layer, every stage: the Step-through view);
- lifts the causal mask, drops the scaling, zeroes query heads or whole KV groups, narrows sliding windows;
- or runs a registered variant's formula (a callable on q, k, v) in the layers asked for.

Outside a run it computes what transformers' eager attention computes (and records nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor

from ..i18n import mark, t

NAME = "attention_lab"
NEG_INF = float("-inf")

# A variant's formula in a real layer: (q (B, H, T, hd), k, v (B, Hkv, T, hd)) -> its stages, at least
# "weights" (B, H, T, T) and "context" (B, H, T, hd) (core.formula.attend's dict).
Formula = Callable[[Tensor, Tensor, Tensor], dict]


@dataclass(frozen=True)
class Switches:
    """What the student changed, for every layer at once (the model itself is never patched)."""

    causal: bool = True  # False: every query sees every key (the model's mask and windows lifted)
    scaled: bool = True  # False: no 1/sqrt(d) (nor Gemma's query_pre_attn_scalar) before the softmax
    ablate: frozenset[tuple[int, int]] = frozenset()  # (layer, query head): that head's output zeroed
    ablate_groups: frozenset[tuple[int, int]] = frozenset()  # (layer, KV head): every query head reading it zeroed
    window: int | None = None  # narrow every sliding-window layer to this many keys (None: as built)
    hidden: frozenset[int] = frozenset()  # key positions no later query may see, in any layer (the sink removed)
    variant: Formula | None = field(default=None, compare=False)  # a registered variant's formula, in place
    variant_key: Any = None  # what identifies the variant (cache keys compare this, not the callable)
    variant_layers: frozenset[int] | None = None  # where the variant runs (None: every layer)

    @property
    def intact(self) -> bool:
        return (self.causal and self.scaled and not self.ablate and not self.ablate_groups and self.window is None
                and self.variant is None and not self.hidden)

    def runs_variant(self, layer: int) -> bool:
        return self.variant is not None and (self.variant_layers is None or layer in self.variant_layers)


@dataclass
class Recording:
    """What one run recorded: per layer, its weights (B, H, T, T) and its window; one layer's stages if asked."""

    switches: Switches
    steps_layer: int | None = None
    weights: dict[int, Tensor] = field(default_factory=dict)
    allowed: dict[int, Tensor] = field(default_factory=dict)  # (T, T) bool: what the layer let each query see
    stages: dict[str, Tensor] = field(default_factory=dict)
    attention_input: dict[int, Tensor] = field(default_factory=dict)  # the normed states the layer's attention read


_RUN: ContextVar[Recording | None] = ContextVar("attention_lab_run", default=None)


@contextmanager
def recording(switches: Switches, steps_layer: int | None = None):
    """Within this block every layer of a model loaded with NAME records into the Recording yielded."""
    rec = Recording(switches, steps_layer)
    token = _RUN.set(rec)
    try:
        yield rec
    finally:
        _RUN.reset(token)


def band(T: int, S: int, window: int, device: Any = None) -> Tensor:
    """(T, S) True where key j is one of the `window` latest keys query i may see (itself included)."""
    q = torch.arange(S - T, S, device=device)[:, None]  # queries at the last T positions
    k = torch.arange(S, device=device)[None, :]
    return (q - k < window) & (k <= q)


def _allowed(module: Any, mask: Tensor | None, T: int, S: int, device: Any) -> Tensor:
    """The model's own mask as (T, S) bool, True = may attend (batch element 0: one sentence, no padding)."""
    if mask is None:
        causal = getattr(module, "is_causal", True)
        return band(T, S, S, device) if causal else torch.ones(T, S, dtype=torch.bool, device=device)
    m = mask[0, 0] if mask.dim() == 4 else mask  # (T, S)
    return m if m.dtype == torch.bool else m == 0  # an additive float mask: 0 where allowed


def attention(module: Any, query: Tensor, key: Tensor, value: Tensor, attention_mask: Tensor | None,
              scaling: float | None = None, dropout: float = 0.0, sliding_window: int | None = None,
              softcap: float | None = None, **_: Any) -> tuple[Tensor, Tensor]:
    """transformers' attention-function contract: q (B, H, T, hd), k and v (B, Hkv, S, hd) -> (context (B, T, H, hd),
    weights (B, H, T, S)), computed by the lab's formula with the run's switches."""
    rec = _RUN.get()
    sw = rec.switches if rec is not None else Switches()
    layer = int(getattr(module, "layer_idx", 0) or 0)
    B, H, T, hd = query.shape
    S, Hkv = key.shape[2], key.shape[1]
    own = _allowed(module, attention_mask, T, S, query.device)  # (T, S)
    allowed = own if sw.causal else torch.ones_like(own)
    if sw.window is not None and sliding_window is not None:
        allowed = allowed & band(T, S, min(int(sw.window), int(sliding_window)), query.device)
    for j in sw.hidden:  # key j hidden from every later query (it still sees itself)
        if 0 <= j < S:
            later = torch.arange(S - T, S, device=query.device) > j  # (T,) queries after it
            allowed = allowed & ~(later[:, None] & (torch.arange(S, device=query.device) == j)[None, :])
    stages: dict[str, Tensor]
    if sw.runs_variant(layer):
        assert sw.variant is not None
        stages = dict(sw.variant(query, key, value))
    else:
        k = key.repeat_interleave(H // Hkv, dim=1) if Hkv != H else key  # (B, H, S, hd): query head h reads h // group
        v = value.repeat_interleave(H // Hkv, dim=1) if Hkv != H else value
        scores = query @ k.transpose(-2, -1)  # (B, H, T, S)
        scale = (hd ** -0.5 if scaling is None else scaling) if sw.scaled else 1.0
        scaled = scores * scale
        stages = {"scores": scores, "scaled": scaled}
        if softcap:  # Gemma 2: scores squashed into (-softcap, softcap) before the mask
            scaled = torch.tanh(scaled / softcap) * softcap
            stages["capped"] = scaled
        masked = scaled.masked_fill(~allowed, NEG_INF)  # (B, H, T, S)
        weights = torch.softmax(masked, dim=-1, dtype=torch.float32).to(query.dtype)
        stages.update(masked=masked, weights=weights, context=weights @ v)  # (B, H, T, hd)
    context = stages["context"]
    zero = [h for (la, h) in sw.ablate if la == layer]
    zero += [h for (la, g) in sw.ablate_groups if la == layer for h in range(g * (H // Hkv), (g + 1) * (H // Hkv))]
    if zero:
        context = context.clone()
        context[:, sorted(set(zero))] = 0  # its slice of the output projection's input is zero
    if rec is not None:
        rec.weights[layer] = stages["weights"].detach()
        rec.allowed[layer] = allowed.detach()
        if rec.steps_layer == layer:
            rec.stages = {**{k: t.detach() for k, t in stages.items()}, "q": query.detach(), "k": key.detach(),
                          "v": value.detach(), "allowed": allowed.detach(), "zeroed": torch.tensor(sorted(set(zero)))}
    return context.transpose(1, 2).contiguous(), stages["weights"]  # (B, T, H, hd), (B, H, T, S)


def mask(batch_size: int, q_length: int, kv_length: int, **kwargs: Any) -> Tensor:
    """The mask interface's entry: transformers' own boolean mask (True = may attend), always written out, so
    `attention` sees the model's causal triangle and sliding band as the model builds them."""
    from transformers.masking_utils import sdpa_mask

    kwargs["allow_is_causal_skip"] = False
    kwargs["allow_is_bidirectional_skip"] = False
    return sdpa_mask(batch_size=batch_size, q_length=q_length, kv_length=kv_length, **kwargs)


def register() -> None:
    """Put `attention` and `mask` under NAME in transformers' interfaces (idempotent; called when loading)."""
    from transformers import AttentionInterface, AttentionMaskInterface

    AttentionInterface.register(NAME, attention)
    AttentionMaskInterface.register(NAME, mask)


def capture_inputs(model: Any) -> None:
    """A forward pre-hook on every attention module: the states it reads (after its norm), kept only when the run
    in progress asks for that layer's stages (the Step-through recomputes Q and K before RoPE from them)."""
    for module in attention_modules(model):
        if getattr(module, "_lab_hooked", False):
            continue

        def grab(mod: Any, args: tuple, kwargs: dict) -> None:
            rec = _RUN.get()
            if rec is not None and rec.steps_layer == mod.layer_idx:
                hidden = args[0] if args else kwargs.get("hidden_states")
                if hidden is not None:
                    rec.attention_input[mod.layer_idx] = hidden.detach()

        module.register_forward_pre_hook(grab, with_kwargs=True)
        module._lab_hooked = True


def attention_modules(model: Any) -> list[Any]:
    """The model's self-attention modules in layer order (each has layer_idx and calls the attention interface)."""
    found = [m for m in model.modules()
             if type(m).__name__.endswith("Attention") and isinstance(getattr(m, "layer_idx", None), int)]
    return sorted(found, key=lambda m: m.layer_idx)


@dataclass(frozen=True)
class LabRun:
    """One sentence through a real model with the lab's attention: what every Real model view reads."""

    logits: Tensor  # (T, V)
    weights: Tensor  # (L, H, T, T) what every head computed (a zeroed head's weights too: its output was zeroed)
    allowed: Tensor  # (L, T, T) bool: what each layer let each query see (its causal triangle, its band)
    stages: dict[str, Tensor]  # steps_layer's stages, batch element 0: q, k, v (B dropped), scores, ..., context
    hidden: Tensor | None  # (T, d) the states entering steps_layer (before its norm)
    attention_input: Tensor | None  # (T, d) what steps_layer's attention read (after its norm)


MESSAGES = {
    "implementation": mark("this model runs transformers' '{implementation}' attention, not the lab's: load it with "
                           "core.model.load_pretrained, or call model.set_attn_implementation('attention_lab') after "
                           "core.gpt.lab_attention.register()"),
    "long": mark("the sentence has {n} tokens but this model reads at most {most}; shorten it"),
}


def lab_forward(model: Any, ids: list[int], switches: Switches = Switches(), steps_layer: int | None = None) -> LabRun:
    """Token ids -> the model's logits and every layer's weights under `switches` (one forward pass, no grad)."""
    from ..config import ConfigError

    implementation = getattr(model.config, "_attn_implementation", None)
    if implementation != NAME:
        raise ConfigError(t(MESSAGES["implementation"], implementation=implementation))
    most = getattr(model.config, "n_positions", None) or getattr(model.config, "max_position_embeddings", None)
    if most and len(ids) > most:
        raise ConfigError(t(MESSAGES["long"], n=len(ids), most=most))
    idx = torch.tensor([list(ids)])  # (1, T)
    with torch.no_grad(), recording(switches, steps_layer) as rec:
        out = model(input_ids=idx, use_cache=False, output_hidden_states=steps_layer is not None)
    layers = sorted(rec.weights)
    weights = torch.stack([rec.weights[la][0] for la in layers])  # (L, H, T, T)
    allowed = torch.stack([rec.allowed[la] for la in layers])  # (L, T, T)
    stages = {k: (v[0] if v.dim() == 4 else v) for k, v in rec.stages.items()}
    hidden = out.hidden_states[steps_layer][0] if steps_layer is not None else None
    inp = rec.attention_input.get(steps_layer) if steps_layer is not None else None
    return LabRun(out.logits[0], weights, allowed, stages, hidden, None if inp is None else inp[0])
