"""A mistake in a lesson file as one sentence naming the file (and line), said in the reader's language.

A lesson is read once, at start-up, in no one's language; its mistake is shown later to a teacher whose page may be
in Chinese or Spanish, and by `attention-lab lesson check` in English. So a LessonError keeps the sentence's msgid and
its fields, and becomes words only when it is shown (`str(error)` under core.i18n.speaking(language)). A field may
be a function of no arguments: a sentence of another module (an option the variant refuses) asked again then.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..i18n import mark, t

AT_LINE = mark("{file} line {line}: {message}")
WHOLE_FILE = mark("{file}: {message}")


class Mistake(ValueError):
    """One value a lesson cannot take: the sentence's msgid and fields (the caller adds the file and the line)."""

    def __init__(self, msgid: str, /, **fields: Any) -> None:
        self.msgid, self.fields = msgid, fields
        super().__init__(msgid)

    def __str__(self) -> str:
        return said(self.msgid, self.fields)


class LessonError(Mistake):
    """A mistake in a lesson file, as one sentence that names the file and the line (line None: the whole file).
    `lesson`: the lesson's name when the file got as far as saying it (a deep link to it says why it is missing)."""

    def __init__(self, path: str | Path, line: int | None, msgid: str, /, lesson: str = "", **fields: Any) -> None:
        super().__init__(msgid, **fields)
        self.path, self.line, self.lesson = str(path), line, lesson

    @property
    def file(self) -> str:
        return Path(self.path).name

    @property
    def message(self) -> str:
        """The sentence without the file and line, in the current language."""
        return said(self.msgid, self.fields)

    def __str__(self) -> str:
        if self.line is None:
            return t(WHOLE_FILE, file=self.file, message=self.message)
        return t(AT_LINE, file=self.file, line=self.line, message=self.message)

    @classmethod
    def of(cls, mistake: Mistake, path: str | Path, line: int | None, lesson: str = "") -> LessonError:
        """A value's mistake, placed at its file and line."""
        return cls(path, line, mistake.msgid, lesson=lesson, **mistake.fields)


def word(msgid: str) -> Callable[[], str]:
    """A field that is itself words (a file's kind): translated when the sentence is said, before it is filled."""
    return lambda: t(msgid)


def said(msgid: str, fields: dict[str, Any]) -> str:
    """msgid in the current language, its fields filled (a field that is a function: asked now)."""
    return t(msgid, **{k: (v() if isinstance(v, Callable) else v) for k, v in fields.items()})
