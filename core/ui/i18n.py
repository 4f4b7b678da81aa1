"""English and 简体中文 for every visible string: static text through gr.I18n, the server's sentences by request.

Static text (labels, help, tab titles, buttons, the tabs' Markdown) is translated in the browser by
Gradio's own i18n: the browser's language picks it, and Gradio's Settings has the visible switch.
Gradio writes the language it shows into `<html lang>`; the page keeps it in a cookie (LANG_SCRIPT),
so every request says which language its sentences — notes, checks, summaries, errors, the labels of
a drawn view — must come back in. Untranslated text stays English; a test lists what is missing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import gradio as gr

from core.i18n import SOURCE, current, languages, lookup, normal, speaking

from .zh_cn import EXACT, KEEP, PHRASES, TEMPLATES

__all__ = ["current", "speaking", "normal", "LOCALES", "SOURCE"]

LOCALES = languages()  # English, then one per catalogue in core/locales
COOKIE = "lab_lang"

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


# ---- translating one text -------------------------------------------------------------------------------


def _compile(template: str) -> re.Pattern:
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+?)", re.escape(template))  # each {name} catches a value
    return re.compile(pattern + r"\Z", re.S)


_KEPT_SLOT = re.compile(r"(['\"])\{(\w+)\}\1|\{(\w+)\}(?==)|(?<==)\{(\w+)\}")
_CODE_SLOT = re.compile(r"`\{(\w+)\}`")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")


def _kept(template: str) -> dict[str, bool]:
    """Slots whose value may be shown as it is -> whether it is tried in translation first. A quoted slot ('{q}')
    holds the reader's own text, either side of KEY=VALUE ({name}={value}) a field and the value sent: as they are.
    A code span (`{formula}`): translated when it can be (the lab's own formula), else as it is (a plugin's)."""
    kept = {next(g for g in m.groups()[1:] if g): False for m in _KEPT_SLOT.finditer(template)}
    return kept | {m.group(1): True for m in _CODE_SLOT.finditer(template)}


def _slot(value: str, kept: dict[str, bool], name: str) -> str | None:
    if name not in kept:
        return _value(value)
    return (_value(value) or value) if kept[name] else value


@lru_cache(maxsize=1)
def _templates() -> list[tuple[re.Pattern, str, dict[str, bool]]]:
    return [(_compile(en), zh, _kept(en)) for en, zh in TEMPLATES]


_SENTENCE_END = re.compile(r"(?<=[.!?:;)])\s+(?=[A-Z(\"'`*])")
_NAME = re.compile(r"[#\w.\-|/]*[_.\-|/#\d][#\w.\-|/]*\Z")  # W_key, gpt2-small, attention_plugins.gqa, out0


def is_name(text: str) -> bool:
    """A name shown as itself in every language: an identifier, a variant or a package, a colour."""
    t = text.strip()
    return t in KEEP or bool(_NAME.match(t))


@lru_cache(maxsize=4096)
def zh(text: str) -> str | None:
    """The Chinese of one English text: exact, or a template (its values translated too), or line by line,
    or sentence by sentence; None when some part has no translation."""
    if text in EXACT:
        return EXACT[text]
    stripped = text.strip()
    if not stripped or not re.search(r"[A-Za-z]", stripped) or is_name(stripped):
        return text  # numbers, symbols, names, Chinese already
    if stripped != text:
        inner = zh(stripped)
        return None if inner is None else text.replace(stripped, inner)
    for pattern, target, kept in _templates():
        m = pattern.match(text)
        if m:
            values = {k: _slot(v, kept, k) for k, v in m.groupdict().items()}
            if all(v is not None for v in values.values()):
                return target.format(**values)
    for splitter, joiner in ((re.compile(r"\n"), "\n"), (_SENTENCE_END, "")):
        pieces = splitter.split(text)
        if len(pieces) > 1:
            done = [zh(p) for p in pieces]
            return joiner.join(done) if all(d is not None for d in done) else None
    return None


def _value(value: str) -> str | None:
    """A value a template caught: a text of its own, or a list of known phrases, numbers, names and quoted
    texts (a value as an error quotes it, a word the reader typed), or one quoted text."""
    if _QUOTED.fullmatch(value.strip()):
        return value
    whole = zh(value)
    if whole is not None:
        return whole
    out = "".join(p if _QUOTED.fullmatch(p) else _phrases(p) for p in re.split(f"({_QUOTED.pattern})", value))
    leftover = [w for w in re.findall(r"[A-Za-z][\w\-.]*", _QUOTED.sub(" ", out)) if not is_name(w)]
    return out if not leftover else None


def _phrases(text: str) -> str:
    """Known phrases of an unquoted stretch in Chinese (a quoted word is the reader's, left as it is)."""
    for phrase in sorted(PHRASES, key=len, reverse=True):
        text = re.sub(rf"(?<![\w']){re.escape(phrase)}(?![\w'])", PHRASES[phrase], text)
    return text


def tr(text: str, locale: str | None = None) -> str:
    """text in the request's language (or locale's); unchanged when it is English or has no translation."""
    lang = locale or current()
    if lang == SOURCE or not isinstance(text, str):
        return text
    found = lookup(text, lang)
    if found is not text:
        return found
    return (zh(text) or text) if lang == "zh-CN" else text


def missing(text: str) -> bool:
    """True when text is English a Chinese reader would see untranslated."""
    return zh(text) is None


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
    return gr.I18n(**{lang: {**{key(t): tr(t, lang) for t in every},
                             **{k: _made_in(make, lang) for k, make in _MADE.items()}} for lang in languages()})


def leftover(text: str) -> list[str]:
    """English words left in a text a Chinese reader sees (names, kept terms, quoted tokens, {slots} and the
    KEY=VALUE a field was sent as excepted)."""
    bare = re.sub(r"\{\w+\}|'[^']*'|\"[^\"]*\"|`[^`]*`|\b\w+=[^\s,;)]*", " ", text)
    chunks = (c.rstrip(".-/") for c in re.findall(r"[#\w][\w\-.#/]*", bare))
    return [c for c in chunks if re.search(r"[A-Za-z]{2}", c) and not is_name(c)]
