"""Grouped-query attention: several query heads share one key/value head."""

from __future__ import annotations

from core import AttentionConfig, AttentionModule, ConfigError, Option, Variant, hookimpl
from core.config import divisors
from core.i18n import mark, t
from core.mistakes import choices_text


class GroupedQueryAttention(AttentionModule):
    """n_kv_heads K/V heads; query head h reads K/V head h // (n_heads // n_kv_heads)."""

    def __init__(self, config: AttentionConfig) -> None:
        n_kv = int(config.options.get("n_kv_heads", 1))
        if config.n_heads % n_kv:
            raise ConfigError(t("{name}={value} does not divide {other}={total}; choose {choices}", name="n_kv_heads",
                                value=n_kv, other="n_heads", total=config.n_heads,
                                choices=choices_text(divisors(config.n_heads))))
        super().__init__(config, n_kv_heads=n_kv)


@hookimpl
def register_attention_variants(register) -> None:
    """Offer grouped-query attention."""
    register(
        Variant(
            name="gqa",
            title=mark("Grouped-query attention"),
            summary=mark("Query heads share key/value heads in groups (LLaMA 2/3, Mistral)."),
            build=GroupedQueryAttention,
            options=(
                Option("n_kv_heads", 1, minimum=1, maximum=64,
                       help=mark("key/value heads; must divide n_heads (1 = multi-query, n_heads = plain multi-head)")),
            ),
            notes=mark(
                "Differs from multi-head only in the keys and values: n_kv_heads of them, each "
                "shared by n_heads / n_kv_heads query heads. It saves K/V projection weights and, "
                "at inference, the KV cache shrinks by the factor n_heads / n_kv_heads."
            ),
        )
    )
