"""Multi-head attention two ways: one fused projection, or single heads stacked side by side."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from core import AttentionConfig, AttentionModule, Variant, hookimpl
from core.attention import merge_heads
from core.i18n import mark

from .single_head import CausalAttention


class CausalSelfAttention(AttentionModule):
    """nanoGPT's layer: qkv = Linear(dim, 3*dim) split q|k|v; head h uses columns h*hd:(h+1)*hd."""

    def __init__(self, dim: int, n_heads: int, *, config: AttentionConfig | None = None) -> None:
        super().__init__(config or AttentionConfig(d_model=dim, n_heads=n_heads))

    @classmethod
    def from_config(cls, config: AttentionConfig) -> CausalSelfAttention:
        return cls(config.d_model, config.n_heads, config=config)


class MultiHeadAttentionWrapper(AttentionModule):
    """n_heads CausalAttention heads run side by side, outputs concatenated, then projected."""

    def build_projections(self) -> None:
        c = self.config
        self.heads = nn.ModuleList(
            CausalAttention(c.d_model, self.head_dim, c.dropout, c.bias, c.causal, c.scaled)
            for _ in range(self.n_heads)
        )
        self.proj = nn.Linear(c.d_model, c.d_model, bias=c.bias)

    def project(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Each head projects on its own; stacked they form (B, H, T, hd) like the fused layer."""
        q = torch.stack([h.W_query(x) for h in self.heads], dim=1)  # (B, H, T, hd)
        k = torch.stack([h.W_key(x) for h in self.heads], dim=1)  # (B, H, T, hd)
        v = torch.stack([h.W_value(x) for h in self.heads], dim=1)  # (B, H, T, hd)
        return q, k, v

    def merge(self, context: Tensor) -> Tensor:
        return self.proj(merge_heads(context))  # torch.cat of the heads, then (B, T, d)


@hookimpl
def register_attention_variants(register) -> None:
    """Offer fused and stacked multi-head attention."""
    register(
        Variant(
            name="multi-head",
            title=mark("Multi-head, fused (CausalSelfAttention)"),
            summary=mark("H heads from one fused q|k|v projection, as in GPT-2 and nanoGPT."),
            build=CausalSelfAttention.from_config,
            notes=mark(
                "The reference every other variant is compared with: n_heads heads of width "
                "d_model / n_heads, each with its own queries, keys and values, computed by one "
                "matrix multiply and merged by an output projection."
            ),
        )
    )
    register(
        Variant(
            name="multi-head-stacked",
            title=mark("Multi-head, stacked (MultiHeadAttentionWrapper)"),
            summary=mark("H separate CausalAttention heads, concatenated, then projected."),
            build=MultiHeadAttentionWrapper,
            formulas={  # its own project() and merge() compute the fused layer's formula, head by head
                "q": mark("Q = x · W_q  (head {head})"), "k": mark("K = x · W_k  (K/V head {kv_head})"),
                "v": mark("V = x · W_v  (K/V head {kv_head})"), "output": mark("output = merge(all heads' context) · W_o"),
            },
            notes=mark(
                "Computes exactly what the fused layer computes (the weights copy across), "
                "but with one small matrix multiply per head: easier to read, slower to run. "
                "It saves nothing; it shows what 'fused' means."
            ),
        )
    )
