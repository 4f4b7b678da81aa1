"""Where lessons come from, read together: a folder's files in order, and every lesson that loaded or did not.

One broken file costs only itself: its sentence (file and line) joins .errors and the others still load.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .lesson_format import Lesson, LessonError, read


def files(place: str | Path) -> list[Path]:
    """The lesson files of a folder (its *.md, sorted), or the one file named."""
    p = Path(place)
    return sorted(p.glob("*.md")) if p.is_dir() else [p]


BUILT_IN = Path(__file__).resolve().parents[1] / "lessons"  # core/lessons: the built-in lessons, in this format


@dataclass
class Shelf:
    """Every lesson that loaded (name -> language -> Lesson), and one sentence per file that did not."""

    lessons: dict[str, dict[str, Lesson]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def names(self) -> list[str]:
        return list(self.lessons)

    def get(self, name: str, language: str = "en") -> Lesson | None:
        """The lesson in the language asked for, else in English, else in the language it has."""
        versions = self.lessons.get(name) or {}
        return versions.get(language) or versions.get("en") or next(iter(versions.values()), None)

    def add(self, lesson: Lesson) -> None:
        """Keep a lesson; one with a name and language already loaded is refused in a sentence."""
        have = self.lessons.setdefault(lesson.name, {})
        if lesson.language in have:
            first = Path(have[lesson.language].path).name
            self.errors.append(str(LessonError(lesson.path, 2, f"lesson {lesson.name!r} ({lesson.language}) is "
                                                               f"already loaded from {first}; rename it")))
            return
        have[lesson.language] = lesson


def shelf(places: list[tuple[str | Path, str]], variants: set[str] | None = None) -> Shelf:
    """Read every lesson file of every (folder or file, source) in order; a broken file costs only itself."""
    out = Shelf()
    for place, source in places:
        if not Path(place).exists():
            out.errors.append(f"{place}: no such folder or file ({source}); its lessons are not loaded")
            continue
        for path in files(place):
            try:
                out.add(read(path, variants, source))
            except LessonError as exc:
                out.errors.append(str(exc))
    return out
