"""What a page downloads: PNG exports of the views it was sent, and Step-through traces, each written once.

The page sends back the view it shows; only its stamp is used, to find the server's own copy of
that view (a request cannot make the server draw numbers it did not compute). Each PNG is drawn
once per stamp (matplotlib, off the hot path). Files live where Gradio serves them, each kind's
folder on a byte budget (core/serve/files.py).
"""

from __future__ import annotations

import json
from typing import Any

from ..config import ConfigError
from ..i18n import mark, t
from ..lab.session import Run
from ..lab.steps import trace_payload
from .cache import DrawnCache
from .files import FOLDER_BYTES, app_folder, content_name, written_once

SHOWN = DrawnCache(max_items=512)  # stamp -> view dict the server sent (shared with the view caches, not copied)
EXPIRED = mark("This view is no longer on the server; change a setting to redraw it, then export again.")


def remember(view: dict[str, Any]) -> dict[str, Any]:
    """Note a view that is being sent to a page (by its stamp); returns it unchanged."""
    SHOWN.put(view["stamp"], view)
    return view


def png_file(shown: Any, folder: str | None = None) -> str:
    """The PNG of the view the page shows, as a file to download; ConfigError if the server no longer has it."""
    stamp = shown.get("stamp") if isinstance(shown, dict) else None
    view = SHOWN.peek(stamp) if isinstance(stamp, str) else None
    if view is None:
        raise ConfigError(t(EXPIRED))
    from ..render import export  # matplotlib loads on the first export, not at start-up

    return written_once(folder or app_folder("png"), f"attention-lab-{stamp}.png", lambda: export.png(view))


def trace_file(run: Run, folder: str | None = None, max_bytes: int = FOLDER_BYTES) -> str:
    """The Step-through trace JSON of a request, written once (named by its content), as a path to download."""
    data = json.dumps(trace_payload(run), ensure_ascii=False).encode()
    return written_once(folder or app_folder("traces"), content_name("attention-trace", data, ".json"),
                        lambda: data, max_bytes)
