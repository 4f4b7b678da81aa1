"""The two layers a GPT stacks, nanoGPT style: the position-wise MLP and the pre-norm block around the attention."""

from __future__ import annotations

from functools import lru_cache

from torch import Tensor, nn

from ..fast_paths import KVCache
from ..registry import Registry, load_registry
from .config import GPTConfig


class MLP(nn.Module):
    """Position-wise feed-forward: widen 4x, GELU, project back."""

    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        d = config.d_model
        self.c_fc = nn.Linear(d, 4 * d, bias=config.bias)
        self.gelu = nn.GELU(approximate="tanh")  # GPT-2's GELU
        self.c_proj = nn.Linear(4 * d, d, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: Tensor) -> Tensor:
        """(B, T, d) -> (B, T, d): the same MLP at every position."""
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))  # (B, T, d) -> (B, T, 4d) -> (B, T, d)


class TransformerBlock(nn.Module):
    """Pre-norm block: x + attn(ln(x)), then x + mlp(ln(x)); attention is whatever the variant builds."""

    def __init__(self, config: GPTConfig, registry: Registry | None = None) -> None:
        super().__init__()
        registry = registry or default_registry()
        self.ln_1 = nn.LayerNorm(config.d_model, bias=config.bias)
        self.attn = registry.build(config.variant, config.attention())
        self.resid_dropout = nn.Dropout(config.dropout)
        self.ln_2 = nn.LayerNorm(config.d_model, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x: Tensor, cache: KVCache | None = None) -> Tensor:
        """x (B, T, d) -> (B, T, d); with a cache, x is the next tokens and the cache grows by them."""
        a = self.ln_1(x)
        a = self.attn(a) if cache is None else self.attn.forward_cached(a, cache)  # (B, T, d)
        x = x + self.resid_dropout(a)  # (B, T, d)
        return x + self.mlp(self.ln_2(x))  # (B, T, d)

    def trace(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """Same as forward through the explicit path; returns (x, attention weights (B, H, T, T))."""
        t = self.attn.trace(self.ln_1(x))
        x = x + self.resid_dropout(t.output)
        return x + self.mlp(self.ln_2(x)), t.weights


@lru_cache(maxsize=1)
def default_registry() -> Registry:
    """Built once: every block made without a registry shares the installed plugins."""
    return load_registry()
