"""Files the app hands out (Step-through traces, PNG exports): written once, where Gradio serves them, on a budget.

They live inside Gradio's upload folder (GRADIO_TEMP_DIR, else <tmp>/gradio), so the server hands a file
out itself instead of copying it there first (one write, not two). Each kind has its own folder, kept
under a byte budget: asking for a file again marks it recent, and the files nobody asked for longest
are deleted first — a class downloading a thousand traces or pictures fills no disk.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Callable

FOLDER_BYTES = 64 * 2**20  # kept on disk at most per kind; the least recently asked for go first


def app_folder(kind: str) -> str:
    """The folder for one kind of file, inside Gradio's upload folder."""
    base = os.environ.get("GRADIO_TEMP_DIR") or os.path.join(tempfile.gettempdir(), "gradio")
    return os.path.join(os.path.realpath(base), f"attention-lab-{kind}")


def content_name(prefix: str, data: bytes, suffix: str) -> str:
    """A file name that is the same for the same bytes: a request asked twice is one file."""
    return f"{prefix}-{hashlib.sha256(data).hexdigest()[:16]}{suffix}"


def written_once(folder: str, name: str, make: Callable[[], bytes], max_bytes: int = FOLDER_BYTES) -> str:
    """The path of folder/name, written from make() if it is not there yet; the folder kept under max_bytes."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    if os.path.exists(path):
        os.utime(path)  # recently asked for: deleted last
        return path
    tmp = path + f".{os.getpid()}.{threading.get_ident()}.tmp"
    with open(tmp, "wb") as f:
        f.write(make())
    os.replace(tmp, path)
    keep_under(folder, max_bytes, keep=path)
    return path


def keep_under(folder: str, max_bytes: int, keep: str) -> None:
    """Delete the least recently used files until the folder holds at most max_bytes (keep survives)."""
    files = []
    for entry in os.scandir(folder):
        if not entry.name.endswith(".tmp") and entry.path != keep:
            try:
                st = entry.stat()
            except FileNotFoundError:
                continue  # another request deleted it meanwhile
            files.append((st.st_mtime, st.st_size, entry.path))
    total = sum(size for _, size, _ in files) + os.path.getsize(keep)
    for _, size, path in sorted(files):
        if total <= max_bytes:
            break
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
        total -= size
