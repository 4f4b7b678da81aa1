"""The Unicode ranges of Chinese and Japanese text, once: the tokenizers, the segmenter and the browser share them."""

from __future__ import annotations

Ranges = tuple[tuple[int, int], ...]

HAN: Ranges = (
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x20000, 0x3134F),  # CJK extensions B-G
)
KANA: Ranges = (
    (0x3040, 0x30FF),  # hiragana, katakana
    (0x31F0, 0x31FF),  # katakana extensions
    (0xFF66, 0xFF9F),  # half-width katakana
)
# A label in these scripts stands upright in a vertical axis title instead of lying on its side.
UPRIGHT: Ranges = (
    *HAN, *KANA,
    (0x3000, 0x303F),  # CJK symbols and punctuation (，。「」)
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xFF00, 0xFFEF),  # half-width and full-width forms
)


def contains(ranges: Ranges, ch: str) -> bool:
    """Whether one character's code point lies in the ranges."""
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in ranges)


def python_class(ranges: Ranges) -> str:
    """The inside of a Python regex character class: "一-鿿..." (the characters themselves)."""
    return "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in ranges)


def js_class(ranges: Ranges) -> str:
    """The same class for a JavaScript RegExp with the "u" flag: "\\u{4e00}-\\u{9fff}..."."""
    return "".join(f"\\u{{{lo:x}}}-\\u{{{hi:x}}}" for lo, hi in ranges)
