"""One step of a lesson file: its lines read by a table of keys, then the whole step checked, into a Step.

The first line under a step's heading is `view: NAME`; then one `key: value` per line up to a blank line, each read
by its row of LINE_KEYS (view, controls: the step's own lines; issue 32 adds expect:, ask:, notes: there) or, for a
state key (core.lab.lesson_keys.KEYS), checked against the view's keys; then every row of CHECKS looks at the whole
step (the controls it offers, a chart's panels, the variant's settings) and names the line of the key at fault;
the text under it is Markdown whose images must be files of the lesson's folder (core.lab.lesson_markdown).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import AttentionConfig, ConfigError, excerpt
from ..i18n import mark
from ..variant import construct
from .lesson_errors import LessonError, Mistake
from .lesson_keys import CONTROL_MAX, DEFAULTS, KEYS, PANEL_PAST, VIEWS
from .lesson_markdown import Image, images
from .lesson_values import Variants, value

MESSAGES = {
    "state_line": mark("a state line reads 'key: value', not {line}"),
    "view_guess": mark("view {view} is not known; did you mean {guess}? The views are {views}"),
    "view": mark("view {view} is not known; the views are {views}"),
    "view_first": mark("a step's first line after its heading is 'view: NAME'"),
    "reads": mark("view {view} does not read {key}; it reads {keys}"),
    "reads_none": mark("view {view} reads no keys, not {key}"),
    "twice": mark("{key} is set twice in this step"),
    "no_view": mark("step {title} names no view; add a line 'view: NAME' under its heading"),
    "offers": mark("view {view} offers the controls {controls}, not {control}"),
    "offers_none": mark("view {view} offers no controls, not {control}"),
    "controls": mark("a step offers at most {most} controls, not {n}"),
    "settings": mark("the variant {variant} refuses these settings: {reason}"),
}


@dataclass(frozen=True)
class Step:
    """One screen: a title, a view with its state preset, the controls it offers, the text (Markdown) and the
    images it shows (files of the lesson's folder)."""

    title: str
    view: str
    state: dict[str, Any]
    controls: tuple[str, ...]
    text: str
    line: int
    text_line: int = 0  # the file's line where the text starts
    images: tuple[Image, ...] = ()


@dataclass
class Reading:
    """A step while its lines are read: what the checks (CHECKS) see, and the line of each key (for their sentence)."""

    title: str
    line: int
    variants: Variants
    view: str | None = None
    state: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    controls: tuple[str, ...] = ()

    def at(self, *keys: str) -> int:
        """The line of the first of keys the step sets, else the heading's."""
        return next((self.lines[k] for k in keys if k in self.lines), self.line)


def _view_line(r: Reading, v: str) -> None:
    if v not in VIEWS:
        guess = difflib.get_close_matches(v, list(VIEWS), n=1)
        if guess:
            raise Mistake(MESSAGES["view_guess"], view=excerpt(v), guess=repr(guess[0]), views=", ".join(VIEWS))
        raise Mistake(MESSAGES["view"], view=excerpt(v), views=", ".join(VIEWS))
    r.view = v


def _controls_line(r: Reading, v: str) -> None:
    r.controls = value("controls", v)


# A step's lines that are not state: each key's reader. The first line is always `view:`; any other key is a
# state key (KEYS) the view must read. (Issue 32 adds expect:, ask:, notes: here.)
LINE_KEYS: dict[str, Callable[[Reading, str], None]] = {"view": _view_line, "controls": _controls_line}


def _state_line(r: Reading, k: str, v: str) -> None:
    if k in KEYS and k not in VIEWS[r.view].keys:
        keys = VIEWS[r.view].keys
        if not keys:
            raise Mistake(MESSAGES["reads_none"], view=r.view, key=repr(k))
        raise Mistake(MESSAGES["reads"], view=r.view, key=repr(k), keys=", ".join(keys))
    r.state[k] = value(k, v, r.variants)


def _check_controls(r: Reading) -> None:
    offered = VIEWS[r.view].controls
    for c in r.controls:
        if c not in offered:
            if not offered:
                raise Mistake(MESSAGES["offers_none"], view=r.view, control=excerpt(c))
            raise Mistake(MESSAGES["offers"], view=r.view, controls=", ".join(offered), control=excerpt(c))
    if len(r.controls) > CONTROL_MAX:
        raise Mistake(MESSAGES["controls"], most=CONTROL_MAX, n=len(r.controls))


def _check_panel(r: Reading) -> None:
    """A chart's panel past its last (panel: 1 of the mask run's one panel) is refused here, not drawn as another."""
    count = VIEWS[r.view].panel_count(r.state)
    panel = r.state.get("panel", 0)
    if count and panel >= count:
        raise Mistake(PANEL_PAST, panel=panel, last=count - 1)


def _check_settings(r: Reading) -> None:
    """The variant's own Options (Option.validate) and the layer's config accept the step's settings, as the app's
    views would: an unknown option, a value out of range, a nested object, heads that do not divide d_model."""
    if "variant" not in VIEWS[r.view].keys or not isinstance(r.variants, Mapping):
        return
    name = r.state.get("variant", DEFAULTS["variant"])
    variant = r.variants.get(name)
    if variant is None:
        return
    reads = VIEWS[r.view].keys

    def check() -> str:
        """Why the variant refuses the settings ("" when it takes them), said in the current language."""
        st = {**DEFAULTS, **{k: v for k, v in r.state.items() if k in reads}}
        try:
            config = AttentionConfig(d_model=st["d_model"], n_heads=st["heads"], options=st["options"])
            if name in getattr(r.variants, "trusted", ()):
                construct(variant, config)  # a built-in's own checks too (gqa: n_kv_heads divides n_heads)
            else:  # (a plugin's build() runs only in its worker process: its Options say what it takes)
                config.with_options(tuple(getattr(variant, "options", ())))
        except (ConfigError, TypeError, ValueError) as exc:
            return str(exc)
        return ""

    if check():
        raise Mistake(MESSAGES["settings"], variant=name, reason=check)


CHECKS: tuple[tuple[Callable[[Reading], None], tuple[str, ...]], ...] = (  # (check, the keys whose line it names)
    (_check_controls, ("controls",)),
    (_check_panel, ("panel", "experiment")),
    (_check_settings, ("options", "heads", "d_model", "variant")),
)


def read_step(title: str, body: list[tuple[int, str]], line: int, path: str, variants: Variants, folder: Path,
          lesson: str) -> Step:
    """A step from its heading and the lines under it: state lines up to the first blank line, then text."""
    r, lines = Reading(title, line, variants), list(body)
    while lines and lines[0][1].strip():
        at, text = lines.pop(0)
        m = re.match(r"([A-Za-z_][\w-]*)\s*:\s*(.*)\Z", text.strip())
        if not m:
            raise LessonError(path, at, MESSAGES["state_line"], lesson=lesson, line=excerpt(text.strip()))
        k, v = m.group(1), m.group(2).strip()
        if r.view is None and k != "view":
            raise LessonError(path, at, MESSAGES["view_first"], lesson=lesson)
        try:
            LINE_KEYS[k](r, v) if k in LINE_KEYS else _state_line(r, k, v)
        except Mistake as exc:
            raise LessonError.of(exc, path, at, lesson) from None
        if k in r.lines:
            raise LessonError(path, at, MESSAGES["twice"], lesson=lesson, key=repr(k))
        r.lines[k] = at
    if r.view is None:
        raise LessonError(path, line, MESSAGES["no_view"], lesson=lesson, title=excerpt(title))
    for check, keys in CHECKS:
        try:
            check(r)
        except Mistake as exc:
            raise LessonError.of(exc, path, r.at(*keys), lesson) from None
    while lines and not lines[0][1].strip():
        lines.pop(0)
    text = "\n".join(t for _, t in lines).rstrip()
    text_line = lines[0][0] if lines else line
    shown = (*images(f"## {title}", path, line, folder, lesson), *images(text, path, text_line, folder, lesson))
    return Step(title, r.view, r.state, tuple(r.controls), text, line, text_line, shown)


