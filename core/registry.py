"""Built-ins + entry points -> Registry. A broken plugin is recorded and skipped, never fatal."""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field, replace
from importlib import metadata
from typing import Any, Iterable

import pluggy

from . import hookspecs
from .attention import AttentionModule
from .config import AttentionConfig, ConfigError
from .variant import Variant

BUILTINS = (
    "attention_plugins.single_head",
    "attention_plugins.multi_head",
    "attention_plugins.gqa",
    "attention_plugins.sliding_window",
)
ALLOWLIST_ENV = "ATTENTION_LAB_PLUGINS"  # comma-separated entry-point names; "" = none
STRICT_ENV = "ATTENTION_LAB_STRICT"  # "1": re-raise plugin failures (plugin development, CI)


@dataclass(frozen=True)
class PluginError:
    """What went wrong with one plugin, in one line a plugin author can act on."""

    plugin: str  # entry-point name (or module name for code registered directly)
    stage: str  # "import", "hook", "register", "duplicate" or "unknown hook"
    reason: str

    def __str__(self) -> str:
        return f"{self.plugin} ({self.stage}): {self.reason}"


@dataclass(frozen=True)
class PluginInfo:
    """Where a plugin came from, for the plugins table."""

    name: str
    distribution: str
    version: str
    builtin: bool = False


@dataclass
class Registry:
    """The variants the lab can build, and the plugins that failed to provide theirs."""

    variants: dict[str, Variant] = field(default_factory=dict)
    errors: list[PluginError] = field(default_factory=list)
    plugins: dict[str, PluginInfo] = field(default_factory=dict)

    def get(self, name: str) -> Variant:
        """The variant called name, or a ConfigError listing the known ones."""
        try:
            return self.variants[name]
        except (KeyError, TypeError):
            known = ", ".join(sorted(self.variants)) or "none"
            raise ConfigError(f"variant={name!r} is not registered; choose one of: {known}") from None

    def build(self, name: str, config: AttentionConfig | None = None) -> AttentionModule:
        """Validate config for the variant and build its module; plugin crashes become one sentence."""
        variant = self.get(name)
        config = variant.resolve(config or AttentionConfig())
        try:
            module = variant.build(config)
        except ConfigError:
            raise
        except Exception as exc:  # a third-party build() is not ours to trust
            raise ConfigError(f"variant {name!r} failed to build: {_one_line(exc)}") from exc
        if not isinstance(module, AttentionModule):
            raise ConfigError(f"variant {name!r} built a {type(module).__name__}, not an AttentionModule")
        return module


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _strict() -> bool:
    return os.environ.get(STRICT_ENV, "") not in ("", "0")


def _allowed_names() -> set[str] | None:
    raw = os.environ.get(ALLOWLIST_ENV)
    if raw is None:
        return None
    return {n.strip() for n in raw.split(",") if n.strip()}


def _entry_points() -> list[metadata.EntryPoint]:
    allow = _allowed_names()
    eps = metadata.entry_points(group=hookspecs.PROJECT)
    return sorted((ep for ep in eps if allow is None or ep.name in allow), key=lambda ep: ep.name)


def _own_version() -> str:
    try:
        return metadata.version("attention-lab")
    except metadata.PackageNotFoundError:
        return "dev"


def load_registry(entry_points: bool = True, plugins: Iterable[Any] = ()) -> Registry:
    """Register the built-ins, then each third-party plugin on its own, then collect variants."""
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    registry = Registry()
    order: list[str] = []
    for modname in BUILTINS:  # our own code: a failure here is a bug and should be loud
        pm.register(importlib.import_module(modname), name=modname)
        registry.plugins[modname] = PluginInfo(modname, "attention-lab", _own_version(), builtin=True)
        order.append(modname)
    extras = [(getattr(p, "__name__", None) or type(p).__name__, lambda p=p: p, None) for p in plugins]
    found = [(ep.name, ep.load, ep) for ep in _entry_points()] if entry_points else []
    for name, load, ep in extras + found:
        if name in registry.plugins:
            _fail(registry, name, "duplicate", f"a plugin called {name!r} is already loaded")
            continue
        if _add_plugin(pm, registry, name, load):
            dist = getattr(ep, "dist", None) if ep else None
            registry.plugins[name] = PluginInfo(
                name, dist.name if dist else "", dist.version if dist else ""
            )
            order.append(name)
    impls = pm.hook.register_attention_variants.get_hookimpls()
    for impl in sorted(impls, key=lambda i: order.index(i.plugin_name)):
        _collect(registry, impl)
    return registry


def _add_plugin(pm: pluggy.PluginManager, registry: Registry, name: str, load: Any) -> bool:
    """Import and register one plugin; on failure record why, undo, and go on."""
    try:
        plugin = load()
    except Exception as exc:
        return _fail(registry, name, "import", f"could not be imported: {_one_line(exc)}", exc)
    try:
        pm.register(plugin, name=name)
    except Exception as exc:
        return _fail(registry, name, "register", f"hook signature rejected: {_one_line(exc)}", exc)
    try:
        pm.check_pending()  # a hookimpl whose name matches no hookspec (a typo) fails here
    except pluggy.PluginValidationError as exc:
        pm.unregister(name=name)
        return _fail(registry, name, "unknown hook", f"implements a hook the lab does not define: {_one_line(exc)}", exc)
    return True


def _collect(registry: Registry, impl: Any) -> None:
    """Call one plugin's hook; keep its variants only if the whole call succeeded."""
    name = impl.plugin_name
    offered: list[Any] = []
    try:
        impl.function(*[{"register": offered.append}[a] for a in impl.argnames])
    except Exception as exc:
        _fail(registry, name, "hook", f"register_attention_variants raised {_one_line(exc)}", exc)
        return
    for variant in offered:
        if not isinstance(variant, Variant):
            _fail(registry, name, "hook", f"registered a {type(variant).__name__}, not a Variant")
        elif variant.name in registry.variants:
            owner = registry.variants[variant.name].plugin
            _fail(registry, name, "duplicate", f"variant {variant.name!r} is already registered by {owner}; rename it")
        else:
            registry.variants[variant.name] = replace(variant, plugin=name)


def _fail(registry: Registry, name: str, stage: str, reason: str, exc: BaseException | None = None) -> bool:
    if _strict():
        raise ConfigError(f"plugin {name} ({stage}): {reason}") from exc
    registry.errors.append(PluginError(name, stage, reason))
    return False
