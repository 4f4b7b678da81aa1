"""The one formula's free functions: written out stage by stage (attend), in torch's fused kernel (sdpa), and
the head and padding helpers both paths share. core.attention re-exports every name."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor

NEG_INF = float("-inf")


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


def sdpa(
    q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None, bias: Tensor | None = None,
    *, scaled: bool = True, dropout: float = 0.0, is_causal: bool = False,
) -> Tensor:
    """The stock formula in torch's fused kernel; the one place a bias and a bool mask become SDPA's float mask."""
    attn_mask = mask
    if bias is not None:  # SDPA adds a float mask to the scaled scores: bias where allowed, -inf elsewhere
        attn_mask = bias if mask is None else bias.masked_fill(~mask, NEG_INF)
    return F.scaled_dot_product_attention(
        q, k, v,
        attn_mask=attn_mask,
        is_causal=is_causal,
        dropout_p=dropout,
        scale=None if scaled else 1.0,
        enable_gqa=k.shape[1] != q.shape[1],
    )  # (B, H, Tq, hd)


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
