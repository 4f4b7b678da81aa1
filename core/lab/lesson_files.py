"""Reading a lesson file without trusting it: a regular file inside its folder, UTF-8, at most MAX_BYTES.

A teacher's folder (ATTENTION_LAB_LESSONS) or a plugin's may hold anything: a symlink to a file elsewhere (whose
lines would be quoted publicly in a mistake's sentence), to /dev/zero (read whole: memory without end), a named
pipe (open() waits forever for a writer), a 5 MB file. Each is looked at before it is opened (lstat, then stat of
what a link inside the folder points to), opened without blocking and read with a cap, and refused in one sentence
naming the file; start-up goes on with the other files. Images a lesson shows follow the same rules (image_file).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..i18n import mark
from .lesson_errors import LessonError, word

MAX_BYTES = 1_000_000  # a lesson file: the built-in chapter is 6 KB
MAX_IMAGE_BYTES = 2_000_000  # an image a lesson shows
IMAGE_TYPES = {  # suffix -> (content type, how the file starts): only raster images (an SVG may hold scripts)
    ".png": ("image/png", (b"\x89PNG\r\n\x1a\n",)),
    ".jpg": ("image/jpeg", (b"\xff\xd8\xff",)),
    ".jpeg": ("image/jpeg", (b"\xff\xd8\xff",)),
    ".gif": ("image/gif", (b"GIF87a", b"GIF89a")),
    ".webp": ("image/webp", (b"RIFF",)),
}
KINDS = {  # what a path that is not a regular file is, in words
    stat.S_IFDIR: mark("a folder"), stat.S_IFIFO: mark("a named pipe"), stat.S_IFCHR: mark("a device"),
    stat.S_IFBLK: mark("a device"), stat.S_IFSOCK: mark("a socket"),
}
MESSAGES = {  # (a lesson file's sentence starts with its name; an image's is quoted after "cannot be shown:")
    "outside": mark("this file is outside the lesson's folder, or a link to a file outside it; lessons and their "
                    "images are read only from inside the folder"),
    "kind": mark("this is {kind}, not a file; lessons and their images are plain files"),
    "big": mark("this file is {size:,} bytes, more than the {most:,} bytes allowed"),
    "utf8": mark("this file is not UTF-8 text (byte {at:,} cannot be read); save it as UTF-8"),
    "unreadable": mark("this file cannot be read ({reason})"),
    "missing": mark("this file is not there"),
}


def folder_of(place: str | Path) -> Path:
    """The folder whose files a place holds: itself, or a named file's own folder (links in it resolved)."""
    p = Path(place)
    return (p if p.is_dir() else p.parent).resolve()


def _kind(mode: int) -> str | None:
    """The words for a file type that is not a regular file (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return KINDS.get(stat.S_IFMT(mode), mark("a special file"))


def opened_bytes(path: str | Path, folder: Path, most: int) -> bytes:
    """The bytes of a regular file inside folder, at most `most` of them; LessonError (whole file) otherwise.
    Never blocks (a pipe is refused before it is opened, and opened without waiting if it appears in between)."""
    p = Path(path)
    try:
        real = p.resolve(strict=True)
    except (OSError, RuntimeError):  # missing, a broken link, or a loop of links
        raise LessonError(p, None, MESSAGES["missing"]) from None
    if real != folder and folder not in real.parents:
        raise LessonError(p, None, MESSAGES["outside"])
    try:
        mode = os.stat(real).st_mode
        kind = _kind(mode)
        if kind is not None:
            raise LessonError(p, None, MESSAGES["kind"], kind=word(kind))
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
        try:
            st = os.fstat(fd)  # what was opened: still a regular file, and not too big
            kind = _kind(st.st_mode)
            if kind is not None:
                raise LessonError(p, None, MESSAGES["kind"], kind=word(kind))
            if st.st_size > most:
                raise LessonError(p, None, MESSAGES["big"], size=st.st_size, most=most)
            chunks, left = [], most + 1
            while left > 0:
                chunk = os.read(fd, min(left, 1 << 16))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
        finally:
            os.close(fd)
    except OSError as exc:
        raise LessonError(p, None, MESSAGES["unreadable"], reason=type(exc).__name__) from None
    data = b"".join(chunks)
    if len(data) > most:  # grew while it was read
        raise LessonError(p, None, MESSAGES["big"], size=len(data), most=most)
    return data


def read_text(path: str | Path, folder: Path) -> str:
    """A lesson file's text: a regular file inside folder, at most MAX_BYTES, UTF-8; LessonError otherwise."""
    data = opened_bytes(path, folder, MAX_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LessonError(path, None, MESSAGES["utf8"], at=exc.start) from None


def files(place: str | Path) -> list[Path]:
    """The lesson files of a folder (its *.md, sorted, whatever they are: read_text judges each), or the one file
    named. Listing a folder never opens its files."""
    p = Path(place)
    if p.is_dir():
        try:
            return sorted(e for e in p.iterdir() if e.name.endswith(".md"))
        except OSError:
            return []
    return [p]
