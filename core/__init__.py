"""Attention Lab's library: one attention formula, a plugin contract, and the teaching lab."""

from .attention import AttentionModule, AttentionTrace
from .config import AttentionConfig, ConfigError, Option
from .hookspecs import hookimpl, hookspec
from .registry import PluginError, Registry, load_registry
from .variant import Variant

__all__ = [
    "AttentionConfig",
    "AttentionModule",
    "AttentionTrace",
    "ConfigError",
    "Option",
    "PluginError",
    "Registry",
    "Variant",
    "hookimpl",
    "hookspec",
    "load_registry",
]
