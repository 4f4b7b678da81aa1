"""A Variant: one named attention design a plugin offers to the lab, and the one way to build it."""

from __future__ import annotations

import re
import threading
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .config import AttentionConfig, ConfigError, FrozenOptions, Option
from .i18n import t
from .said import Said

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
    uses_scaling: bool = True  # False: config.scaled changes nothing (the app disables the √d control)
    normalised: bool = True  # False: weights are not a distribution over keys (rows need not sum to 1)
    stage_names: Mapping[str, str] = field(default_factory=dict)  # trace field -> name Step through shows
    formulas: Mapping[str, str] = field(default_factory=dict)  # trace field -> formula line, with {placeholders}

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ConfigError(t("variant name {name} must be non-empty text", name=repr(self.name)[:60]))
        if not callable(self.build):
            raise ConfigError(t("variant {name} needs a callable build(config)", name=repr(self.name)))
        object.__setattr__(self, "options", tuple(self.options))
        for name in ("stage_names", "formulas"):  # frozen and hashable, like the rest of a Variant
            value = getattr(self, name)
            object.__setattr__(self, name, FrozenOptions(value) if isinstance(value, Mapping) else value)

    def resolve(self, config: AttentionConfig) -> AttentionConfig:
        """Validate config.options against this variant's Options and fill defaults."""
        return config.with_options(self.options)


NAME_PATTERN = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
STAGES = ("q", "k", "v", "scores", "scaled", "mask", "masked", "weights", "context", "output")  # AttentionTrace


def name_problem(name: object) -> Said | None:
    """Why a variant name is refused (None when it is fine): lower-case words and digits joined by dashes."""
    if isinstance(name, str) and NAME_PATTERN.fullmatch(name):
        return None
    suggestion = re.sub(r"[^a-z0-9]+", "-", str(name).lower()).strip("-") or "my-variant"
    if not suggestion[0].isalpha():
        suggestion = "v-" + suggestion
    return Said.t("name {name} must be lower-case words joined by dashes, such as {suggestion}",
                  name=repr(str(name)[:40]), suggestion=repr(suggestion))


def display_problem(variant: Variant) -> Said | None:
    """Why a variant's declarations cannot be shown by the app (None when they can): a predicate about the variant."""
    for flag in ("uses_heads", "uses_scaling", "normalised"):
        if not isinstance(getattr(variant, flag), bool):
            return Said.t("sets {flag}={value}; it must be True or False", flag=flag,
                          value=repr(getattr(variant, flag))[:40])
    for table in ("stage_names", "formulas"):
        value = getattr(variant, table)
        if not isinstance(value, Mapping):
            return Said.t("sets {table} to a {kind}; it must map stage names to text", table=table,
                          kind=type(value).__name__)
        for key, text in value.items():
            if key not in STAGES:
                return Said.t("names an unknown stage {stage} in {table}; stages are {stages}",
                              stage=repr(str(key)[:20]), table=table, stages=", ".join(STAGES))
            if not isinstance(text, str) or "\n" in text or len(text) > 200:
                return Said.t("has {table}[{key}] that is not one line of text (at most 200 characters)",
                              table=table, key=repr(key)[:40])
    return None


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
        failed = t("variant {name} failed to build: {error}", name=repr(variant.name), error=one_line(exc))
        raise BuildFailed(with_origin(failed, variant, exc)) from exc
    if not isinstance(module, AttentionModule):
        wrong = t("variant {name} built a {kind}, not an AttentionModule", name=repr(variant.name),
                  kind=type(module).__name__)
        raise BuildFailed(with_origin(wrong, variant))
    return module


class BuildFailed(ConfigError):
    """build() crashed or returned something else: the plugin's bug, not a setting it refuses (a plain ConfigError)."""


def with_origin(sentence: str, variant: Variant | None, exc: BaseException | None = None) -> str:
    """sentence + ' (plugin p, at file.py:12)': which plugin, and the line of its own code that raised, when known."""
    plugin = variant.plugin if variant is not None else ""
    at = where(exc) if exc is not None else ""
    if plugin and at:
        return t("{sentence} (plugin {plugin}, at {at})", sentence=sentence, plugin=plugin, at=at)
    if plugin:
        return t("{sentence} (plugin {plugin})", sentence=sentence, plugin=plugin)
    if at:
        return t("{sentence} (at {at})", sentence=sentence, at=at)
    return sentence


def one_line(exc: BaseException, all_lines: bool = False) -> str:
    """Exception type and the first line of its message (every line joined with '; ' when all_lines)."""
    text = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc)  # where() adds the file and line
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    lines = lines if all_lines else lines[:1]
    return f"{type(exc).__name__}: {'; '.join(lines)}" if lines else type(exc).__name__


_CORE = str(Path(__file__).resolve().parent)
_STDLIB = str(Path(threading.__file__).resolve().parent)


def where(exc: BaseException) -> str:
    """file:line of the innermost frame that is not the lab's, the standard library's or torch's: the plugin's line.

    A SyntaxError names the line Python could not read (its traceback ends in the import machinery).
    """
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno and _foreign(exc.filename):
        return f"{Path(exc.filename).name}:{exc.lineno}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _foreign(f.filename)]
    return f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""


def _foreign(filename: str) -> bool:
    if filename.startswith("<frozen "):  # importlib's own frames, never a plugin's
        return False
    path = str(Path(filename).resolve()) if filename.startswith("/") else filename
    if path.startswith(_CORE) or "/site-packages/torch/" in path or "/site-packages/pluggy/" in path:
        return False
    return not (path.startswith(_STDLIB) and "/site-packages/" not in path)
