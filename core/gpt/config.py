"""What fixes a GPT's shape, checked when it is made, and the sizes the app offers (GPT-2's four and the tiny model).

Plain data, no torch: a preset is read (its sizes, its parameter count) without building a model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..config import AttentionConfig, ConfigError
from ..i18n import mark, t

POSITIONS = ("learned", "none")
MESSAGES = {
    "positions": mark("positions={value!r} is not a kind of position embedding; choose learned or none"),
}


@dataclass(frozen=True)
class GPTConfig:
    """Everything that fixes a GPT's shape; frozen (presets are shared), JSON-serialisable for checkpoints."""

    vocab_size: int
    context_length: int
    d_model: int
    n_heads: int
    n_layers: int
    variant: str = "multi-head"
    options: Mapping[str, Any] = field(default_factory=dict)
    dropout: float = 0.0
    bias: bool = True
    tie_weights: bool = True
    causal: bool = True  # False only for the mask experiment: every token sees the future
    scaled: bool = True  # False only for the sqrt(d) experiment
    # "learned": GPT-2's position embedding (wpe), so at most context_length tokens at once.
    # "none": no wpe; order comes from the mask or a bias (ALiBi), and any length runs.
    positions: str = "learned"

    def __post_init__(self) -> None:
        for name in ("vocab_size", "context_length", "n_layers"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(t("{name}={value!r} must be a whole number, 1 or more", name=name, value=value))
        if self.positions not in POSITIONS:
            raise ConfigError(t(MESSAGES["positions"], value=self.positions))
        object.__setattr__(self, "options", dict(self.options))

    def attention(self) -> AttentionConfig:
        """The config each block's attention layer is built from."""
        return AttentionConfig(
            d_model=self.d_model, n_heads=self.n_heads, causal=self.causal, scaled=self.scaled,
            dropout=self.dropout, bias=self.bias, options=self.options,
        )

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (JSON for a checkpoint's tiny.json; a base to change one field of)."""
        return dataclasses.asdict(self)


# GPT-2's published sizes (vocab 50257, context 1024); counts below are unique parameters,
# tied head counted once, position embeddings included: 124,439,808 / 354,823,168 / 774,030,080 / 1,557,611,200.
_GPT2 = dict(vocab_size=50257, context_length=1024)
TINY_VOCAB = 200
PRESETS: dict[str, GPTConfig] = {
    "gpt2-small": GPTConfig(**_GPT2, d_model=768, n_heads=12, n_layers=12),
    "gpt2-medium": GPTConfig(**_GPT2, d_model=1024, n_heads=16, n_layers=24),
    "gpt2-large": GPTConfig(**_GPT2, d_model=1280, n_heads=20, n_layers=36),
    "gpt2-xl": GPTConfig(**_GPT2, d_model=1600, n_heads=25, n_layers=48),
    # the shipped model's shape; its vocabulary is the corpus lexicon plus <unk> (a test keeps the two equal)
    "tiny": GPTConfig(vocab_size=TINY_VOCAB, context_length=64, d_model=64, n_heads=4, n_layers=2),
}
