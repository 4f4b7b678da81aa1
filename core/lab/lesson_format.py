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
against it. Plain Python (no torch, no gradio): the CLI's `lesson check` and the app both read lessons with it.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .lesson_keys import (
    CARDS,
    CONTROL_MAX,
    D_MODELS,
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

__all__ = [  # the tables (core.lab.lesson_keys), re-exported: code reads them as lesson_format.X too
    "CARDS", "CONTROL_MAX", "D_MODELS", "DROPOUT", "EXPERIMENTS", "KEYS", "LANGUAGES", "MISTAKES", "MODES",
    "PANEL_PAST", "PANELS", "RANDOM", "STAGES", "VIEWS", "Key", "View",
    "MAX_TEXT", "NAME", "Lesson", "LessonError", "Step", "parse", "read", "safe_markdown", "value",
]

MAX_TEXT = 4096
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}\Z")


class LessonError(ValueError):
    """A mistake in a lesson file, as one sentence that names the file and the line."""

    def __init__(self, path: str, line: int, message: str) -> None:
        self.path, self.line, self.message = path, line, message
        super().__init__(f"{Path(path).name} line {line}: {message}")


@dataclass(frozen=True)
class Step:
    """One screen: a title, a view with its state preset, the controls it offers, the text (Markdown)."""

    title: str
    view: str
    state: dict[str, Any]
    controls: tuple[str, ...]
    text: str
    line: int


@dataclass(frozen=True)
class Lesson:
    """A lesson as read from its file, in one language."""

    name: str
    title: str
    language: str
    steps: tuple[Step, ...]
    path: str
    summary: str = ""  # the text before the first step, shown under the picker
    source: str = field(default="", compare=False)  # "built-in", a folder, or a plugin's name


def _bool(text: str) -> bool | None:
    return {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}.get(text.lower())


def value(name: str, text: str, variants: set[str] | None = None) -> Any:
    """One state value from its text; ValueError (the sentence's end) when it is not one the key takes."""
    spec = KEYS.get(name)
    if spec is None:
        raise ValueError(f"{name!r} is not a state key; the keys are {', '.join(KEYS)}")
    if spec.kind == "text":
        if not text or len(text) > MAX_TEXT:
            raise ValueError(f"{name} needs a text of 1 to {MAX_TEXT} characters")
        return text
    if spec.kind == "bool":
        b = _bool(text)
        if b is None:
            raise ValueError(f"{name} is true or false, not {text!r}")
        return b
    if spec.kind == "int":
        if not re.fullmatch(r"-?\d+", text):
            raise ValueError(f"{name} is a whole number, not {text!r}")
        n = int(text)
        if not spec.minimum <= n <= spec.maximum:
            raise ValueError(f"{name} is a whole number from {spec.minimum} to {spec.maximum}, not {n}")
        return n
    if spec.kind == "choice":
        for choice in spec.choices:
            if text == str(choice):
                return choice
        raise ValueError(f"{name} is one of {', '.join(map(str, spec.choices))}, not {text!r}")
    if spec.kind == "variant":
        if variants is not None and text not in variants:
            raise ValueError(f"variant {text!r} is not registered; the variants are {', '.join(sorted(variants))}")
        return text
    if spec.kind == "json":
        try:
            obj = json.loads(text)
        except json.JSONDecodeError:
            obj = None
        if not isinstance(obj, dict):
            raise ValueError(f"{name} is a JSON object such as {{\"window\": 3}}, not {text!r}")
        return obj
    items = tuple(p.strip() for p in text.split(",") if p.strip())  # "list"
    return items


def _front(lines: list[str], path: str) -> tuple[dict[str, str], int]:
    """The front matter between the two '---' lines -> {key: text}, and the index of the line after it."""
    if not lines or lines[0].strip() != "---":
        raise LessonError(path, 1, "a lesson starts with a line '---', then lesson:, title: and language:, then '---'")
    meta: dict[str, str] = {}
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return meta, i + 1
        if not line.strip():
            continue
        k, sep, v = line.partition(":")
        if not sep or k.strip() not in ("lesson", "title", "language"):
            raise LessonError(path, i + 1, f"the front matter takes lesson:, title: and language:, not {line.strip()!r}")
        meta[k.strip()] = v.strip()
    raise LessonError(path, len(lines), "the front matter has no closing '---' line")


def _check_meta(meta: dict[str, str], path: str) -> None:
    if not NAME.match(meta.get("lesson", "")):
        raise LessonError(path, 2, "lesson: needs a name of lower-case letters, digits and '-', like my-lesson")
    if not meta.get("title"):
        raise LessonError(path, 2, "title: is missing")
    if meta.setdefault("language", "en") not in LANGUAGES:
        raise LessonError(path, 2, f"language is one of {', '.join(LANGUAGES)}, not {meta['language']!r}")


def _step(title: str, body: list[tuple[int, str]], line: int, path: str, variants: set[str] | None) -> Step:
    """A step from its heading and the lines under it: state lines up to the first blank line, then text."""
    state: dict[str, Any] = {}
    view, at, lines = None, line, list(body)
    while lines and lines[0][1].strip():
        at, text = lines.pop(0)
        m = re.match(r"([A-Za-z_][\w-]*)\s*:\s*(.*)\Z", text.strip())
        if not m:
            raise LessonError(path, at, f"a state line reads 'key: value', not {text.strip()!r}")
        k, v = m.group(1), m.group(2).strip()
        if k == "view":
            if v not in VIEWS:
                guess = difflib.get_close_matches(v, list(VIEWS), n=1)
                hint = f"did you mean {guess[0]!r}? " if guess else ""
                raise LessonError(path, at, f"view {v!r} is not known; {hint}the views are {', '.join(VIEWS)}")
            view = v
            continue
        if view is None:
            raise LessonError(path, at, "a step's first line after its heading is 'view: NAME'")
        if k in KEYS and k not in VIEWS[view].keys and k != "controls":
            raise LessonError(path, at, f"view {view} does not read {k!r}; it reads {', '.join(VIEWS[view].keys) or 'no keys'}")
        if k in state:
            raise LessonError(path, at, f"{k!r} is set twice in this step")
        try:
            state[k] = value(k, v, variants)
        except ValueError as exc:
            raise LessonError(path, at, str(exc)) from None
    if view is None:
        raise LessonError(path, line, f"step {title!r} names no view; add a line 'view: NAME' under its heading")
    controls = state.pop("controls", ())
    offered = VIEWS[view].controls
    for c in controls:
        if c not in offered:
            raise LessonError(path, at, f"view {view} offers the controls {', '.join(offered) or 'none'}, not {c!r}")
    if len(controls) > CONTROL_MAX:
        raise LessonError(path, at, f"a step offers at most {CONTROL_MAX} controls, not {len(controls)}")
    text = "\n".join(t for _, t in lines).strip()
    return Step(title, view, state, tuple(controls), text, line)


def parse(text: str, path: str = "lesson.md", variants: set[str] | None = None, source: str = "") -> Lesson:
    """A lesson from its file's text; LessonError (file and line) at its first mistake. variants: the known names."""
    lines = text.splitlines()
    meta, start = _front(lines, path)
    _check_meta(meta, path)
    summary: list[str] = []
    steps: list[Step] = []
    heading: tuple[int, str] | None = None
    body: list[tuple[int, str]] = []
    for i in range(start, len(lines) + 1):
        line = lines[i] if i < len(lines) else None
        if line is None or line.startswith("## "):
            if heading is not None:
                steps.append(_step(heading[1], body, heading[0], path, variants))
            if line is None:
                break
            heading, body = (i + 1, line[3:].strip()), []
        elif heading is None:
            summary.append(line)
        else:
            body.append((i + 1, line))
    if not steps:
        raise LessonError(path, len(lines) or 1, "the lesson has no steps; each step starts with a line '## Title'")
    return Lesson(meta["lesson"], meta["title"], meta["language"], tuple(steps), str(path),
                  "\n".join(summary).strip(), source)


def read(path: str | Path, variants: set[str] | None = None, source: str = "") -> Lesson:
    """A lesson from its file; LessonError for a file that cannot be read or has a mistake."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LessonError(str(p), 1, f"the file cannot be read as UTF-8 text ({type(exc).__name__})") from None
    return parse(text, str(p), variants, source)


_CODE = re.compile(r"(`+)(.+?)\1", re.S)


def safe_markdown(text: str) -> str:
    """A teacher's Markdown with no HTML in it: < > & written as entities outside code spans (shown as typed)."""
    out, at = [], 0
    for m in _CODE.finditer(text):
        out.append(_escaped(text[at:m.start()]))
        out.append(m.group(0))
        at = m.end()
    out.append(_escaped(text[at:]))
    return "".join(out)


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
