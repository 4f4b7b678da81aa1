"""The one attention formula, owned once: the module (forward, trace, cached) and the formula written out.

The fast kernels (sdpa, the banded window, the cached step) live in core.fast_paths; every path calls
AttentionModule.formula(), so they compute what trace() shows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .config import AttentionConfig
from .fast_paths import NEG_INF, CachedDecoding, sdpa
from .masks import causal_mask, combine_masks

__all__ = ["NEG_INF", "AttentionModule", "AttentionTrace", "attend", "merge_heads", "no_empty_rows", "repeat_kv",
           "sdpa", "split_heads", "zero_padding"]  # sdpa lives in core.fast_paths; imported from here too


# ---- the formula written out, and the head and padding helpers every path shares ------------------------


def attend(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    scaled: bool = True,
    dropout: float = 0.0,
    training: bool = False,
    bias: Tensor | None = None,
    *,
    score: Callable[[Tensor, Tensor], Tensor] | None = None,
    normalise: Callable[[Tensor], Tensor] | None = None,
    fill: float = NEG_INF,
    combine: Callable[[Tensor], Tensor] | None = None,
) -> dict[str, Tensor]:
    """The formula written out stage by stage; works on (T, hd) or (B, H, T, hd) inputs.

    score(q, k) and normalise(masked) default to q @ k^T and a softmax over keys; forbidden
    positions of `masked` hold `fill`. A score with one more axis, (..., M, T, T), is M maps per
    head: each is scaled, biased, masked and normalised on its own, then combine(maps) -> (..., T, T).
    """
    if q.dim() == 4 and k.shape[1] != q.shape[1]:
        k, v = repeat_kv(k, q.shape[1]), repeat_kv(v, q.shape[1])  # (B, H, T, hd)
    scores = q @ k.transpose(-2, -1) if score is None else score(q, k)  # (..., T, T) or (..., M, T, T)
    several = scores.dim() == q.dim() + 1  # M maps per head (differential attention)
    map_mask = mask.unsqueeze(-3) if several and mask is not None else mask  # (..., 1, T, T)
    scaled_scores = scores / math.sqrt(q.shape[-1]) if scaled else scores
    if bias is not None:  # (H|1, T, T) e.g. ALiBi, the same for every map
        scaled_scores = scaled_scores + (bias.unsqueeze(-3) if several else bias)
    masked = scaled_scores if mask is None else scaled_scores.masked_fill(~map_mask, fill)
    weights = torch.softmax(masked, dim=-1) if normalise is None else normalise(masked)  # (..., [M,] T, T)
    stages = {}
    if several:
        stages["maps"] = weights if mask is None else weights.masked_fill(~map_mask, 0.0)  # (..., M, T, T)
        weights = (combine or (lambda m: m.sum(-3)))(stages["maps"])  # (..., T, T) e.g. A1 - λ·A2
    weights = weights if mask is None else weights.masked_fill(~mask, 0.0)  # nothing where the mask says no
    weights = F.dropout(weights, p=dropout, training=training) if dropout else weights
    context = weights @ v  # (..., T, hd)
    return {"scores": scores, "scaled": scaled_scores, "masked": masked, "weights": weights, "context": context,
            **stages}


def no_empty_rows(mask: Tensor, key_padding_mask: Tensor | None) -> Tensor:
    """Let padding query rows see every key (they are zeroed afterwards), so no row of the mask is all False.

    mask (B|1, 1, T, T) bool, key_padding_mask (B, T) True = real token -> (B|1, 1, T, T). A softmax over a
    row of -inf is NaN; this is how the lab keeps padding rows finite.
    """
    if key_padding_mask is None:
        return mask
    return mask | ~key_padding_mask[:, None, :, None]  # (B, 1, T, T)


def zero_padding(out: Tensor, key_padding_mask: Tensor | None) -> Tensor:
    """Zero the rows of padding queries: out (B, T, d), key_padding_mask (B, T) True = real token."""
    if key_padding_mask is None:
        return out
    return out * key_padding_mask[..., None]  # (B, T, d)


def repeat_kv(t: Tensor, n_heads: int) -> Tensor:
    """(B, Hkv, T, hd) -> (B, n_heads, T, hd): K/V head g serves query heads g*group .. (g+1)*group-1."""
    return t if t.shape[1] == n_heads else t.repeat_interleave(n_heads // t.shape[1], dim=1)


def split_heads(t: Tensor, n_heads: int) -> Tensor:
    """(B, T, n_heads*hd) -> (B, n_heads, T, hd)."""
    B, T, C = t.shape
    return t.view(B, T, n_heads, C // n_heads).transpose(1, 2)


def merge_heads(t: Tensor) -> Tensor:
    """(B, H, T, hd) -> (B, T, H*hd): heads side by side, head h in columns h*hd:(h+1)*hd."""
    B, H, T, hd = t.shape
    return t.transpose(1, 2).reshape(B, T, H * hd)


# ---- the module ---------------------------------------------------------------------------------


@dataclass
class AttentionTrace:
    """Every stage of one pass, so a student can look at each (B, H, T, ·) tensor.

    B batch, H query heads, Hkv key/value heads (Hkv divides H), T tokens, hd head width.
    Invariants the conformance kit checks: `masked` equals `scaled` where `mask` is True and holds
    the module's `fill` (-inf by default) where it is False; `weights` is zero where `mask` is False
    and on padding query rows; `context == weights @ v` (K/V head h // (H / Hkv) for query head h);
    `output` is what `forward` returns for the same input.
    """

    q: Tensor  # (B, H, T, hd)    queries, as project() made them (after any rotation, e.g. RoPE)
    k: Tensor  # (B, Hkv, T, hd)  keys
    v: Tensor  # (B, Hkv, T, hd)  values
    scores: Tensor  # (B, H, T, T)   score(q, k): q @ k^T by default
    scaled: Tensor  # (B, H, T, T)   scores / sqrt(hd) (scores when config.scaled is False), plus bias()
    mask: Tensor  # (B|1, 1, T, T)   bool, True = may attend: allowed(T) joined with padding keys and queries
    masked: Tensor  # (B, H, T, T)   scaled where the mask allows, `fill` (-inf) where it does not
    weights: Tensor  # (B, H, T, T)  normalise(masked): softmax over keys by default; padding query rows are 0
    context: Tensor  # (B, H, T, hd) weights @ v
    output: Tensor  # (B, T, d_model) merge(context): heads merged, then the output projection
    maps: dict[str, Tensor] = field(default_factory=dict)  # name -> (B, H, T, T) per map, when a module has several

    def per_map(self, name: str) -> Tensor:
        """scores, scaled or masked as (B, H, M, T, T): one map per name in `maps` (M = 1 for a one-map variant)."""
        t = getattr(self, name)
        return t if t.dim() == 5 else t.unsqueeze(2)

    def first_map(self, name: str) -> Tensor:
        """scores, scaled or masked as (B, H, T, T): the only map, or the first of several (a view's hover)."""
        t = getattr(self, name)
        return t[:, :, 0] if t.dim() == 5 else t


class AttentionModule(CachedDecoding, nn.Module):
    """One formula; a variant overrides only the pieces that differ (see docs/plugins.md).

    Projections and mask: build_projections, project, allowed, bias, merge. The formula itself:
    score, fill, normalise. The forward kernel alone: fast_attention. Override any of them and
    forward and trace both follow. Cached decoding (forward_cached) reuses the same pieces on
    absolute positions: allowed_at and bias_at default to allowed() and bias(), and reachable()
    lets a rolling cache drop old keys.
    """

    fill: float = NEG_INF  # what `masked` holds where the mask says no; softmax turns -inf into weight 0
    keep_init: tuple[str, ...] = ()  # parameter names (or patterns, "*" = all) the lab's seeded draw leaves as built
    maps: tuple[str, ...] = ()  # names of the maps per head when score() returns several (B, H, M, T, T)

    def __init__(
        self,
        config: AttentionConfig,
        *,
        n_heads: int | None = None,
        n_kv_heads: int | None = None,
        head_dim: int | None = None,
    ) -> None:
        super().__init__()
        self.config = config
        self.n_heads = n_heads or config.n_heads
        self.n_kv_heads = n_kv_heads or self.n_heads
        self.head_dim = head_dim or config.d_model // self.n_heads
        self.build_projections()

    # ---- projections and mask: what most variants override ----------------------------

    def build_projections(self) -> None:
        """Default layout: one fused q|k|v projection and an output projection."""
        d, hd = self.config.d_model, self.head_dim
        self.qkv = nn.Linear(d, (self.n_heads + 2 * self.n_kv_heads) * hd, bias=self.config.bias)
        self.proj = nn.Linear(self.n_heads * hd, d, bias=self.config.bias)

    def project(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """x (B, T, d) -> q (B, H, T, hd), k and v (B, Hkv, T, hd)."""
        H, Hkv, hd = self.n_heads, self.n_kv_heads, self.head_dim
        q, k, v = self.qkv(x).split([H * hd, Hkv * hd, Hkv * hd], dim=-1)
        return split_heads(q, H), split_heads(k, Hkv), split_heads(v, Hkv)

    def allowed(self, T: int, device: torch.device | str | None = None) -> Tensor | None:
        """Which keys each query may see, (T, T) with True = may attend; None = all."""
        return causal_mask(T, device) if self.config.causal else None

    def bias(self, T: int, device: torch.device | str | None = None) -> Tensor | None:
        """A float (H|1, T, T) added to the scaled scores before masking (ALiBi, relative positions); None = none."""
        return None

    def merge(self, context: Tensor) -> Tensor:
        """context (B, H, T, hd) -> (B, T, d_model): concatenate heads, then project."""
        return self.proj(merge_heads(context))

    # ---- the formula: what a different kind of attention overrides ---------------------

    def score(self, q: Tensor, k: Tensor) -> Tensor:
        """q (B, H, T, hd), k (B, H, T, hd) (K/V heads already repeated per group) -> scores (B, H, T, T)."""
        return q @ k.transpose(-2, -1)

    def normalise(self, masked: Tensor) -> Tensor:
        """masked (B, H, T, T) -> weights (B, H, T, T): a softmax over keys, so each row sums to 1."""
        return torch.softmax(masked, dim=-1)

    def combine(self, maps: Tensor) -> Tensor:
        """Only with `maps`: each map's weights (B, H, M, T, T) -> the head's weights (B, H, T, T); their sum."""
        return maps.sum(dim=2)

    # ---- the two paths ---------------------------------------------------------------

    def forward(self, x: Tensor, key_padding_mask: Tensor | None = None) -> Tensor:
        """Fast path; x (B, T, d) -> (B, T, d_model). Padding query rows come out zero."""
        self._check_input(x, key_padding_mask)
        q, k, v = self.project(x)  # (B, H, T, hd), (B, Hkv, T, hd) x2
        context = self.fast_attention(q, k, v, key_padding_mask)  # (B, H, T, hd)
        return zero_padding(self.merge(context), key_padding_mask)

    def fast_attention(self, q: Tensor, k: Tensor, v: Tensor, key_padding_mask: Tensor | None = None) -> Tensor:
        """The forward kernel: q (B, H, T, hd), k and v (B, Hkv, T, hd), key_padding_mask (B, T) or None
        -> context (B, H, T, hd); padding query rows may hold anything (forward zeroes them after merge).

        Override it (never forward) for a faster kernel; the kit checks it against trace().
        """
        T = q.shape[2]
        bias = self.bias(T, q.device)  # (H|1, T, T) float or None
        # plain causal attention lets SDPA build the triangle itself (no (T, T) mask in memory)
        plain_causal = key_padding_mask is None and self.config.causal and self._uses_default_mask() and bias is None
        mask = None if plain_causal else self.attention_mask(T, key_padding_mask, q.device)
        mask = None if mask is None else no_empty_rows(mask, key_padding_mask)  # (B|1, 1, T, T)
        return self.formula(q, k, v, mask, bias, is_causal=plain_causal)  # (B, H, T, hd)

    def formula(
        self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None, bias: Tensor | None = None,
        *, is_causal: bool = False,
    ) -> Tensor:
        """The one formula for every fast path (forward, cached, banded): q (B, H, Tq, hd) over k, v (B, Hkv, Tk, hd)
        -> context (B, H, Tq, hd); mask (..., Tq, Tk) bool, True = may attend; bias (H|1, Tq, Tk) float.

        The stock score/fill/normalise go to torch's fused kernel (sdpa); a variant's own go through attend(),
        the explicit path trace() keeps, so both paths compute the same thing by construction.
        """
        if self._uses_default_formula():
            dropout = self.config.dropout if self.training else 0.0
            return sdpa(q, k, v, mask, bias, scaled=self.config.scaled, dropout=dropout, is_causal=is_causal)
        if is_causal:  # the explicit formula needs the triangle written out
            mask = causal_mask(q.shape[2], q.device)  # (T, T)
        return self.explicit(q, k, v, mask, bias)["context"]

    def explicit(
        self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None, bias: Tensor | None = None
    ) -> dict[str, Tensor]:
        """attend() with this module's scaling, score, fill and normalise: every stage, for trace() and formula()."""
        return attend(q, k, v, mask=mask, scaled=self.config.scaled, dropout=self.config.dropout,
                      training=self.training, bias=bias, score=self.score, normalise=self.normalise, fill=self.fill,
                      combine=self.combine)

    def trace(self, x: Tensor, key_padding_mask: Tensor | None = None) -> AttentionTrace:
        """Explicit path: the same result as forward, with every stage kept."""
        self._check_input(x, key_padding_mask)
        B, T, _ = x.shape
        q, k, v = self.project(x)
        mask = self.attention_mask(T, key_padding_mask, x.device)
        if mask is None:
            mask = torch.ones(1, 1, T, T, dtype=torch.bool, device=x.device)
        stages = self.explicit(q, k, v, no_empty_rows(mask, key_padding_mask), self.bias(T, x.device))
        maps = stages.pop("maps", None)  # (B, H, M, T, T) when score() gave several maps per head
        if key_padding_mask is not None:  # padding queries: computed, then zeroed
            query_real = key_padding_mask[:, None, :, None]  # (B, 1, T, 1)
            mask = mask & query_real
            stages["weights"] = stages["weights"] * query_real
            stages["context"] = stages["context"] * query_real
            maps = None if maps is None else maps * query_real[:, :, None]  # (B, H, M, T, T)
        output = zero_padding(self.merge(stages["context"]), key_padding_mask)
        named = {} if maps is None else {name: maps[:, :, i] for i, name in enumerate(self.map_names(maps.shape[2]))}
        return AttentionTrace(q=q, k=k, v=v, mask=mask, output=output, maps=named, **stages)

    def attention_mask(
        self, T: int, key_padding_mask: Tensor | None = None, device: torch.device | str | None = None
    ) -> Tensor | None:
        """allowed(T) joined with padding keys: (B|1, 1, T, T) bool, True = may attend; None when every key is visible."""
        allowed = self.allowed(T, device)
        if key_padding_mask is not None:
            return combine_masks(allowed, key_padding_mask)  # (B, 1, T, T)
        return None if allowed is None else allowed[None, None]  # (1, 1, T, T)

    # ---- helpers ---------------------------------------------------------------------

    def map_names(self, n: int) -> tuple[str, ...]:
        """The declared `maps`, or 'map 0', 'map 1', ... when a module returns n maps and names none."""
        return tuple(self.maps) if len(self.maps) == n else tuple(f"map {i}" for i in range(n))

    def _uses_default_mask(self) -> bool:
        """True when allowed() is the stock causal/full mask, so SDPA's is_causal can stand in."""
        return type(self).allowed is AttentionModule.allowed

    def _uses_default_formula(self) -> bool:
        """True when score, fill and normalise are the stock softmax formula, so SDPA computes it."""
        cls = type(self)
        return (cls.score is AttentionModule.score and cls.normalise is AttentionModule.normalise
                and self.fill == NEG_INF and not self.maps)

    def _check_input(self, x: Tensor, key_padding_mask: Tensor | None) -> None:
        if x.dim() != 3 or x.shape[-1] != self.config.d_model:
            raise ValueError(
                f"input has shape {tuple(x.shape)}; attention expects (batch, tokens, d_model={self.config.d_model})"
            )
        if key_padding_mask is not None:
            if key_padding_mask.dtype != torch.bool or key_padding_mask.shape != x.shape[:2]:
                raise ValueError(
                    f"key_padding_mask must be a bool tensor of shape {tuple(x.shape[:2])} with True = real token"
                )
