"""Where lessons come from, read together: a folder's files in order, and every lesson that loaded or did not.

One broken file costs only itself: its LessonError (file and line, said in the reader's language) joins .errors and
the others still load. A lesson's name belongs to the first folder (or plugin) that loads it: a teacher's `chapter`
is refused, never mixed into the built-in one. The app (core.serve.lessons) and `attention-lab lesson check` read
lessons through this one shelf, so they refuse the same files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..i18n import mark
from .lesson_errors import LessonError
from .lesson_files import files, folder_of
from .lesson_format import Lesson, read
from .lesson_values import Variants

BUILT_IN = Path(__file__).resolve().parents[1] / "lessons"  # core/lessons: the built-in lessons, in this format
BUILT_IN_SOURCE = "built-in"
MESSAGES = {
    "nowhere": mark("no such folder or file ({source}); its lessons are not loaded"),
    "twice": mark("lesson {name} ({language}) is already loaded from {first}; rename it"),
    "built_in": mark("lesson {name} is the name of a built-in lesson; rename it"),
    "taken": mark("lesson {name} is already loaded from {first}, in another folder; rename it"),
}

__all__ = ["BUILT_IN", "Shelf", "files", "shelf"]


@dataclass
class Shelf:
    """Every lesson that loaded (name -> language -> Lesson), and one LessonError per file that did not."""

    lessons: dict[str, dict[str, Lesson]] = field(default_factory=dict)
    errors: list[LessonError] = field(default_factory=list)

    def names(self) -> list[str]:
        return list(self.lessons)

    def get(self, name: str, language: str = "en") -> Lesson | None:
        """The lesson in the language asked for, else in English, else in the language it has."""
        versions = self.lessons.get(name) or {}
        return versions.get(language) or versions.get("en") or next(iter(versions.values()), None)

    def failed(self, name: str) -> LessonError | None:
        """Why a lesson of that name did not load (its first file's sentence), None when none failed."""
        return next((e for e in self.errors if e.lesson == name), None)

    def add(self, lesson: Lesson) -> None:
        """Keep a lesson; one whose name another folder has, or whose name and language are loaded, is refused."""
        have = self.lessons.get(lesson.name) or {}
        first = next(iter(have.values()), None)
        if first is not None and first.source != lesson.source:
            if first.source == BUILT_IN_SOURCE:
                raise LessonError(lesson.path, 2, MESSAGES["built_in"], lesson=lesson.name, name=repr(lesson.name))
            raise LessonError(lesson.path, 2, MESSAGES["taken"], lesson=lesson.name, name=repr(lesson.name),
                              first=Path(first.path).name)
        if lesson.language in have:
            raise LessonError(lesson.path, 2, MESSAGES["twice"], lesson=lesson.name, name=repr(lesson.name),
                              language=lesson.language, first=Path(have[lesson.language].path).name)
        self.lessons.setdefault(lesson.name, {})[lesson.language] = lesson


def shelf(places: list[tuple[str | Path, str]], variants: Variants = None) -> Shelf:
    """Read every lesson file of every (folder or file, source) in order; a broken file costs only itself.
    variants: the registry's (name -> Variant), so a step's options are checked as the app's views check them."""
    out = Shelf()
    for place, source in places:
        if not Path(place).exists():
            out.errors.append(LessonError(place, None, MESSAGES["nowhere"], source=source))
            continue
        folder = folder_of(place)
        for path in files(place):
            try:
                out.add(read(path, variants, source, folder))
            except LessonError as exc:
                out.errors.append(exc)
    return out
