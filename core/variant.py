"""A Variant: one named attention design a plugin offers to the lab, and the one way to build it."""

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


def construct(variant: Variant, config: AttentionConfig | None = None) -> AttentionModule:
    """Resolve the options, call the variant's build(), check what came back; a plugin's crash becomes one sentence.

    The registry, the conformance kit and the lab all build modules through here.
    """
    from .attention import AttentionModule  # torch, only when a module is really built

    resolved = variant.resolve(config or AttentionConfig())
    try:
        module = variant.build(resolved)
    except ConfigError:
        raise
    except Exception as exc:  # a third-party build() is not ours to trust
        raise ConfigError(f"variant {variant.name!r} failed to build: {one_line(exc)}") from exc
    if not isinstance(module, AttentionModule):
        raise ConfigError(f"variant {variant.name!r} built a {type(module).__name__}, not an AttentionModule")
    return module


def one_line(exc: BaseException, all_lines: bool = False) -> str:
    """Exception type and the first line of its message (every line joined with '; ' when all_lines)."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    lines = lines if all_lines else lines[:1]
    return f"{type(exc).__name__}: {'; '.join(lines)}" if lines else type(exc).__name__
