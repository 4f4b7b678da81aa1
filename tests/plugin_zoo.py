"""The five variants of issue #25, written from docs/plugins.md alone: one per kind of override.

Tests register them for one test and remove them (datasette style); none writes any cache code.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from core import AttentionModule, ConfigError, Option, Variant, hookimpl


class L2Attention(AttentionModule):
    """Score override: nearby vectors attend to each other, score = -||q - k||²."""

    def score(self, q: Tensor, k: Tensor) -> Tensor:
        return -(q[..., :, None, :] - k[..., None, :, :]).pow(2).sum(-1)  # (B, H, Tq, Tk)


class SigmoidAttention(AttentionModule):
    """Non-softmax normalise: each weight is sigmoid(score - offset), rows need not sum to 1."""

    def bias(self, T: int, device=None) -> Tensor:
        return torch.full((1, T, T), -float(self.config.options["offset"]), device=device)  # (1, T, T)

    def normalise(self, masked: Tensor) -> Tensor:
        return torch.sigmoid(masked)  # (B, H, T, T)


class SigmoidLogT(SigmoidAttention):
    """The paper's b = -log T: every row's bias changes as T grows, so its past cannot be cached."""

    def bias(self, T: int, device=None) -> Tensor:
        return torch.full((1, T, T), -math.log(T), device=device)  # (1, T, T)


class TopKAttention(AttentionModule):
    """Fill override: forbidden keys hold a finite -1e4 and only the k largest scores of a row keep weight."""

    fill = -1e4

    def normalise(self, masked: Tensor) -> Tensor:
        k = min(int(self.config.options["top_k"]), masked.shape[-1])
        kth = masked.topk(k, dim=-1).values[..., -1:]  # (B, H, T, 1) the k-th largest score of each row
        return torch.softmax(masked.masked_fill(masked < kth, float("-inf")), dim=-1)  # (B, H, T, T)


class T5BiasAttention(AttentionModule):
    """Bias override: a learned scalar per head for each bucket of relative distance (T5)."""

    def build_projections(self) -> None:
        super().build_projections()
        self.buckets = nn.Parameter(torch.zeros(int(self.config.options["buckets"]), self.n_heads))  # (nb, H)

    def bucket(self, distance: Tensor) -> Tensor:
        """Exact buckets for small distances, logarithmic ones beyond, clamped to the last."""
        nb = self.buckets.shape[0]
        exact = nb // 2
        far = exact + (torch.log(distance.clamp(min=1).float() / exact) / math.log(8) * (nb - exact)).long()
        return torch.where(distance < exact, distance, far.clamp(max=nb - 1))

    def bias(self, T: int, device=None) -> Tensor:
        i = torch.arange(T, device=device)
        distance = (i[:, None] - i[None, :]).abs()  # (T, T)
        return self.buckets[self.bucket(distance)].permute(2, 0, 1)  # (H, T, T)


class KernelAttention(AttentionModule):
    """A choice option: φ(q)·φ(k)ᵀ with φ = elu+1 or relu, normalised by the row sum (linear attention)."""

    fill = 0.0

    def __init__(self, config) -> None:
        super().__init__(config.replace(scaled=False))

    def phi(self, t: Tensor) -> Tensor:
        return F.elu(t) + 1 if self.config.options["kernel"] == "elu" else F.relu(t) + 1e-3

    def score(self, q: Tensor, k: Tensor) -> Tensor:
        return self.phi(q) @ self.phi(k).transpose(-2, -1)  # (B, H, Tq, Tk) all positive

    def normalise(self, masked: Tensor) -> Tensor:
        return masked / masked.sum(-1, keepdim=True)  # (B, H, T, T) rows sum to 1


class DifferentialAttention(AttentionModule):
    """Two softmax maps per head, subtracted (Ye et al., 2024): weights = A₁ - λ·A₂, λ learned from λ_init."""

    maps = ("A₁", "A₂")  # score() returns one map per name: (B, H, 2, T, T)
    keep_init = ("lambda_init",)  # the paper's constant, not a weight the lab should redraw

    def build_projections(self) -> None:
        if self.head_dim % 2:
            raise ConfigError(f"diff-attention splits each head in two; d_model / n_heads = {self.head_dim} is odd")
        super().build_projections()
        self.lambda_init = nn.Parameter(torch.tensor(float(self.config.options["lambda_init"])))
        self.lambda_q = nn.Parameter(torch.zeros(2, self.head_dim // 2))  # (2, hd/2) λ = λ_init + e^{q1·k1} - e^{q2·k2}

    def lam(self) -> Tensor:
        return self.lambda_init + torch.exp(self.lambda_q[0] @ self.lambda_q[1]) - 1.0  # () ≈ λ_init when small

    def score(self, q: Tensor, k: Tensor) -> Tensor:
        q1, q2 = q.chunk(2, dim=-1)  # (B, H, Tq, hd/2) each
        k1, k2 = k.chunk(2, dim=-1)  # (B, H, Tk, hd/2) each
        return torch.stack([q1 @ k1.transpose(-2, -1), q2 @ k2.transpose(-2, -1)], dim=2)  # (B, H, 2, Tq, Tk)

    def combine(self, maps: Tensor) -> Tensor:
        return maps[:, :, 0] - self.lam() * maps[:, :, 1]  # (B, H, T, T) signed weights


VARIANTS = (
    Variant(name="l2-attention", title="L2", summary="score = -||q - k||²", build=L2Attention,
            formulas={"scores": "scores = -‖Q_i - K_j‖²"}),
    Variant(name="sigmoid-attention", title="Sigmoid", summary="sigmoid weights", build=SigmoidAttention,
            normalised=False, options=(Option("offset", 2.0, minimum=0.0, maximum=10.0),)),
    Variant(name="top-k-attention", title="Top-k", summary="the k largest scores", build=TopKAttention,
            options=(Option("top_k", 2, minimum=1, maximum=64),)),
    Variant(name="t5-bias", title="T5 bias", summary="bucketed relative bias", build=T5BiasAttention,
            options=(Option("buckets", 8, minimum=2, maximum=32),)),
    Variant(name="kernel-attention", title="Kernel", summary="linear attention", build=KernelAttention,
            uses_scaling=False, options=(Option("kernel", "elu", choices=("elu", "relu")),)),
    Variant(name="diff-attention", title="Differential", summary="two softmax maps, subtracted",
            build=DifferentialAttention, normalised=False,
            options=(Option("lambda_init", 0.8, minimum=0.0, maximum=1.0),),
            formulas={"weights": "weights = A₁ - λ·A₂, λ_init = {lambda_init}"}),
)


class Zoo:
    """A plugin object: register it for one test with plugin_registry(Zoo())."""

    @hookimpl
    def register_attention_variants(self, register) -> None:
        for variant in VARIANTS:
            register(variant)
        register(Variant(name="sigmoid-log-t", title="Sigmoid, b = -log T", summary="sigmoid weights",
                         build=SigmoidLogT, normalised=False))
