"""One step of a lesson file: its lines read by a table of keys, then the whole step checked, into a Step.

The first line under a step's heading is `view: NAME`; then one `key: value` per line up to a blank line, each read
by its row of LINE_KEYS (view, controls, and the class's moments: expect:, ask:, answers:, notes:) or, for a
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

from ..config import AttentionConfig
from ..i18n import mark
from ..mistakes import ConfigError, excerpt
from ..variant import construct
from .lesson_errors import LessonError, Mistake
from .lesson_expect import Expect
from .lesson_expect import parse as parse_expect
from .lesson_keys import CONTROL_MAX, DEFAULTS, KEYS, PANEL_PAST, VIEWS
from .lesson_markdown import Image, images
from .lesson_values import MAX_TEXT, Variants, value
from .lesson_values import MESSAGES as VALUE_MESSAGES

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
    "empty": mark("{key}: needs a text after the colon"),
    "answers": mark("answers: is 'tokens', 'number' or two to {most} options separated by ' | ', not {value}"),
    "answers_alone": mark("answers: says what a student may answer to the step's ask: line; add one"),
}
MESSAGES_TEXT = VALUE_MESSAGES["text"]
REPEAT = ("expect", "notes")  # lines a step may have several of
ANSWERS = ("tokens", "number")  # answers: a token of the sentence (the default) or a number; else options
MAX_OPTIONS = 6


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
    expect: tuple[Expect, ...] = ()  # what the step's numbers must show (core.lab.lesson_expect)
    ask: str = ""  # a question shown first; the view and its check revealed by the next press
    answers: tuple[str, ...] = ("tokens",)  # ("tokens",), ("number",) or the options a student picks from
    notes: str = ""  # speaker notes, shown only to the presenter


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
    expect: list[Expect] = field(default_factory=list)
    ask: str = ""
    answers: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    at_line: int = 0  # the line being read (an expectation keeps it)

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


def _expect_line(r: Reading, v: str) -> None:
    r.expect.append(parse_expect(v, r.view, r.at_line))


def _text(key: str, v: str) -> str:
    if not v:
        raise Mistake(MESSAGES["empty"], key=key)
    if len(v) > MAX_TEXT:
        raise Mistake(MESSAGES_TEXT, name=key, most=MAX_TEXT)
    return v


def _ask_line(r: Reading, v: str) -> None:
    r.ask = _text("ask", v)


def _answers_line(r: Reading, v: str) -> None:
    if v in ANSWERS:
        r.answers = (v,)
        return
    options = tuple(o.strip() for o in v.split(" | "))
    if not 2 <= len(options) <= MAX_OPTIONS or not all(options) or any(len(o) > 80 for o in options):
        raise Mistake(MESSAGES["answers"], most=MAX_OPTIONS, value=excerpt(v))
    r.answers = options


def _notes_line(r: Reading, v: str) -> None:
    r.notes.append(_text("notes", v))


# A step's lines that are not state: each key's reader. The first line is always `view:`; any other key is a
# state key (KEYS) the view must read. expect: and notes: may repeat (REPEAT).
LINE_KEYS: dict[str, Callable[[Reading, str], None]] = {
    "view": _view_line, "controls": _controls_line, "expect": _expect_line, "ask": _ask_line,
    "answers": _answers_line, "notes": _notes_line,
}


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


def _check_answers(r: Reading) -> None:
    if r.answers and not r.ask:
        raise Mistake(MESSAGES["answers_alone"])


CHECKS: tuple[tuple[Callable[[Reading], None], tuple[str, ...]], ...] = (  # (check, the keys whose line it names)
    (_check_controls, ("controls",)),
    (_check_panel, ("panel", "experiment")),
    (_check_settings, ("options", "heads", "d_model", "variant")),
    (_check_answers, ("answers",)),
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
        r.at_line = at
        try:
            LINE_KEYS[k](r, v) if k in LINE_KEYS else _state_line(r, k, v)
        except Mistake as exc:
            raise LessonError.of(exc, path, at, lesson) from None
        if k in r.lines and k not in REPEAT:
            raise LessonError(path, at, MESSAGES["twice"], lesson=lesson, key=repr(k))
        r.lines.setdefault(k, at)
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
    return Step(title, r.view, r.state, tuple(r.controls), text, line, text_line, shown, tuple(r.expect), r.ask,
                r.answers or ("tokens",), "\n".join(r.notes))


