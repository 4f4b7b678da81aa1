"""Where a plugin's exception came from: the file:line of its own code, not the lab's, torch's or Python's."""

from __future__ import annotations

import threading
import traceback
from pathlib import Path

_CORE = str(Path(__file__).resolve().parent)
_STDLIB = str(Path(threading.__file__).resolve().parent)


def where(exc: BaseException) -> str:
    """file:line of the innermost frame that is not the lab's, the standard library's or torch's: the plugin's line."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _foreign(f.filename)]
    return f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""


def _foreign(filename: str) -> bool:
    path = str(Path(filename).resolve()) if filename.startswith("/") else filename
    if path.startswith(_CORE) or "/site-packages/torch/" in path or "/site-packages/pluggy/" in path:
        return False
    return not (path.startswith(_STDLIB) and "/site-packages/" not in path)
