"""A lesson's Markdown as markdown-it-py reads it (CommonMark, raw HTML off), and the images it may show.

One parser for the check (here, when a lesson is read) and for the page (core.render.lesson_html): what the check
passes is what the page draws. HTML in a lesson is text, never markup (markdown-it escapes it). An image is a file
of the lesson's own folder, served by the app (core.serve.lesson_images); any other image (another host, a data:
URI, a path out of the folder, a file that is not a PNG, JPEG, GIF or WebP under 2 MB) is refused in one sentence
naming the file and the line, so no student's browser ever fetches from elsewhere because of a lesson.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt

from ..i18n import mark
from .lesson_errors import LessonError
from .lesson_files import IMAGE_TYPES, MAX_IMAGE_BYTES, opened_bytes

MESSAGES = {
    "remote": mark("the image {src} is not in this lesson's folder; a lesson shows only images from its own folder, "
                   "so copy it there"),
    "type": mark("the image {src} is not a PNG, JPEG, GIF or WebP file"),
    "file": mark("the image {src} cannot be shown: {reason}"),
}


def new_parser() -> MarkdownIt:
    """CommonMark with raw HTML off (a tag is shown as typed), no typographer, no autolinks of bare text."""
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})


_PARSER: list[MarkdownIt] = []  # made on first use (importing a module does no work)


def parser() -> MarkdownIt:
    """The one parser the checks read with (never given render rules: core.render.lesson_html has its own)."""
    if not _PARSER:
        _PARSER.append(new_parser())
    return _PARSER[0]


@dataclass(frozen=True)
class Image:
    """An image a step shows: as written in the file, and the file it is (checked: inside the lesson's folder)."""

    src: str
    file: str


def images(text: str, path: str | Path, first_line: int, folder: Path, lesson: str = "") -> tuple[Image, ...]:
    """Every image of a step's Markdown (text starts at first_line of the file), each a checked file of folder;
    LessonError at the image's line for any other."""
    out: dict[str, Image] = {}
    lines = text.splitlines()
    for block in parser().parse(text):
        for child in block.children or ():
            if child.type != "image":
                continue
            src = str(child.attrs.get("src", ""))
            line = first_line + _line_of(src, lines, block.map)
            if src not in out:
                out[src] = Image(src, str(_checked(src, path, line, folder, lesson)))
    return tuple(out.values())


def _line_of(src: str, lines: list[str], where: list[int] | None) -> int:
    """The line (from 0) of the block `where` that writes src (a reference's target may be elsewhere: its block)."""
    start, end = (where or [0, 1])
    for i in range(start, min(end, len(lines))):
        if src in lines[i] or unquote(src) in lines[i]:
            return i
    return start


def _checked(src: str, path: str | Path, line: int, folder: Path, lesson: str) -> Path:
    """The file an image names: a relative path inside the lesson's folder to a PNG, JPEG, GIF or WebP file."""
    parts = urlsplit(src)
    shown = src if len(src) <= 60 else src[:59] + "…"
    if parts.scheme or parts.netloc or src.startswith(("/", "\\")) or not parts.path:
        raise LessonError(path, line, MESSAGES["remote"], lesson=lesson, src=repr(shown))
    file = folder / unquote(parts.path)
    kind = IMAGE_TYPES.get(file.suffix.lower())
    if kind is None:
        raise LessonError(path, line, MESSAGES["type"], lesson=lesson, src=repr(shown))
    try:
        head = opened_bytes(file, folder, MAX_IMAGE_BYTES)[:16]
    except LessonError as exc:  # outside the folder, not a file, too big: the file's own sentence, at this line
        raise LessonError(path, line, MESSAGES["file"], lesson=lesson, src=repr(shown),
                          reason=lambda exc=exc: exc.message) from None
    if not head.startswith(kind[1]) or (file.suffix.lower() == ".webp" and head[8:12] != b"WEBP"):
        raise LessonError(path, line, MESSAGES["type"], lesson=lesson, src=repr(shown))
    return file.resolve()
