"""The live class's script and style (web/classroom.js, classroom.css): loaded by the class panel only, from the app
itself, at an address that changes with their content (as core.render.web does for the views)."""

from __future__ import annotations

import hashlib
from functools import lru_cache

from .web import ASSETS, URL_PREFIX

FILES = ("classroom.js", "classroom.css")


@lru_cache(maxsize=1)
def head() -> str:
    """The <head> tags of the class panel (Gradio loads each src/href once)."""
    h = hashlib.blake2b(digest_size=6)
    for name in FILES:
        h.update((ASSETS / name).read_bytes())
    js, css = (f"{URL_PREFIX}{ASSETS / name}?v={h.hexdigest()}" for name in FILES)
    return f'<link rel="stylesheet" href="{css}"><script src="{js}"></script>'
