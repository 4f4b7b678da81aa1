"""PNG exports of the views a page was sent, drawn once on demand (matplotlib, off the hot path).

The page sends back the view it shows; only its stamp is used, to find the server's own copy of
that view (a request cannot make the server draw numbers it did not compute). Each PNG is drawn
once per stamp and kept as a file for the download.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from ..config import ConfigError
from ..render import export
from .cache import DrawnCache

SHOWN = DrawnCache(max_items=512)  # stamp -> view dict the server sent (shared with the view caches, not copied)
FILES = DrawnCache(max_items=128)  # stamp -> path of its PNG
EXPIRED = "This view is no longer on the server; change a setting to redraw it, then export again."


def remember(view: dict[str, Any]) -> dict[str, Any]:
    """Note a view that is being sent to a page (by its stamp); returns it unchanged."""
    SHOWN.put(view["stamp"], view)
    return view


def png_file(shown: Any, folder: str | None = None) -> str:
    """The PNG of the view the page shows, as a file to download; ConfigError if the server no longer has it."""
    stamp = shown.get("stamp") if isinstance(shown, dict) else None
    view = SHOWN.peek(stamp) if isinstance(stamp, str) else None
    if view is None:
        raise ConfigError(EXPIRED)

    def draw() -> str:
        path = os.path.join(folder or os.path.join(tempfile.gettempdir(), "attention-lab"), f"attention-lab-{stamp}.png")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = path + f".{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(export.png(view))
        os.replace(tmp, path)
        return path

    path = FILES.get(stamp, draw)
    return path if os.path.exists(path) else draw()
