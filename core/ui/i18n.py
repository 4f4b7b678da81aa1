"""The page's side of the catalogues (core/locales): static text as gr.I18n keys, and the page's language per request.

Static text (labels, help, tab titles, buttons, the tabs' Markdown) is marked with static(msgid) where the component
is made and translated in the browser by Gradio's own i18n from the same catalogues as the server's sentences: the
browser's language picks it, and Gradio's Settings has the visible switch. Gradio writes the language it shows into
`<html lang>`; the page keeps it in a cookie (LANG_SCRIPT), so every request says which language its sentences —
notes, checks, summaries, errors, the labels of a drawn view — are made in (core.i18n.speaking, in blocks_seams).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

import gradio as gr

from core.i18n import SOURCE, current, languages, lookup, normal, speaking

__all__ = ["current", "speaking", "normal", "LOCALES", "SOURCE"]

LOCALES = languages()  # English, then one per catalogue in core/locales
COOKIE = "lab_lang"

# What a page runs to learn its language when it first shows a tab (<html lang> is Gradio's): its primary language
# ("es" for es-MX; zh-CN for any Chinese), so a tab's first values come in any language the catalogues hold.
PAGE_LANG_JS = """() => { const lang = (document.documentElement.lang || navigator.language || "en").toLowerCase();
  return lang.startsWith("zh") ? "zh-CN" : lang.split("-")[0]; }"""

# Kept in step with <html lang> (which Gradio sets from the browser and from its Settings switch), so the
# server learns the language of the page with every request. Loaded once, in the page's <head>.
LANG_SCRIPT = f"""<script>(function () {{
  function keep() {{
    var lang = document.documentElement.lang || navigator.language || "en";
    document.cookie = "{COOKIE}=" + encodeURIComponent(lang) + "; path=/; SameSite=Lax";
  }}
  keep();
  new MutationObserver(keep).observe(document.documentElement, {{attributes: true, attributeFilter: ["lang"]}});
}})();</script>"""


def locale_of(request: Any) -> str:
    """The language a request's page shows: the cookie the page keeps, else the browser's Accept-Language."""
    if isinstance(request, list):  # a batch: its first request speaks for it
        request = request[0] if request else None
    if request is None:
        return SOURCE
    cookies = getattr(request, "cookies", None) or {}
    if cookies.get(COOKIE):
        return normal(cookies[COOKIE])
    headers = getattr(request, "headers", None) or {}
    first = (headers.get("accept-language") or "").split(",")[0].split(";")[0]
    return normal(first)


# ---- static text, in the browser ---------------------------------------------------------------------------


def key(text: str) -> str:
    """The gr.I18n key of an English text (no dots: svelte-i18n reads dots as nesting)."""
    return "al_" + hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


_ENGLISH: dict[str, str] = {}  # key -> its English text
_MADE: dict[str, Callable[[], str]] = {}  # key -> how to make its text in the current language (static_made)
KEYS = gr.I18n()  # documented: calling a gr.I18n makes a key the page translates (its texts: catalogue())


def static(text: Any) -> Any:
    """A static text (a label, a tab's title, a button) as a translation key the page resolves in its own language:
    the msgid, marked for extraction (core.i18n.KEYWORDS); anything that is not text unchanged."""
    if isinstance(text, str) and re.search(r"[A-Za-z]", text) and not text.startswith("__i18n__"):
        _ENGLISH[key(text)] = text
        return KEYS(key(text))
    return text


def static_made(make: Callable[[], str]) -> Any:
    """A static text made by code from a msgid (a number filled in, a plugin's option and its help): make() is called
    again in each language the page may speak (under speaking()), so its words are looked up there, never parsed."""
    with speaking(SOURCE):
        text = make()
    _ENGLISH[key(text)] = text
    _MADE[key(text)] = make
    return KEYS(key(text))


def _made_in(make: Callable[[], str], language: str) -> str:
    with speaking(language):
        return make()


def english(value: Any) -> Any:
    """The English text behind a translation key (a label read by code, not by a person); anything else unchanged."""
    return _ENGLISH.get(getattr(value, "key", None), value) if not isinstance(value, str) else value


def catalogue(texts: set[str] = frozenset()) -> gr.I18n:
    """gr.I18n holding every static() text (and texts) in every language the app speaks (English where a
    catalogue lacks one: tests/test_catalogues.py lists those)."""
    every = set(texts) | set(_ENGLISH.values())
    return gr.I18n(**{lang: {**{key(t): lookup(t, lang) for t in every},
                             **{k: _made_in(make, lang) for k, make in _MADE.items()}} for lang in languages()})


