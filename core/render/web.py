"""The browser side of the views: the JS and CSS files the page loads from the app itself (never a CDN).

A view is a gr.HTML whose value is a dict of numbers and labels (built by core.render.matrix or
core.render.charts) and whose js_on_load hands it to `AttnLab.mount`; core.ui.common builds the
component. The files are package data, served by the app (gradio's static files) and cached by the
browser; the URL carries a hash of their content, so a new version is fetched after an update.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..text import scripts
from .colors import CATEGORICAL, HEADS_DARK

ASSETS = Path(__file__).resolve().parent / "web"
SCRIPTS = ("core.js", "access.js", "softmax.js", "axes.js", "cells.js", "cursor.js", "heatmaps.js", "thumbs.js",
           "headview.js", "modelview.js", "charts.js", "handout.js")  # in this order
STYLES = ("views.css", "tabs.css")  # the lab views; the other tabs' own layout
LESSON = ("lesson.css", "lesson.js")  # the Lesson tab's screen: its layout, presenting, printing, a clicker's keys
TEMPLATE = '<div class="al-root"></div>'  # static: the script draws inside it, Gradio never re-renders it
JS_ON_LOAD = "window.AttnLab.mount(element, props, watch, trigger);"
URL_PREFIX = "gradio_api/file="  # relative to the page, so it works behind a root path (a Space) too


@lru_cache(maxsize=1)
def version() -> str:
    """A short hash of every asset: changes whenever one of them does."""
    h = hashlib.blake2b(digest_size=6)
    for name in (*SCRIPTS, *STYLES, *LESSON):
        h.update((ASSETS / name).read_bytes())
    return h.hexdigest()


def url(name: str) -> str:
    return f"{URL_PREFIX}{ASSETS / name}?v={version()}"


def config() -> dict[str, Any]:
    """What the browser takes from the server rather than a copy of its own: the CJK ranges, the palette (and its
    twin for a dark page)."""
    return {"upright": scripts.js_class(scripts.UPRIGHT), "palette": list(CATEGORICAL), "palette_dark": list(HEADS_DARK)}


def config_script() -> str:
    """window.AttnLabConfig as an inline <script> (JSON, with "</" escaped so no text can end the tag)."""
    data = json.dumps(config()).replace("</", "<\\/")
    return f"<script>window.AttnLabConfig = {data};</script>"


@lru_cache(maxsize=1)
def head() -> str:
    """The <head> tags a view needs; Gradio runs the inline config, then loads each src/href once, in order."""
    links = "".join(f'<link rel="stylesheet" href="{url(n)}">' for n in STYLES)
    tags = "".join(f'<script src="{url(n)}"></script>' for n in SCRIPTS)
    return config_script() + links + tags


@lru_cache(maxsize=1)
def lesson_head() -> str:
    """The <head> tags of the Lesson tab's screen (its own CSS, then its page code)."""
    return "".join(f'<link rel="stylesheet" href="{url(n)}">' if n.endswith(".css") else f'<script src="{url(n)}"></script>'
                   for n in LESSON)


def stamp(*parts: object) -> str:
    """A short name for what a view shows (the page marks the drawing with it; tests and benches wait for it)."""
    text = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
