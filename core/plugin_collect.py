"""One plugin into the Registry: register it, call its hooks, keep what it offers; record why it failed.

core.registry finds the plugins (built-ins, entry points, the allowlist) and hands each one here. The checks on what a
plugin offers and the record of a failure (PluginError; re-raised in strict mode) live apart from the finding, so each
reads on its own. core.registry imports this module, so this one never imports it back: it fills any Registry by shape.
"""

from __future__ import annotations

import difflib
import os
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import pluggy

from . import hookspecs
from .config import ConfigError, option_problem
from .i18n import mark, t
from .said import Said
from .variant import Variant, display_problem, name_problem, one_line, where

STRICT_ENV = "ATTENTION_LAB_STRICT"  # "1": re-raise plugin failures (plugin development, CI)
STRICT_NOTE = f"({STRICT_ENV}=1 re-raises)"  # ends the note on an exception re-raised in strict mode
# The stage a plugin failed at (PluginError.stage): a word the Plugins tab shows in the reader's language.
IMPORT, REGISTER, UNKNOWN_HOOK, NO_HOOK, HOOK, VARIANT, DUPLICATE = (
    mark("import"), mark("register"), mark("unknown hook"), mark("no hook"), mark("hook"), mark("variant"),
    mark("duplicate"))


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


class Tables(Protocol):
    """What collecting fills: core.registry.Registry, named by its shape (it imports this module, not the reverse)."""

    variants: dict[str, Variant]
    errors: list[PluginError]
    plugins: dict[str, Any]  # name -> core.registry.PluginInfo; its .label names the distribution
    lessons: list[tuple[str, str]]  # (plugin, lesson file or folder) a plugin ships


def error_line(exc: BaseException) -> str:
    """One line for the plugins table; pluggy's multi-line validation messages joined with '; '."""
    return one_line(exc, all_lines=isinstance(exc, pluggy.PluginValidationError))


def strict() -> bool:
    """ATTENTION_LAB_STRICT is set: a plugin's failure is raised, not recorded (plugin development, CI)."""
    return os.environ.get(STRICT_ENV, "") not in ("", "0")


def add_plugin(pm: pluggy.PluginManager, registry: Tables, name: str, load: Any, dist: str) -> bool:
    """Import and register one plugin; on failure record why, undo, and go on."""
    try:
        plugin = load()
    except (Exception, SystemExit) as exc:  # SystemExit too: an import that calls exit() must not end the lab
        return fail(registry, name, IMPORT, _raised(Said.t("could not be imported: {error}", error=error_line(exc)),
                                                    exc), exc, dist=dist)
    try:
        pm.register(plugin, name=name)
    except Exception as exc:
        if pm.get_plugin(name) is plugin:  # pluggy keeps the name of a plugin it half-registered
            pm.unregister(name=name)
        return fail(registry, name, REGISTER, Said.t("hook signature rejected: {error}", error=error_line(exc)), exc,
                    dist=dist)
    try:
        pm.check_pending()  # a hookimpl whose name matches no hookspec (a typo) fails here
    except pluggy.PluginValidationError as exc:
        unknown = sorted(hc.name for hc in pm.get_hookcallers(plugin) or () if not hc.has_spec())
        pm.unregister(name=name)
        return fail(registry, name, UNKNOWN_HOOK, _unknown_hooks(unknown), exc, dist=dist)
    if not pm.get_hookcallers(plugin):  # e.g. the @hookimpl marker was forgotten
        pm.unregister(name=name)
        return fail(registry, name, NO_HOOK,
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


def collect(registry: Tables, impl: Any) -> None:
    """Call one plugin's hook; keep its variants only if the whole call succeeded."""
    name = impl.plugin_name
    dist = registry.plugins[name].label
    offered: list[Any] = []
    lines: list[str] = []  # where each register() call was made, so a duplicate names its line
    if impl.hookwrapper or impl.wrapper:
        fail(registry, name, HOOK, Said.t("register_attention_variants must be a plain hook, not a wrapper"),
             dist=dist)
        return

    def register(variant: Any) -> None:
        caller = traceback.extract_stack(limit=2)[0]
        offered.append(variant)
        lines.append(f"{Path(caller.filename).name}:{caller.lineno}")

    try:
        impl.function(*[{"register": register}[a] for a in impl.argnames])
    except (Exception, SystemExit) as exc:
        fail(registry, name, HOOK, _raised(Said.t("register_attention_variants raised {error}",
                                                  error=error_line(exc)), exc), exc, dist=dist)
        return
    for variant, line in zip(offered, lines, strict=True):
        if not isinstance(variant, Variant):
            fail(registry, name, HOOK, Said.t("registered a {kind}, not a Variant", kind=type(variant).__name__),
                 dist=dist)
        elif problem := _malformed(variant):  # refused here so no tab ever builds a control from it
            fail(registry, name, VARIANT, problem, dist=dist)
        elif variant.name in registry.variants:
            owner = registry.variants[variant.name].plugin
            fail(registry, name, DUPLICATE, Said.t("variant {name} is already registered by {owner}; rename it at "
                                                   "{line}", name=repr(variant.name), owner=owner, line=line),
                 dist=dist)
        else:
            registry.variants[variant.name] = replace(variant, plugin=name)


def collect_lessons(registry: Tables, impl: Any) -> None:
    """Call one plugin's register_lessons; keep the paths it names only if the whole call succeeded."""
    name, offered = impl.plugin_name, []
    try:
        impl.function(*[{"register": lambda path: offered.append(path)}[a] for a in impl.argnames])
    except (Exception, SystemExit) as exc:
        fail(registry, name, HOOK, _raised(Said.t("register_lessons raised {error}", error=error_line(exc)), exc),
             exc, dist=registry.plugins[name].label)
        return
    for path in offered:
        if isinstance(path, (str, Path)):
            registry.lessons.append((name, str(path)))
        else:
            fail(registry, name, HOOK, Said.t("register_lessons named a {kind}, not a path", kind=type(path).__name__),
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


def fail(registry: Tables, name: str, stage: str, said: Said, exc: BaseException | None = None, dist: str = "",
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
