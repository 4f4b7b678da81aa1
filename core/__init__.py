"""Attention Lab's library: one attention formula, a plugin contract, and the teaching lab.

The public names are imported on first use (PEP 562), so `import core` (and the CLI's --help)
does not import torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_PUBLIC = {
    "AttentionConfig": "config",
    "ConfigError": "config",
    "Option": "config",
    "Variant": "variant",
    "hookimpl": "hookspecs",
    "hookspec": "hookspecs",
    "PluginError": "registry",
    "Registry": "registry",
    "load_registry": "registry",
    "AttentionModule": "attention",
    "AttentionTrace": "attention",
}

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

if TYPE_CHECKING:
    from .attention import AttentionModule, AttentionTrace
    from .config import AttentionConfig, ConfigError, Option
    from .hookspecs import hookimpl, hookspec
    from .registry import PluginError, Registry, load_registry
    from .variant import Variant


def __getattr__(name: str) -> Any:
    """The public API, imported from its module the first time it is used."""
    if name not in _PUBLIC:
        raise AttributeError(f"module 'core' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_PUBLIC[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])
