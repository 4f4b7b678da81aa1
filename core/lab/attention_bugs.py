"""The chapter's minimal attention as written, and the same function with one line wrong, once per failure mode.

Kept apart from the cards (core.lab.failure_modes) so the code a student would write reads on its own; the
card texts quote the constants below, and a test checks each constant appears in its function's source.
"""

from __future__ import annotations

import torch
from torch import Tensor

# The lines each card is about: each wrong/right pair differs in one place.
SOFTMAX_RIGHT = "weights = torch.softmax(scores, dim=-1)"
SOFTMAX_WRONG = "weights = torch.softmax(scores, dim=-2)"
FILL_RIGHT = 'scores = scores.masked_fill(~mask, float("-inf"))'
FILL_WRONG = "scores = scores.masked_fill(~mask, 0.0)"
DTYPE_RIGHT = "mask = torch.tril(torch.ones(t, t, device=q.device, dtype=torch.bool))"
DTYPE_WRONG = "mask = torch.tril(torch.ones(t, t, device=q.device))"
DEVICE_RIGHT = DTYPE_RIGHT
DEVICE_WRONG = "mask = torch.tril(torch.ones(t, t, device=other, dtype=torch.bool))"
PADDING_RIGHT = "allowed = allowed | ~allowed.any(-1, keepdim=True)"
PADDING_WRONG = "allowed = causal & key_real[:, None, :]"


def attention(q: Tensor, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
    """The chapter's scaled_dot_product_attention (causal), as written: (T, hd) -> out (T, hd), weights (T, T)."""
    head_dim = q.size(-1)
    scores = q @ k.transpose(-2, -1) / head_dim**0.5
    t = q.size(-2)
    mask = torch.tril(torch.ones(t, t, device=q.device, dtype=torch.bool))
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def attention_softmax_over_queries(q: Tensor, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
    """The chapter's function with softmax over the query dimension (columns)."""
    head_dim = q.size(-1)
    scores = q @ k.transpose(-2, -1) / head_dim**0.5
    t = q.size(-2)
    mask = torch.tril(torch.ones(t, t, device=q.device, dtype=torch.bool))
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-2)
    return weights @ v, weights


def attention_zero_fill(q: Tensor, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
    """The chapter's function masking with 0 instead of -inf."""
    head_dim = q.size(-1)
    scores = q @ k.transpose(-2, -1) / head_dim**0.5
    t = q.size(-2)
    mask = torch.tril(torch.ones(t, t, device=q.device, dtype=torch.bool))
    scores = scores.masked_fill(~mask, 0.0)
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def attention_float_mask(q: Tensor, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
    """The chapter's function with the mask left as floats (no dtype=torch.bool)."""
    head_dim = q.size(-1)
    scores = q @ k.transpose(-2, -1) / head_dim**0.5
    t = q.size(-2)
    mask = torch.tril(torch.ones(t, t, device=q.device))
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def attention_mask_elsewhere(q: Tensor, k: Tensor, v: Tensor, other: str) -> tuple[Tensor, Tensor]:
    """The chapter's function with the mask made on another device than q."""
    head_dim = q.size(-1)
    scores = q @ k.transpose(-2, -1) / head_dim**0.5
    t = q.size(-2)
    mask = torch.tril(torch.ones(t, t, device=other, dtype=torch.bool))
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def padded_attention(q: Tensor, k: Tensor, v: Tensor, key_real: Tensor, guard: bool) -> tuple[Tensor, Tensor]:
    """Causal + padding mask on a left-padded batch (B, T, hd); key_real (B, T) True = real token.

    guard=False is the wrong version: a padding query that can see only padding has a row of -inf.
    """
    t = q.size(-2)
    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5  # (B, T, T)
    causal = torch.tril(torch.ones(t, t, device=q.device, dtype=torch.bool))  # (T, T)
    allowed = causal & key_real[:, None, :]  # (B, T, T)
    if guard:
        allowed = allowed | ~allowed.any(-1, keepdim=True)
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)  # (B, T, T)
    out = weights @ v  # (B, T, hd)
    if guard:
        out = out * key_real[..., None]  # padding queries: computed, then zeroed
    return out, weights
