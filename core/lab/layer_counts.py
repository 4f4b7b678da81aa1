"""What a layer holds, counted on the real module and its trace: its parameters, and what a KV cache keeps per token."""

from __future__ import annotations

from torch import nn

from ..attention import AttentionTrace


def parameters(module: nn.Module) -> int:
    """Every number the layer learns (its projections' weights and biases), as torch counts them."""
    return sum(p.numel() for p in module.parameters())


def cached_per_token(trace: AttentionTrace) -> int:
    """Numbers a KV cache keeps for one token: K and V of one position, every K/V head (B, Hkv, T, hd) the layer
    made (a GQA layer makes fewer than it has query heads)."""
    return trace.k[0, :, 0].numel() + trace.v[0, :, 0].numel()
