"""A Variant: one named attention design a plugin offers to the lab."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .config import AttentionConfig, ConfigError, Option

if TYPE_CHECKING:
    from .attention import AttentionModule


@dataclass(frozen=True)
class Variant:
    """Name, words for students, and a build(config) -> AttentionModule."""

    name: str
    title: str
    summary: str
    build: Callable[[AttentionConfig], AttentionModule]
    options: tuple[Option, ...] = ()
    notes: str = ""
    uses_heads: bool = True  # False: n_heads is ignored (the app disables its control)
    plugin: str = ""  # filled in by the registry: which plugin registered it

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ConfigError(f"variant name {self.name!r} must be non-empty text")
        if not callable(self.build):
            raise ConfigError(f"variant {self.name!r} needs a callable build(config)")
        object.__setattr__(self, "options", tuple(self.options))

    def resolve(self, config: AttentionConfig) -> AttentionConfig:
        """Validate config.options against this variant's Options and fill defaults."""
        return config.with_options(self.options)

    def create(self, config: AttentionConfig | None = None) -> AttentionModule:
        """Build the module from a validated config (options resolved first)."""
        return self.build(self.resolve(config or AttentionConfig()))
