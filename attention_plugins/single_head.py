"""The classic single-head classes: SelfAttention_v1, SelfAttention_v2 (from core.classic) and CausalAttention."""

from __future__ import annotations

from torch import Tensor, nn

from core import AttentionConfig, AttentionModule, Variant, hookimpl
from core.classic import SelfAttention_v1, SelfAttention_v2  # defined in core so the lab can use them too
from core.i18n import mark

__all__ = ["CausalAttention", "SelfAttention_v1", "SelfAttention_v2"]


class CausalAttention(AttentionModule):
    """One head of width d_out with separate W_query/W_key/W_value and no output projection."""

    def __init__(
        self,
        d_in: int,
        d_out: int,
        dropout: float = 0.0,
        qkv_bias: bool = False,
        causal: bool = True,
        scaled: bool = True,
    ) -> None:
        config = AttentionConfig(d_model=d_in, n_heads=1, causal=causal, scaled=scaled, dropout=dropout, bias=qkv_bias)
        super().__init__(config, n_heads=1, head_dim=d_out)

    @classmethod
    def from_config(cls, config: AttentionConfig) -> CausalAttention:
        """The `single-head` variant: one head as wide as d_model, whatever n_heads says."""
        return cls(config.d_model, config.d_model, config.dropout, config.bias, config.causal, config.scaled)

    def build_projections(self) -> None:
        d_in, d_out, bias = self.config.d_model, self.head_dim, self.config.bias
        self.W_query = nn.Linear(d_in, d_out, bias=bias)
        self.W_key = nn.Linear(d_in, d_out, bias=bias)
        self.W_value = nn.Linear(d_in, d_out, bias=bias)

    def project(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """x (B, T, d_in) -> q, k, v each (B, 1, T, d_out)."""
        return self.W_query(x)[:, None], self.W_key(x)[:, None], self.W_value(x)[:, None]

    def merge(self, context: Tensor) -> Tensor:
        """(B, 1, T, d_out) -> (B, T, d_out): one head, nothing to concatenate or project."""
        return context[:, 0]


@hookimpl
def register_attention_variants(register) -> None:
    """Offer the single-head layer."""
    register(
        Variant(
            name="single-head",
            title=mark("Single head (CausalAttention)"),
            summary=mark("One attention head as wide as the model; the textbook starting point."),
            build=CausalAttention.from_config,
            uses_heads=False,
            notes=mark(
                "One head of width d_model: every token gets one weighting of the others. "
                "Compared with multi-head it cannot attend to two things at once, "
                "and it has no output projection, so it saves d_model² weights."
            ),
        )
    )
