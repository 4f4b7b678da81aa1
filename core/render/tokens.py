"""Text a person, a plugin, a model or a file supplied, as a view shows it: every character visible, never markup.

`visible(token)`: a bidi override (U+202E turns "RTL" into "LTR" on screen), a zero-width space or any other
invisible control reads as ⟨U+202E⟩, so what a label says is what the data holds. The drawn views (core.render.matrix:
the app's, the notebook's, the Real model's), the Real model's tables and the lesson checks all call it.
`markdown_text(text)`: the same text inside lab-made Markdown (a check line), every Markdown and HTML character
backslash-escaped, so it reads as typed and never becomes a heading, a link or a tag.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}  # controls, format (bidi, zero-width), surrogates, unassigned
JOINERS = {"\u200c", "\u200d"}  # ZWNJ, ZWJ: they join the letters or emoji either side of them (a family emoji)
_ASCII_PUNCTUATION = re.compile(r"([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])")


def _shown(text: str, i: int) -> bool:
    """Whether text[i] draws as itself: not an invisible character, or a joiner between two visible ones."""
    ch = text[i]
    if ch == " " or unicodedata.category(ch) not in INVISIBLE:
        return True
    return (ch in JOINERS and 0 < i < len(text) - 1 and not text[i - 1].isspace() and not text[i + 1].isspace()
            and unicodedata.category(text[i - 1]) not in INVISIBLE
            and unicodedata.category(text[i + 1]) not in INVISIBLE)


def visible(text: str) -> str:
    """text with each invisible or direction-changing character written as ⟨U+XXXX⟩ (idempotent)."""
    text = str(text)
    if text.isprintable() and text.isascii():
        return text  # the common case, at no cost
    return "".join(ch if _shown(text, i) else f"⟨U+{ord(ch):04X}⟩" for i, ch in enumerate(text))


def all_visible(texts: Iterable[str]) -> list[str]:
    """visible() of each text (a view's rows or columns)."""
    return [visible(t) for t in texts]


def markdown_text(text: str) -> str:
    """text, made visible, as Markdown that shows it as typed: ASCII punctuation backslash-escaped (CommonMark),
    so `<h1>`, `**`, `[a](b)`, `$x$` and `&amp;` are characters, not markup."""
    return _ASCII_PUNCTUATION.sub(r"\\\1", visible(text))
