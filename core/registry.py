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
from .i18n import mark, t, t_n
from .said import Said
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
# The stage a plugin failed at (PluginError.stage): a word the Plugins tab shows in the reader's language.
IMPORT, REGISTER, UNKNOWN_HOOK, NO_HOOK, HOOK, VARIANT, DUPLICATE = (
    mark("import"), mark("register"), mark("unknown hook"), mark("no hook"), mark("hook"), mark("variant"),
    mark("duplicate"))


def entry_point_hint() -> str:
    """How the lab finds a plugin, in the reader's language (ends a 'not registered' sentence)."""
    return t("plugins are found through the entry-point group '{group}': add a line such as `{line}` under {section} "
             "in the plugin's pyproject.toml and reinstall it with `attention-lab install -e PATH`",
             group=hookspecs.PROJECT, line='my-plugin = "my_module"',
             section="[project.entry-points." + hookspecs.PROJECT + "]")


@dataclass(frozen=True)
class PluginError:
    """What went wrong with one plugin, in one line a plugin author can act on."""

    plugin: str  # entry-point name (or module name for code registered directly)
    stage: str  # "import", "register", "unknown hook", "no hook", "hook", "variant" or "duplicate"
    reason: str  # in English: the record (`attention-lab plugins`, a log)
    distribution: str = ""  # "name version" of the package that shipped it, when known
    said: Said | None = field(default=None, compare=False, repr=False)  # the reason, said in a reader's language
    provided: bool = True  # False: ATTENTION_LAB_PLUGINS names it, but no installed package provides it

    def says(self) -> str:
        """The reason in the current language (the registry outlives the request that loaded it)."""
        return str(self.said) if self.said is not None else self.reason

    def __str__(self) -> str:
        return t("{plugin} ({stage}): {reason}", plugin=self.plugin, stage=t(self.stage), reason=self.says())


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
            _fail(registry, "entry points", IMPORT,
                  Said.t("installed plugins could not be listed: {error}", error=_one_line(exc)), exc)
            eps = []
        found = [(ep.name, ep.load, ep) for ep in eps]
        for name in _missing_from_allowlist(eps):
            _fail(registry, name, IMPORT, Said.t("is listed in {variable} but no installed package provides it",
                                                 variable=ALLOWLIST_ENV), provided=False)
    for name, load, ep in extras + found:
        info = _info(name, ep)
        if name in registry.plugins:
            reason = Said.t("a plugin called {name} is already loaded; rename its entry point", name=repr(name))
            _fail(registry, name, DUPLICATE, reason, dist=info.label)
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
        return _fail(registry, name, IMPORT, _raised(Said.t("could not be imported: {error}", error=_one_line(exc)),
                                                     exc), exc, dist=dist)
    try:
        pm.register(plugin, name=name)
    except Exception as exc:
        if pm.get_plugin(name) is plugin:  # pluggy keeps the name of a plugin it half-registered
            pm.unregister(name=name)
        return _fail(registry, name, REGISTER, Said.t("hook signature rejected: {error}", error=_one_line(exc)), exc,
                     dist=dist)
    try:
        pm.check_pending()  # a hookimpl whose name matches no hookspec (a typo) fails here
    except pluggy.PluginValidationError as exc:
        unknown = sorted(hc.name for hc in pm.get_hookcallers(plugin) or () if not hc.has_spec())
        pm.unregister(name=name)
        return _fail(registry, name, UNKNOWN_HOOK, _unknown_hooks(unknown), exc, dist=dist)
    if not pm.get_hookcallers(plugin):  # e.g. the @hookimpl marker was forgotten
        pm.unregister(name=name)
        return _fail(registry, name, NO_HOOK,
                     Said.t("implements no hook; mark register_attention_variants with @hookimpl"), dist=dist)
    return True


def _unknown_hooks(names: list[str]) -> Said:
    """'implements unknown hook X; did you mean Y?' using the hookspecs the lab defines."""
    specs = [n for n in vars(hookspecs) if hasattr(getattr(hookspecs, n), f"{hookspecs.PROJECT}_spec")]
    guess = difflib.get_close_matches(names[0], specs, n=1) if names else []
    hooks = ", ".join(map(repr, names)) or "(unnamed)"
    if guess:
        return Said.t("implements unknown hook {hooks}; did you mean {guess}?", hooks=hooks, guess=repr(guess[0]))
    return Said.t("implements unknown hook {hooks}; the lab defines {specs}", hooks=hooks, specs=", ".join(specs))


def _collect(registry: Registry, impl: Any) -> None:
    """Call one plugin's hook; keep its variants only if the whole call succeeded."""
    name = impl.plugin_name
    dist = registry.plugins[name].label
    offered: list[Any] = []
    lines: list[str] = []  # where each register() call was made, so a duplicate names its line
    if impl.hookwrapper or impl.wrapper:
        _fail(registry, name, HOOK, Said.t("register_attention_variants must be a plain hook, not a wrapper"),
              dist=dist)
        return

    def register(variant: Any) -> None:
        caller = traceback.extract_stack(limit=2)[0]
        offered.append(variant)
        lines.append(f"{Path(caller.filename).name}:{caller.lineno}")

    try:
        impl.function(*[{"register": register}[a] for a in impl.argnames])
    except (Exception, SystemExit) as exc:
        _fail(registry, name, HOOK, _raised(Said.t("register_attention_variants raised {error}",
                                                   error=_one_line(exc)), exc), exc, dist=dist)
        return
    for variant, line in zip(offered, lines, strict=True):
        if not isinstance(variant, Variant):
            _fail(registry, name, HOOK, Said.t("registered a {kind}, not a Variant", kind=type(variant).__name__),
                  dist=dist)
        elif problem := _malformed(variant):  # refused here so no tab ever builds a control from it
            _fail(registry, name, VARIANT, problem, dist=dist)
        elif variant.name in registry.variants:
            owner = registry.variants[variant.name].plugin
            _fail(registry, name, DUPLICATE, Said.t("variant {name} is already registered by {owner}; rename it at "
                                                    "{line}", name=repr(variant.name), owner=owner, line=line),
                  dist=dist)
        else:
            registry.variants[variant.name] = replace(variant, plugin=name)


def _collect_lessons(registry: Registry, impl: Any) -> None:
    """Call one plugin's register_lessons; keep the paths it names only if the whole call succeeded."""
    name, offered = impl.plugin_name, []
    try:
        impl.function(*[{"register": lambda path: offered.append(path)}[a] for a in impl.argnames])
    except (Exception, SystemExit) as exc:
        _fail(registry, name, HOOK, _raised(Said.t("register_lessons raised {error}", error=_one_line(exc)), exc),
              exc, dist=registry.plugins[name].label)
        return
    for path in offered:
        if isinstance(path, (str, Path)):
            registry.lessons.append((name, str(path)))
        else:
            _fail(registry, name, HOOK, Said.t("register_lessons named a {kind}, not a path", kind=type(path).__name__),
                  dist=registry.plugins[name].label)


def _malformed(variant: Variant) -> Said | None:
    """Why the app could not show this variant (name, words, options, declarations), or None when it can."""
    name = repr(variant.name)
    if problem := name_problem(variant.name):
        return Said.t("variant {name} has a {problem}", name=name, problem=problem)
    if not isinstance(variant.title, str) or not isinstance(variant.summary, str):
        return Said.t("variant {name} needs a title and a summary as text", name=name)
    if problem := option_problem(variant.options) or display_problem(variant):
        return Said.t("variant {name} {problem}", name=name, problem=problem)
    return None


def _raised(said: Said, exc: BaseException) -> Said:
    """said + ' at file.py:12': the plugin's own line that raised, when the traceback shows one."""
    at = where(exc)
    return Said.t("{sentence} at {at}", sentence=said, at=at) if at else said


def reraised(exc: BaseException) -> bool:
    """True for a plugin's exception re-raised in strict mode: the CLI lets it through with its traceback."""
    return any(str(note).endswith(STRICT_NOTE) for note in getattr(exc, "__notes__", ()))


def _fail(registry: Registry, name: str, stage: str, said: Said, exc: BaseException | None = None, dist: str = "",
          provided: bool = True) -> bool:
    """Record the failure; in strict mode re-raise it (the original exception, when there is one)."""
    error = PluginError(name, stage, said.english(), dist, said, provided)
    if strict():
        if exc is None:
            raise ConfigError(t("plugin {error}", error=str(error)))
        exc.add_note(f"attention-lab: plugin {name} ({stage}): {error.reason} {STRICT_NOTE}")  # (a traceback's)
        raise exc
    registry.errors.append(error)
    return False
