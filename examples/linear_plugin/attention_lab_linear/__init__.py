"""Causal linear attention for Attention Lab: a kernel feature map instead of a softmax (Katharopoulos et al. 2020)."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor

from core import AttentionConfig, AttentionModule, Variant, hookimpl

__version__ = "0.1.0"


def feature(x: Tensor) -> Tensor:
    """φ(x) = elu(x) + 1: positive, so every weight is positive and a row sum is never zero."""
    return F.elu(x) + 1


class LinearAttention(AttentionModule):
    """weights = φ(q)·φ(k)ᵀ over the row sum; forward keeps running sums and never builds (T, T)."""

    fill = 0.0  # forbidden keys hold 0 in `masked`, so they add nothing to the row sum

    def __init__(self, config: AttentionConfig) -> None:
        super().__init__(config.replace(scaled=False))  # a constant factor cancels in the normalisation

    def score(self, q: Tensor, k: Tensor) -> Tensor:
        """The kernel: φ(q) · φ(k)ᵀ.  (B, H, T, T)"""
        return feature(q) @ feature(k).transpose(-2, -1)

    def normalise(self, masked: Tensor) -> Tensor:
        """Each row divided by its sum: positive weights that sum to 1, no softmax.  (B, H, T, T)"""
        return masked / masked.sum(-1, keepdim=True)

    def fast_attention(self, q: Tensor, k: Tensor, v: Tensor, key_padding_mask: Tensor | None = None) -> Tensor:
        """The RNN view: S_i = Σ_{j≤i} φ(k_j) v_jᵀ and z_i = Σ_{j≤i} φ(k_j); out_i = φ(q_i)ᵀ S_i / φ(q_i)ᵀ z_i."""
        fq, fk = feature(q), feature(k)  # (B, H, T, hd)
        if key_padding_mask is not None:
            fk = fk * key_padding_mask[:, None, :, None]  # padding keys add nothing to the sums
        kv = fk[..., :, None] * v[..., None, :]  # (B, H, T, hd, hd) one outer product per key
        if self.config.causal:
            S, z = kv.cumsum(dim=2), fk.cumsum(dim=2)  # (B, H, T, hd, hd), (B, H, T, hd) running sums
        else:
            S, z = kv.sum(dim=2, keepdim=True), fk.sum(dim=2, keepdim=True)  # every key, for every query
        numerator = (fq[..., None, :] @ S)[..., 0, :]  # (B, H, T, hd)
        denominator = (fq * z).sum(dim=-1, keepdim=True)  # (B, H, T, 1)
        return numerator / denominator  # (B, H, T, hd)


LINEAR = Variant(
    name="causal-linear",
    title="Causal linear attention (elu + 1 features)",
    summary="Weights φ(q)·φ(k) over their row sum, no softmax: cost grows as T, not T² (Katharopoulos et al. 2020).",
    build=LinearAttention,
    uses_scaling=False,
    normalised=True,
    stage_names={"scores": "kernel"},
    formulas={
        "scores": "kernel = φ(Q) · φ(K)ᵀ, φ(x) = elu(x) + 1",
        "scaled": "scaled = kernel (no √d_head: a constant factor cancels in the normalisation)",
        "masked": "masked = scaled, with 0 where the mask says no",
        "weights": "weights = masked / (sum of its row): positive, each row sums to 1, no softmax",
    },
    notes=(
        "Same projections as multi-head; the softmax is replaced by a kernel: each weight is φ(q_i)·φ(k_j) "
        "divided by the row's sum. Because φ(q_i) factors out, the output can be computed from running sums "
        "of φ(k_j) v_jᵀ, like an RNN: time and memory grow as T instead of T²."
    ),
)


@hookimpl
def register_attention_variants(register) -> None:
    """Offer causal linear attention to the lab."""
    register(LINEAR)


__all__ = ["LINEAR", "LinearAttention", "feature", "register_attention_variants"]
