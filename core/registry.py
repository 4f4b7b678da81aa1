"""Built-ins + entry points -> Registry. A broken plugin is recorded and skipped, never fatal."""

from __future__ import annotations

import difflib
import importlib
import os
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

from . import hookspecs
from .config import AttentionConfig, ConfigError, option_problem
from .variant import Variant, construct, display_problem, name_problem, one_line, where

if TYPE_CHECKING:
    from .attention import AttentionModule

BUILTINS = (
    "attention_plugins.single_head",
    "attention_plugins.multi_head",
    "attention_plugins.gqa",
    "attention_plugins.sliding_window",
)
ALLOWLIST_ENV = "ATTENTION_LAB_PLUGINS"  # comma-separated entry-point names; "" = none
STRICT_ENV = "ATTENTION_LAB_STRICT"  # "1": re-raise plugin failures (plugin development, CI)
STRICT_NOTE = f"({STRICT_ENV}=1 re-raises)"  # ends the note on an exception re-raised in strict mode
NOT_PROVIDED = "no installed package provides it"
ENTRY_POINT_HINT = (
    f"plugins are found through the entry-point group '{hookspecs.PROJECT}': add a line such as "
    f"`my-plugin = \"my_module\"` under [project.entry-points.{hookspecs.PROJECT}] in the plugin's "
    f"pyproject.toml and reinstall it with `attention-lab install -e PATH`"
)


@dataclass(frozen=True)
class PluginError:
    """What went wrong with one plugin, in one line a plugin author can act on."""

    plugin: str  # entry-point name (or module name for code registered directly)
    stage: str  # "import", "register", "unknown hook", "no hook", "hook", "variant" or "duplicate"
    reason: str
    distribution: str = ""  # "name version" of the package that shipped it, when known

    def __str__(self) -> str:
        return f"{self.plugin} ({self.stage}): {self.reason}"


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
            known = ", ".join(sorted(self.variants)) or "none"
            guess = difflib.get_close_matches(name, list(self.variants), n=1) if isinstance(name, str) else []
            known = f"did you mean {guess[0]!r}? (all: {known})" if guess else f"choose one of: {known}"
            broken = [e for e in self.errors if not e.reason.endswith(NOT_PROVIDED)]  # loaded, then failed
            if broken:  # a plugin that failed is the likelier cause than a missing entry point
                more = f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""
                raise ConfigError(f"variant={str(name)[:60]!r} is not registered; {known}; plugin {broken[0]}{more}; "
                                  "its variants are missing until it loads (see `attention-lab plugins`)") from None
            failed = f" ({len(self.errors)} plugin(s) failed to load: see `attention-lab plugins`)" if self.errors else ""
            raise ConfigError(f"variant={str(name)[:60]!r} is not registered; {known}{failed}; {ENTRY_POINT_HINT}") from None

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


def _one_line(exc: BaseException) -> str:
    """One line for the plugins table; pluggy's multi-line validation messages joined with '; '."""
    return one_line(exc, all_lines=isinstance(exc, pluggy.PluginValidationError))


def strict() -> bool:
    """ATTENTION_LAB_STRICT is set: a plugin's failure is raised, not recorded (plugin development, CI)."""
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
            _fail(registry, "entry points", "import", f"installed plugins could not be listed: {_one_line(exc)}", exc)
            eps = []
        found = [(ep.name, ep.load, ep) for ep in eps]
        for name in _missing_from_allowlist(eps):
            _fail(registry, name, "import", f"is listed in {ALLOWLIST_ENV} but {NOT_PROVIDED}")
    for name, load, ep in extras + found:
        info = _info(name, ep)
        if name in registry.plugins:
            reason = f"a plugin called {name!r} is already loaded; rename its entry point"
            _fail(registry, name, "duplicate", reason, dist=info.label)
            continue
        if _add_plugin(pm, registry, name, load, info.label):
            registry.plugins[name] = info
            order.append(name)
    impls = pm.hook.register_attention_variants.get_hookimpls()
    for impl in sorted(impls, key=lambda i: order.index(i.plugin_name)):
        _collect(registry, impl)
    for impl in sorted(pm.hook.register_lessons.get_hookimpls(), key=lambda i: order.index(i.plugin_name)):
        _collect_lessons(registry, impl)
    return registry


def _plugin_name(plugin: Any) -> str:
    return getattr(plugin, "__name__", None) or type(plugin).__name__


def _info(name: str, ep: metadata.EntryPoint | None) -> PluginInfo:
    """Distribution and version from the entry point's dist-info, when there is one."""
    dist = getattr(ep, "dist", None)
    source = ep.value if ep is not None else name
    return PluginInfo(name, dist.name if dist else "", dist.version if dist else "", False, source)


def _add_plugin(pm: pluggy.PluginManager, registry: Registry, name: str, load: Any, dist: str) -> bool:
    """Import and register one plugin; on failure record why, undo, and go on."""
    try:
        plugin = load()
    except (Exception, SystemExit) as exc:  # SystemExit too: an import that calls exit() must not end the lab
        return _fail(registry, name, "import", f"could not be imported: {_one_line(exc)}{_at(exc)}", exc, dist=dist)
    try:
        pm.register(plugin, name=name)
    except Exception as exc:
        if pm.get_plugin(name) is plugin:  # pluggy keeps the name of a plugin it half-registered
            pm.unregister(name=name)
        return _fail(registry, name, "register", f"hook signature rejected: {_one_line(exc)}", exc, dist=dist)
    try:
        pm.check_pending()  # a hookimpl whose name matches no hookspec (a typo) fails here
    except pluggy.PluginValidationError as exc:
        unknown = sorted(hc.name for hc in pm.get_hookcallers(plugin) or () if not hc.has_spec())
        pm.unregister(name=name)
        return _fail(registry, name, "unknown hook", _unknown_hooks(unknown), exc, dist=dist)
    if not pm.get_hookcallers(plugin):  # e.g. the @hookimpl marker was forgotten
        pm.unregister(name=name)
        return _fail(registry, name, "no hook", "implements no hook; mark register_attention_variants with @hookimpl", dist=dist)
    return True


def _unknown_hooks(names: list[str]) -> str:
    """'implements unknown hook X; did you mean Y?' using the hookspecs the lab defines."""
    specs = [n for n in vars(hookspecs) if hasattr(getattr(hookspecs, n), f"{hookspecs.PROJECT}_spec")]
    guess = difflib.get_close_matches(names[0], specs, n=1) if names else []
    hint = f"; did you mean {guess[0]!r}?" if guess else f"; the lab defines {', '.join(specs)}"
    return f"implements unknown hook {', '.join(map(repr, names)) or '(unnamed)'}{hint}"


def _collect(registry: Registry, impl: Any) -> None:
    """Call one plugin's hook; keep its variants only if the whole call succeeded."""
    name = impl.plugin_name
    dist = registry.plugins[name].label
    offered: list[Any] = []
    lines: list[str] = []  # where each register() call was made, so a duplicate names its line
    if impl.hookwrapper or impl.wrapper:
        _fail(registry, name, "hook", "register_attention_variants must be a plain hook, not a wrapper", dist=dist)
        return

    def register(variant: Any) -> None:
        caller = traceback.extract_stack(limit=2)[0]
        offered.append(variant)
        lines.append(f"{Path(caller.filename).name}:{caller.lineno}")

    try:
        impl.function(*[{"register": register}[a] for a in impl.argnames])
    except (Exception, SystemExit) as exc:
        _fail(registry, name, "hook", f"register_attention_variants raised {_one_line(exc)}{_at(exc)}", exc, dist=dist)
        return
    for variant, line in zip(offered, lines, strict=True):
        if not isinstance(variant, Variant):
            _fail(registry, name, "hook", f"registered a {type(variant).__name__}, not a Variant", dist=dist)
        elif problem := _malformed(variant):  # refused here so no tab ever builds a control from it
            _fail(registry, name, "variant", f"variant {variant.name!r} {problem}", dist=dist)
        elif variant.name in registry.variants:
            owner = registry.variants[variant.name].plugin
            _fail(registry, name, "duplicate", f"variant {variant.name!r} is already registered by {owner}; "
                  f"rename it at {line}", dist=dist)
        else:
            registry.variants[variant.name] = replace(variant, plugin=name)


def _collect_lessons(registry: Registry, impl: Any) -> None:
    """Call one plugin's register_lessons; keep the paths it names only if the whole call succeeded."""
    name, offered = impl.plugin_name, []
    try:
        impl.function(*[{"register": lambda path: offered.append(path)}[a] for a in impl.argnames])
    except (Exception, SystemExit) as exc:
        _fail(registry, name, "hook", f"register_lessons raised {_one_line(exc)}{_at(exc)}", exc,
              dist=registry.plugins[name].label)
        return
    for path in offered:
        if isinstance(path, (str, Path)):
            registry.lessons.append((name, str(path)))
        else:
            _fail(registry, name, "hook", f"register_lessons named a {type(path).__name__}, not a path",
                  dist=registry.plugins[name].label)


def _malformed(variant: Variant) -> str | None:
    """Why the app could not show this variant (name, words, options, declarations), or None when it can."""
    if problem := name_problem(variant.name):
        return f"has a {problem}"
    if not isinstance(variant.title, str) or not isinstance(variant.summary, str):
        return "needs a title and a summary as text"
    return option_problem(variant.options) or display_problem(variant)


def _at(exc: BaseException) -> str:
    """' at file.py:12': the plugin's own line that raised, when the traceback shows one."""

    at = where(exc)
    return f" at {at}" if at else ""


def reraised(exc: BaseException) -> bool:
    """True for a plugin's exception re-raised in strict mode: the CLI lets it through with its traceback."""
    return any(str(note).endswith(STRICT_NOTE) for note in getattr(exc, "__notes__", ()))


def _fail(
    registry: Registry, name: str, stage: str, reason: str, exc: BaseException | None = None, dist: str = ""
) -> bool:
    """Record the failure; in strict mode re-raise it (the original exception, when there is one)."""
    error = PluginError(name, stage, reason, dist)
    if strict():
        if exc is None:
            raise ConfigError(f"plugin {error}")
        exc.add_note(f"attention-lab: plugin {error} {STRICT_NOTE}")
        raise exc
    registry.errors.append(error)
    return False
