"""What a KV cache stores and what it saves, as numbers for a view: counted on the real modules, built on meta.

Shapes come from each layer's own project() (so a variant's head layout is what it really builds),
the keys a rolling cache keeps from its own reachable(), the keys a step may see from its own
allowed_at(): nothing is estimated from a formula written here.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..gpt.block import default_registry
from ..model import GPTConfig
from ..registry import Registry


@dataclass(frozen=True)
class StepWork:
    """What one decoding step computes in every layer: rows projected, then query x key scores per head."""

    tokens_run: int  # tokens through the projections (and the MLP)
    score_rows: int  # queries whose scores are computed
    score_cols: int  # keys each of those queries is scored against
    scores: int  # score_rows x score_cols x query heads x layers: the square without a cache, one row with it
    allowed: int  # of those, the pairs the mask lets through (all layers and heads)
    attention_macs: int  # multiply-adds of q.k^T and weights.v, all layers and heads


@dataclass(frozen=True)
class CacheNumbers:
    """A config's cache after T tokens, and the step that predicts token T+1 with and without it."""

    variant: str
    T: int
    n_layers: int
    query_heads: int
    kv_heads: int  # per layer; fewer than query_heads with GQA
    head_dim: int
    layer_shape: tuple[int, int, int, int]  # K in each layer: (batch 1, kv_heads, kept_tokens, head_dim); V the same
    kept_tokens: int  # keys each layer holds after T tokens: T, or a window's recent ones plus its strided columns
    bytes_per_value: int
    bytes_per_token: int  # K and V of one more token, every layer
    cache_bytes: int  # the whole cache after T tokens
    without_cache: StepWork
    with_cache: StepWork


def cache_numbers(config: GPTConfig, T: int, registry: Registry | None = None, bytes_per_value: int = 2) -> CacheNumbers:
    """Count what a cache holds after T tokens and what the next step computes (fp16 bytes by default)."""
    with torch.device("meta"):  # one layer is enough: every block builds the same attention
        attn = (registry or default_registry()).build(config.variant, config.attention())
        q, k, _ = attn.project(torch.empty(1, 1, config.d_model))  # (1, H, 1, hd), (1, Hkv, 1, hd)
    H, Hkv, hd, L = q.shape[1], k.shape[1], k.shape[3], config.n_layers
    kept = _kept(attn, T)  # positions each layer keeps after T tokens
    seen = torch.arange(T)
    before = _kept(attn, T - 1) if T > 1 else seen[:0]
    step_keys = torch.cat([before, seen[-1:]])  # the new token reads the kept keys and itself
    full = StepWork(
        tokens_run=T, score_rows=T, score_cols=T, scores=T * T * H * L,
        allowed=_allowed(attn, seen, seen) * H * L, attention_macs=2 * T * T * hd * H * L,
    )
    cached = StepWork(
        tokens_run=1, score_rows=1, score_cols=step_keys.numel(), scores=step_keys.numel() * H * L,
        allowed=_allowed(attn, seen[-1:], step_keys) * H * L, attention_macs=2 * step_keys.numel() * hd * H * L,
    )
    per_token = 2 * L * Hkv * hd * bytes_per_value  # K and V
    return CacheNumbers(
        variant=config.variant, T=T, n_layers=L, query_heads=H, kv_heads=Hkv, head_dim=hd,
        layer_shape=(1, Hkv, kept.numel(), hd), kept_tokens=kept.numel(), bytes_per_value=bytes_per_value,
        bytes_per_token=per_token, cache_bytes=per_token * kept.numel(), without_cache=full, with_cache=cached,
    )


def compare(config: GPTConfig, T: int, n_kv_heads: int = 1, window: int = 256, stride: int = 0,
            registry: Registry | None = None, bytes_per_value: int = 2) -> dict[str, CacheNumbers]:
    """The same shape as multi-head, grouped-query and sliding-window attention: what each cache costs at T."""
    variants = {
        "multi-head": {},
        "gqa": {"n_kv_heads": n_kv_heads},
        "sliding-window": {"window": window, "stride": stride},
    }
    base = config.to_dict()
    return {
        name: cache_numbers(GPTConfig(**{**base, "variant": name, "options": options}), T, registry, bytes_per_value)
        for name, options in variants.items()
    }


def _kept(attn, n: int) -> torch.Tensor:
    """Positions of the keys a layer keeps once it has seen n tokens: the module's own reachable()."""
    positions = torch.arange(n)
    keep = attn.reachable(positions, n)
    return positions if keep is None else positions[keep]


def _allowed(attn, q_pos: torch.Tensor, k_pos: torch.Tensor) -> int:
    """How many (query, key) pairs the module's mask lets through."""
    mask = attn.allowed_at(q_pos, k_pos)
    return q_pos.numel() * k_pos.numel() if mask is None else int(mask.sum())
