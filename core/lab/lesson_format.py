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
against it: the front matter, then each step (core.lab.lesson_step: its lines by a table of keys, LINE_KEYS then the
state KEYS, then the whole step by CHECKS, so a new kind of line is one more row). How a file is opened is
core.lab.lesson_files; its Markdown, core.lab.lesson_markdown. Plain Python (no torch, no gradio): the CLI's
`lesson check` and the app both read lessons with it, and refuse the same mistakes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..i18n import mark
from ..mistakes import excerpt
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
from .lesson_step import Step, read_step
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
    "no_steps": mark("the lesson has no steps; each step starts with a line '## Title'"),
    "steps": mark("a lesson has at most {most} steps; this is step {n}"),
}


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
                steps.append(read_step(heading[1], body, heading[0], path, variants, folder, name))
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
