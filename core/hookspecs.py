"""The plugin contract: one hook, that hands a plugin a register callback."""

from __future__ import annotations

from collections.abc import Callable

import pluggy

from .variant import Variant

PROJECT = "attention_lab"  # pluggy project name and entry-point group

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_attention_variants(register: Callable[[Variant], None]) -> None:
    """Call register(Variant(...)) once for each attention variant this plugin offers."""


@hookspec
def register_lessons(register: Callable[[str], None]) -> None:
    """Call register(path) with a lesson file or a folder of them, so the app lists the plugin's lessons too."""
