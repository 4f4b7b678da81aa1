"""The images lessons show, served by the app itself from the lessons' folders, and nothing else.

A lesson's image is a file its parser checked (core.lab.lesson_markdown: inside the lesson's folder, PNG, JPEG, GIF
or WebP, at most 2 MB). `url(file)` gives the page its address, /lesson-image/<key>.<ext>, where the key names only
that file; `LessonImages` (ASGI middleware) answers those addresses and no other path, checking the file again as it
reads it (still a regular file where it was, still an image, still under the cap, read with the cap). A student's
browser fetches a lesson's image from the lab, never from another host.
"""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from typing import Any

import anyio.to_thread

from ..lab.lesson_errors import LessonError
from ..lab.lesson_files import IMAGE_TYPES, MAX_IMAGE_BYTES, opened_bytes
from .limits import answer

PREFIX = "lesson-image/"
PATH = re.compile(r"^/lesson-image/([0-9a-f]{24})(\.[a-z]{3,4})$")
GONE = "The lab has no lesson image at this address; reload the lesson."
_files: dict[str, Path] = {}  # key -> the checked file
_lock = threading.Lock()


def url(file: str | Path) -> str:
    """The page's address of a checked image file (relative to the page, so it works under a root path too)."""
    path = Path(file)
    key = hashlib.blake2b(str(path).encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()
    with _lock:
        _files[key] = path
    return f"{PREFIX}{key}{path.suffix.lower()}"


def image(key: str, suffix: str) -> tuple[bytes, str] | None:
    """(the bytes, the content type) of a registered image, checked again now; None for anything else."""
    path = _files.get(key)
    kind = IMAGE_TYPES.get(suffix)
    if path is None or kind is None or path.suffix.lower() != suffix:
        return None
    try:
        data = opened_bytes(path, path.parent, MAX_IMAGE_BYTES)
    except LessonError:
        return None
    if not data.startswith(kind[1]) or (suffix == ".webp" and data[8:12] != b"WEBP"):
        return None
    return data, kind[0]


class LessonImages:
    """ASGI middleware: GET/HEAD /lesson-image/<key>.<ext> answered with that image (or a 404 sentence)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith("/lesson-image/"):
            await self.app(scope, receive, send)
            return
        match = PATH.match(path)
        found = None
        if match and scope.get("method") in ("GET", "HEAD"):  # (read in a thread: the event loop never waits on a disk)
            found = await anyio.to_thread.run_sync(image, match.group(1), match.group(2))
        if found is None:
            await answer(send, 404, GONE)
            return
        data, kind = found
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", kind.encode()), (b"content-length", str(len(data)).encode()),
            (b"x-content-type-options", b"nosniff"), (b"cache-control", b"private, max-age=300"),
            (b"content-security-policy", b"default-src 'none'"),
        ]})
        await send({"type": "http.response.body", "body": b"" if scope.get("method") == "HEAD" else data})
