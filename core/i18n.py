"""Every visible string in the reader's language: looked up by its gettext msgid where it is made, then formatted.

The msgid is the English text (with {named} fields); core/locales/<language>.po holds every other language, one
gettext catalogue each, read with Babel. A language is a data file: drop `xx.po` into core/locales and the app
speaks it (the browser's language chooses). Code never translates a finished sentence, it asks for the sentence:

    t("step {n} of {total}", n=3, total=19)      # -> "第 3 步，共 19 步" on a Chinese page
    ROW = mark("row={row} is past the sentence's last token; choose 0 to {last}")   # a constant, looked up later
    t(ROW, row=9, last=7)

`speaking(language)` sets the language for a block (an event's thread, a CLI run); outside one it is English.
The extraction keywords (`t`, `t_n`, `tc`, `mark`, and the page's `static`) are what `pybabel extract` reads
(docs/translating.md); tests/test_catalogues.py lists every msgid a catalogue lacks.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache, lru_cache
from gettext import c2py
from pathlib import Path
from string import Formatter

SOURCE = "en"  # the msgids' language: it needs no catalogue
LOCALES = Path(__file__).resolve().parent / "locales"
KEYWORDS = {"t": None, "t_n": (1, 2), "tc": ((1, "c"), 2), "mark": None, "static": None}  # Babel's extractor (-k)
CONTEXT = "\x04"  # gettext's separator of a context and its msgid (a catalogue's key for tc)
_language: ContextVar[str] = ContextVar("attention_lab_language", default=SOURCE)


@lru_cache(maxsize=1)
def languages() -> tuple[str, ...]:
    """The languages the app speaks: English, then one per catalogue file in core/locales (sorted)."""
    return (SOURCE, *sorted(p.stem for p in LOCALES.glob("*.po")))


def normal(tag: str | None) -> str:
    """A browser's language tag -> a language the app speaks: exact, else the same primary language (zh-TW,
    zh-Hans -> zh-CN; es-MX -> es), else English."""
    want = (tag or "").strip().replace("_", "-").lower()
    have = languages()
    for lang in have:
        if lang.lower() == want:
            return lang
    primary = want.split("-")[0]
    for lang in have:
        if lang.lower().split("-")[0] == primary and primary:
            return lang
    return SOURCE


@contextmanager
def speaking(language: str | None) -> Iterator[None]:
    """Within this block t() answers in `language` (made normal: any tag a browser sends)."""
    token = _language.set(normal(language))
    try:
        yield
    finally:
        _language.reset(token)


def current() -> str:
    """The language t() answers in here (an event's, a CLI run's), English by default."""
    return _language.get()


@cache
def catalogue(language: str) -> dict[str, str | tuple[str, ...]]:
    """One language's translations: msgid (or (singular, plural) -> forms) -> text; {} for English or no file."""
    path = LOCALES / f"{language}.po"
    if language == SOURCE or not path.is_file():
        return {}
    from babel.messages.pofile import read_po  # (Babel: only when a page first speaks another language)

    with path.open("rb") as fh:
        cat = read_po(fh, locale=language.replace("-", "_"))
    out: dict = {}
    for m in cat:
        if not m.id or m.fuzzy:
            continue
        if isinstance(m.id, (list, tuple)):
            if all(m.string):
                out[tuple(m.id)] = tuple(m.string)
        elif m.string:
            out[f"{m.context}{CONTEXT}{m.id}" if m.context else m.id] = m.string
    out["\0plural"] = c2py(cat.plural_expr)  # the catalogue's C expression of n, compiled by the stdlib's gettext
    return out


def lookup(msgid: str, language: str | None = None) -> str:
    """msgid's text in `language` (default: the current one); the msgid itself where the catalogue has none."""
    found = catalogue(language or current()).get(msgid)
    return found if isinstance(found, str) else msgid


def t(msgid: str, /, **fields: object) -> str:
    """The sentence msgid in the current language, its {fields} filled (after translation, never before)."""
    text = lookup(msgid)
    return _fill(text, msgid, fields) if fields else text


def tc(context: str, msgid: str, /, **fields: object) -> str:
    """t() for a msgid that means two things in English ("word": a column's title, a field named in an error):
    the context tells the translator which (gettext's msgctxt)."""
    found = catalogue(current()).get(f"{context}{CONTEXT}{msgid}")
    text = found if isinstance(found, str) else msgid
    return _fill(text, msgid, fields) if fields else text


def t_n(singular: str, plural: str, n: int, /, **fields: object) -> str:
    """A sentence about n things, in the plural form the current language uses for n ({n} is filled too)."""
    cat = catalogue(current())
    forms = cat.get((singular, plural))
    if isinstance(forms, tuple):
        index = cat["\0plural"](n)
        text = forms[min(max(index, 0), len(forms) - 1)]
    else:
        text = singular if n == 1 else plural
    return _fill(text, singular, {"n": n, **fields})


def mark(msgid: str) -> str:
    """A msgid kept in a constant and translated where it is used (t(CONSTANT, ...)): marked for extraction."""
    return msgid


_FIELDS = Formatter()


def _fill(text: str, msgid: str, fields: dict[str, object]) -> str:
    """text.format(**fields); a translation whose fields do not match its msgid's falls back to the msgid."""
    try:
        return text.format(**fields)
    except (KeyError, IndexError, ValueError, AttributeError):
        if text is msgid:
            raise
        return msgid.format(**fields)


def field_names(text: str) -> set[str]:
    """The {fields} a msgid or a translation uses (a test checks a translation keeps its msgid's)."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in _FIELDS.parse(text) if name}
