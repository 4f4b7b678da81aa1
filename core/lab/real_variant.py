"""A registered variant's formula run inside a real model, in place of the model's own, on the model's q, k and v.

The variant's module is built at the model's width (n_heads query heads of head_dim), with the student's causal
and scaling switches and the variant's own options; what it contributes is its formula: allowed(T), bias(T),
score, fill, normalise, combine (core.attention.AttentionModule.explicit). Its projections are never used: the
model's own Q, K (after RoPE) and V go in. It fits when its heads are the model's, its key/value heads are the
model's or fewer (the model's KV heads averaged into groups, as the GQA paper converts a checkpoint), and its
formula has no learned weights of its own (the model never learnt them); otherwise one sentence says why.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn

from ..config import AttentionConfig
from ..gpt.pretrained import Architecture
from ..i18n import mark, t, t_n
from ..mistakes import ConfigError, choices_text
from ..variant import Variant, construct

MESSAGES = {
    "head_dim": mark("the variant {variant} builds heads of width {got}, but {model}'s are {want} wide"),
    "kv": mark("the variant {variant} with {got} key/value heads cannot take {model}'s {want}: a model's key/value "
               "heads can be averaged into fewer groups ({choices}), never split into more"),
    "params": mark("the variant {variant}'s formula has learned weights of its own ({name}) that {model} never "
                   "learnt, so it cannot run in the model's place"),
    "shape": mark("the variant {variant}'s formula returned {what} of shape {got} for {model}'s queries, not {want}"),
    "layer": mark("layer={value} does not exist; {model} has layers 0 to {last}"),
}
PROJECTIONS = ("W_query", "W_key", "W_value")  # the classic single-head variants' own projection parameters


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _learned(module: nn.Module) -> str | None:
    """The first parameter the formula could read that is not a projection (an nn.Linear's, or W_query ...)."""
    linear = {id(p) for m in module.modules() if isinstance(m, nn.Linear) for p in m.parameters()}
    for name, p in module.named_parameters():
        if id(p) not in linear and name.split(".")[-1] not in PROJECTIONS:
            return name
    return None


def fitted(variant: Variant, options: dict[str, Any], arch: Architecture, model: str, causal: bool = True,
           scaled: bool = True) -> nn.Module:
    """The variant's module at the model's shape (ConfigError in one sentence when its formula cannot run there)."""
    config = AttentionConfig(d_model=arch.n_heads * arch.head_dim, n_heads=arch.n_heads, causal=causal,
                             scaled=scaled, dropout=0.0, options=options)
    try:
        with torch.device("meta"):  # its projections are never used: shapes only, no memory
            module = construct(variant, config)
        if any(True for _ in module.buffers()):
            raise RuntimeError  # a formula that reads a buffer needs it filled in: build it for real
    except ConfigError:
        raise
    except Exception:
        module = construct(variant, config)
    name = variant.name
    if module.n_heads != arch.n_heads:
        raise ConfigError(t_n("the variant {variant} builds {n} query head at this model's width, but {model} has "
                              "{want} per layer, so its formula cannot take the model's queries",
                              "the variant {variant} builds {n} query heads at this model's width, but {model} has "
                              "{want} per layer, so its formula cannot take the model's queries",
                              module.n_heads, variant=name, model=model, want=arch.n_heads))
    if module.head_dim != arch.head_dim:
        raise ConfigError(t(MESSAGES["head_dim"], variant=name, got=module.head_dim, model=model, want=arch.head_dim))
    kv = module.n_kv_heads
    if kv != arch.n_heads and arch.n_kv_heads % kv:
        raise ConfigError(t(MESSAGES["kv"], variant=name, got=kv, model=model, want=arch.n_kv_heads,
                            choices=choices_text(divisors(arch.n_kv_heads))))
    learned = _learned(module)
    if learned is not None:
        raise ConfigError(t(MESSAGES["params"], variant=name, name=learned, model=model))
    return module.eval()


def pooled(t: Tensor, groups: int) -> Tensor:
    """(B, Hkv, T, hd) -> (B, groups, T, hd): adjacent key/value heads averaged (query head h still reads the group
    holding its own KV head h // (H / Hkv))."""
    B, Hkv, T, hd = t.shape
    return t if groups == Hkv else t.view(B, groups, Hkv // groups, T, hd).mean(dim=2)


def formula(module: nn.Module, arch: Architecture, variant: str = "", model: str = ""):
    """The module's formula as the real model's attention calls it: (q, k, v) -> attend()'s stages."""

    def run(q: Tensor, k: Tensor, v: Tensor) -> dict[str, Tensor]:
        B, H, T, hd = q.shape  # q (B, H, T, hd); k, v (B, Hkv, T, hd)
        kv = module.n_kv_heads
        if kv != H:
            k, v = pooled(k, kv), pooled(v, kv)
        mask = module.attention_mask(T, None, q.device)  # (1, 1, T, T) bool or None
        if mask is None:
            mask = torch.ones(1, 1, T, T, dtype=torch.bool, device=q.device)
        stages = module.explicit(q, k, v, mask, module.bias(T, q.device))
        stages.pop("maps", None)
        for what, want in (("weights", (B, H, T, T)), ("context", (B, H, T, hd))):
            got = tuple(stages[what].shape)
            if got != want:
                raise ConfigError(t(MESSAGES["shape"], variant=variant, what=what, got=got, model=model, want=want))
        return stages

    return run


def layer(value: Any, arch: Architecture, model: str) -> int | None:
    """The variant's layer: None (every layer), or one whole number naming a layer of the model."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < arch.n_layers:
        raise ConfigError(t(MESSAGES["layer"], value=str(value)[:20], model=model, last=arch.n_layers - 1))
    return value
