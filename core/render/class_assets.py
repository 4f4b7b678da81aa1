"""The live class's scripts and style (web/class_draw.js, class_dock.js, classroom.js, classroom.css): loaded by the
class panel only, from the app
itself, at an address that changes with their content (as core.render.web does for the views)."""

from __future__ import annotations

import hashlib
from functools import lru_cache

from .web import ASSETS, URL_PREFIX

FILES = ("classroom.css", "class_draw.js", "class_dock.js", "classroom.js")  # (in order: classroom.js uses both)


@lru_cache(maxsize=1)
def head() -> str:
    """The <head> tags of the class panel (Gradio loads each src/href once)."""
    h = hashlib.blake2b(digest_size=6)
    for name in FILES:
        h.update((ASSETS / name).read_bytes())
    src = {name: f"{URL_PREFIX}{ASSETS / name}?v={h.hexdigest()}" for name in FILES}
    return "".join(f'<link rel="stylesheet" href="{u}">' if n.endswith(".css") else f'<script src="{u}"></script>'
                   for n, u in src.items())
