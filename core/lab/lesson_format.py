"""The lesson file format: Markdown a teacher writes in a text editor, read into steps, each mistake one sentence.

A lesson file (docs/lessons.md has the whole story and an example):

    ---
    lesson: chapter            the name ?lesson= takes (letters, digits, '-')
    title: Causal self-attention
    language: en               en or zh-CN (a lesson may ship one file per language)
    ---
    ## Step title
    view: trained              one of VIEWS; then the view's state keys, one per line, up to a blank line
    sentence: 合同 违约金 过高 ， 它 可能 存在 风险
    row: 4

    The step's text (Markdown, no HTML): the claim, then what to look at.

What a lesson may say (the views, the state keys and their values) is core.lab.lesson_keys; this module reads a file
against it: a step's lines are read by the table of keys (LINE_KEYS, then the state KEYS), then the whole step is
checked by CHECKS (the controls, a chart's panels, the variant's settings, the images), so a new kind of line is one
more row. How a file is opened is core.lab.lesson_files; its Markdown, core.lab.lesson_markdown. Plain Python (no
torch, no gradio): the CLI's `lesson check` and the app both read lessons with it, and refuse the same mistakes.
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
from .lesson_files import folder_of, read_text
from .lesson_keys import (
    CARDS,
    CONTROL_MAX,
    D_MODELS,
    DEFAULTS,
    DROPOUT,
    EXPERIMENTS,
    KEYS,
    LANGUAGES,
    MISTAKES,
    MODES,
    PANEL_PAST,
    PANELS,
    RANDOM,
    STAGES,
    VIEWS,
    Key,
    View,
)
from .lesson_markdown import Image, images
from .lesson_values import MAX_TEXT, Variants, value

__all__ = [  # the tables (core.lab.lesson_keys), re-exported: code reads them as lesson_format.X too
    "CARDS", "CONTROL_MAX", "D_MODELS", "DEFAULTS", "DROPOUT", "EXPERIMENTS", "KEYS", "LANGUAGES", "MISTAKES",
    "MODES", "PANEL_PAST", "PANELS", "RANDOM", "STAGES", "VIEWS", "Key", "View",
    "MAX_STEPS", "MAX_TEXT", "NAME", "Lesson", "LessonError", "Mistake", "Step", "parse", "read", "value",
]

MAX_STEPS = 500
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}\Z")
MESSAGES = {
    "start": mark("a lesson starts with a line '---', then lesson:, title: and language:, then '---'"),
    "front": mark("the front matter takes lesson:, title: and language:, not {line}"),
    "unclosed": mark("the front matter has no closing '---' line"),
    "name": mark("lesson: needs a name of lower-case letters, digits and '-', like my-lesson"),
    "title": mark("title: is missing"),
    "language": mark("language is one of {choices}, not {value}"),
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
    "no_steps": mark("the lesson has no steps; each step starts with a line '## Title'"),
    "steps": mark("a lesson has at most {most} steps; this is step {n}"),
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


@dataclass(frozen=True)
class Lesson:
    """A lesson as read from its file, in one language."""

    name: str
    title: str
    language: str
    steps: tuple[Step, ...]
    path: str
    summary: str = ""  # the text before the first step
    source: str = field(default="", compare=False)  # "built-in", a folder, or a plugin's name


def _front(lines: list[str], path: str) -> tuple[dict[str, str], int]:
    """The front matter between the two '---' lines -> {key: text}, and the index of the line after it."""
    if not lines or lines[0].strip() != "---":
        raise LessonError(path, 1, MESSAGES["start"])
    meta: dict[str, str] = {}
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return meta, i + 1
        if not line.strip():
            continue
        k, sep, v = line.partition(":")
        if not sep or k.strip() not in ("lesson", "title", "language"):
            raise LessonError(path, i + 1, MESSAGES["front"], line=excerpt(line.strip()))
        meta[k.strip()] = v.strip()
    raise LessonError(path, len(lines), MESSAGES["unclosed"])


def _check_meta(meta: dict[str, str], path: str) -> None:
    if not NAME.match(meta.get("lesson", "")):
        raise LessonError(path, 2, MESSAGES["name"])
    if not meta.get("title"):
        raise LessonError(path, 2, MESSAGES["title"], lesson=meta["lesson"])
    if meta.setdefault("language", "en") not in LANGUAGES:
        raise LessonError(path, 2, MESSAGES["language"], lesson=meta["lesson"], choices=", ".join(LANGUAGES),
                          value=excerpt(meta["language"]))


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


def _step(title: str, body: list[tuple[int, str]], line: int, path: str, variants: Variants, folder: Path,
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


def parse(text: str, path: str = "lesson.md", variants: Variants = None, source: str = "",
          folder: str | Path | None = None) -> Lesson:
    """A lesson from its file's text; LessonError (file and line) at its first mistake. variants: the registry's
    (name -> Variant: its options are checked too) or just their names; folder: where its images must be."""
    folder = Path(folder).resolve() if folder is not None else folder_of(path)
    lines = text.splitlines()
    meta, start = _front(lines, path)
    _check_meta(meta, path)
    name = meta["lesson"]
    summary: list[str] = []
    steps: list[Step] = []
    heading: tuple[int, str] | None = None
    body: list[tuple[int, str]] = []
    for i in range(start, len(lines) + 1):
        line = lines[i] if i < len(lines) else None
        if line is None or line.startswith("## "):
            if heading is not None:
                steps.append(_step(heading[1], body, heading[0], path, variants, folder, name))
            if line is None:
                break
            if len(steps) >= MAX_STEPS:
                raise LessonError(path, i + 1, MESSAGES["steps"], lesson=name, most=MAX_STEPS, n=len(steps) + 1)
            heading, body = (i + 1, line[3:].strip()), []
        elif heading is None:
            summary.append(line)
        else:
            body.append((i + 1, line))
    if not steps:
        raise LessonError(path, len(lines) or 1, MESSAGES["no_steps"], lesson=name)
    return Lesson(name, meta["title"], meta["language"], tuple(steps), str(path), "\n".join(summary).strip(), source)


def read(path: str | Path, variants: Variants = None, source: str = "", folder: str | Path | None = None) -> Lesson:
    """A lesson from its file (a regular file inside folder, at most 1 MB of UTF-8: core.lab.lesson_files);
    LessonError for a file that cannot be read or has a mistake."""
    folder = Path(folder).resolve() if folder is not None else folder_of(path)
    return parse(read_text(path, folder), str(path), variants, source, folder)
