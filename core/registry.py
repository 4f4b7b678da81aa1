"""Built-ins + entry points -> Registry. A broken plugin is recorded and skipped, never fatal.

Finding the plugins lives here; taking one in and recording its failure lives in core.plugin_collect.
"""

from __future__ import annotations

import difflib
import importlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any

import pluggy

from . import hookspecs
from .config import AttentionConfig, ConfigError
from .i18n import t, t_n
from .plugin_collect import DUPLICATE, IMPORT, PluginError, add_plugin, collect, collect_lessons, error_line, fail
from .said import Said
from .variant import Variant, construct

if TYPE_CHECKING:
    from .attention import AttentionModule

BUILTINS = (
    "attention_plugins.single_head",
    "attention_plugins.multi_head",
    "attention_plugins.gqa",
    "attention_plugins.sliding_window",
)
ALLOWLIST_ENV = "ATTENTION_LAB_PLUGINS"  # comma-separated entry-point names; "" = none


def entry_point_hint() -> str:
    """How the lab finds a plugin, in the reader's language (ends a 'not registered' sentence)."""
    return t("plugins are found through the entry-point group '{group}': add a line such as `{line}` under {section} "
             "in the plugin's pyproject.toml and reinstall it with `attention-lab install -e PATH`",
             group=hookspecs.PROJECT, line='my-plugin = "my_module"',
             section="[project.entry-points." + hookspecs.PROJECT + "]")


@dataclass(frozen=True)
class PluginInfo:
    """Where a plugin came from, for the plugins table."""

    name: str
    distribution: str
    version: str
    builtin: bool = False
    source: str = ""  # the entry point's target ("package.module"), or the module name

    @property
    def label(self) -> str:
        """'distribution version', as pip would name it."""
        return f"{self.distribution} {self.version}".strip()


@dataclass
class Registry:
    """The variants the lab can build, and the plugins that failed to provide theirs."""

    variants: dict[str, Variant] = field(default_factory=dict)
    errors: list[PluginError] = field(default_factory=list)
    plugins: dict[str, PluginInfo] = field(default_factory=dict)
    lessons: list[tuple[str, str]] = field(default_factory=list)  # (plugin, lesson file or folder) a plugin ships

    def get(self, name: str) -> Variant:
        """The variant called name, or a ConfigError listing the known ones."""
        try:
            return self.variants[name]
        except (KeyError, TypeError):
            raise ConfigError(self._unknown(name)) from None

    def _unknown(self, name: object) -> str:
        """The sentence for a variant name nobody registered: the likeliest name, or all of them, and why."""
        fields = {"name": repr(str(name)[:60]), "known": ", ".join(sorted(self.variants)) or t("none")}
        guess = difflib.get_close_matches(name, list(self.variants), n=1) if isinstance(name, str) else []
        if guess:
            fields["guess"] = repr(guess[0])
        broken = [e for e in self.errors if e.provided]  # loaded, then failed
        if broken:  # a plugin that failed is the likelier cause than a missing entry point
            error = str(broken[0])
            if len(broken) > 1:
                error = t("{error} (and {n} more)", error=error, n=len(broken) - 1)
            if guess:
                return t("variant={name} is not registered; did you mean {guess}? (all: {known}); plugin {error}; its "
                         "variants are missing until it loads (see `attention-lab plugins`)", error=error, **fields)
            return t("variant={name} is not registered; choose one of: {known}; plugin {error}; its variants are "
                     "missing until it loads (see `attention-lab plugins`)", error=error, **fields)
        fields["hint"] = entry_point_hint()
        if self.errors and guess:
            return t_n("variant={name} is not registered; did you mean {guess}? (all: {known}) ({n} plugin failed "
                       "to load: see `attention-lab plugins`); {hint}",
                       "variant={name} is not registered; did you mean {guess}? (all: {known}) ({n} plugins failed "
                       "to load: see `attention-lab plugins`); {hint}", len(self.errors), **fields)
        if self.errors:
            return t_n("variant={name} is not registered; choose one of: {known} ({n} plugin failed to load: see "
                       "`attention-lab plugins`); {hint}",
                       "variant={name} is not registered; choose one of: {known} ({n} plugins failed to load: see "
                       "`attention-lab plugins`); {hint}", len(self.errors), **fields)
        if guess:
            return t("variant={name} is not registered; did you mean {guess}? (all: {known}); {hint}", **fields)
        return t("variant={name} is not registered; choose one of: {known}; {hint}", **fields)

    def build(self, name: str, config: AttentionConfig | None = None) -> AttentionModule:
        """Validate config for the variant and build its module; plugin crashes become one sentence."""
        return construct(self.get(name), config)

    def reload(self, entry_points: bool = True) -> Registry:
        """Load the plugins again (newly installed ones included) and take their place, for a running app.

        The three tables are swapped whole, so a request reading the old ones finishes with them.
        """
        refresh_installed()
        fresh = load_registry(entry_points=entry_points)
        self.variants, self.errors, self.plugins = fresh.variants, fresh.errors, fresh.plugins
        return self


def refresh_installed(site_dirs: Iterable[str] | None = None) -> None:
    """Make packages installed since this process started importable: read new .pth files, drop stale caches.

    `pip install -e` adds a .pth file that Python reads only at start-up; site.addsitedir reads it now.
    """
    import site

    dirs = list(site_dirs) if site_dirs is not None else [*site.getsitepackages(), site.getusersitepackages()]
    for folder in dirs:
        if os.path.isdir(folder):
            site.addsitedir(folder)
    importlib.invalidate_caches()


def _allowed_names() -> set[str] | None:
    raw = os.environ.get(ALLOWLIST_ENV)
    if raw is None:
        return None
    return {n.strip() for n in raw.split(",") if n.strip()}


def _entry_points() -> list[metadata.EntryPoint]:
    allow = _allowed_names()
    eps = metadata.entry_points(group=hookspecs.PROJECT)
    return sorted((ep for ep in eps if allow is None or ep.name in allow), key=lambda ep: ep.name)


def _missing_from_allowlist(found: list[metadata.EntryPoint]) -> list[str]:
    """Names ATTENTION_LAB_PLUGINS asks for that no installed package provides (usually a typo)."""
    return sorted((_allowed_names() or set()) - {ep.name for ep in found})


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
        registry.plugins[modname] = PluginInfo(modname, "attention-lab", _own_version(), True, modname)
        order.append(modname)
    extras = [(_plugin_name(p), lambda p=p: p, None) for p in plugins]
    found: list[Any] = []
    if entry_points:
        try:
            eps = _entry_points()
        except Exception as exc:  # unreadable package metadata somewhere on sys.path: run with the built-ins
            fail(registry, "entry points", IMPORT,
                 Said.t("installed plugins could not be listed: {error}", error=error_line(exc)), exc)
            eps = []
        found = [(ep.name, ep.load, ep) for ep in eps]
        for name in _missing_from_allowlist(eps):
            fail(registry, name, IMPORT, Said.t("is listed in {variable} but no installed package provides it",
                                                variable=ALLOWLIST_ENV), provided=False)
    for name, load, ep in extras + found:
        info = _info(name, ep)
        if name in registry.plugins:
            reason = Said.t("a plugin called {name} is already loaded; rename its entry point", name=repr(name))
            fail(registry, name, DUPLICATE, reason, dist=info.label)
            continue
        if add_plugin(pm, registry, name, load, info.label):
            registry.plugins[name] = info
            order.append(name)
    impls = pm.hook.register_attention_variants.get_hookimpls()
    for impl in sorted(impls, key=lambda i: order.index(i.plugin_name)):
        collect(registry, impl)
    for impl in sorted(pm.hook.register_lessons.get_hookimpls(), key=lambda i: order.index(i.plugin_name)):
        collect_lessons(registry, impl)
    return registry


def _plugin_name(plugin: Any) -> str:
    return getattr(plugin, "__name__", None) or type(plugin).__name__


def _info(name: str, ep: metadata.EntryPoint | None) -> PluginInfo:
    """Distribution and version from the entry point's dist-info, when there is one."""
    dist = getattr(ep, "dist", None)
    source = ep.value if ep is not None else name
    return PluginInfo(name, dist.name if dist else "", dist.version if dist else "", False, source)
