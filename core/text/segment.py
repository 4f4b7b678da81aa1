"""Chinese words for both tokenizers: split at the writer's spaces, or cut by rjieba when there are none.

One rule, shared by the app's tokenizer (core.lab.text) and the tiny model's (core.corpus), so a
sentence gives the same words everywhere. A sentence is "written with spaces" when whitespace
stands between two Han characters anywhere in it ("合同 违约金 过高"); then every unbroken run of
Han characters is one word. Without such a space, each run is cut by rjieba (jieba-rs, a
maintained Rust port of jieba: its dictionary is compiled in, so it loads quickly and writes
no cache file), imported only when such text first appears. Text with kana is Japanese: its Han
characters stay one per token, as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Literal

from . import scripts

Mode = Literal["spaced", "segment", "characters"]

_HAN_CLASS = scripts.python_class(scripts.HAN)
_HAN_RUN = re.compile(f"[{_HAN_CLASS}]+")
_SPACED = re.compile(f"[{_HAN_CLASS}]\\s+[{_HAN_CLASS}]")
_KANA = re.compile(f"[{scripts.python_class(scripts.KANA)}]")


def is_han(ch: str) -> bool:
    """A Chinese character (CJK unified ideographs, extensions, compatibility ideographs)."""
    return _HAN_RUN.fullmatch(ch) is not None


def han_mode(text: str) -> Mode:
    """How this sentence's Han runs become tokens: kept whole, cut by the segmenter, or one per character."""
    if _KANA.search(text):
        return "characters"
    return "spaced" if _SPACED.search(text) else "segment"


@lru_cache(maxsize=1)
def _segmenter() -> Callable[[str], list[str]] | None:
    """rjieba's cut, imported on first use (None when the package is missing: then one token per character)."""
    try:
        import rjieba
    except ImportError:
        return None
    return rjieba.cut


def segmenter_available() -> bool:
    """Whether Chinese without spaces can be cut into words here (rjieba installed)."""
    return _segmenter() is not None


def cuts(text: str) -> bool:
    """Whether the segmenter will cut words out of this text (Chinese without spaces): a note says so."""
    return (han_mode(text) == "segment" and any(len(m.group()) > 1 for m in _HAN_RUN.finditer(text))
            and segmenter_available())


def cut(run: str) -> list[str]:
    """One run of Han characters -> its words (rjieba with its HMM for words missing from the dictionary)."""
    seg = _segmenter()
    if seg is None or len(run) < 2:
        return list(run)
    return [w for w in seg(run) if w]


def han_words(piece: str, mode: Mode) -> list[str]:
    """Split a word-like piece at Han-run boundaries; Han runs become words per `mode`, other text stays whole."""
    out: list[str] = []
    pos = 0
    for m in _HAN_RUN.finditer(piece):
        if m.start() > pos:
            out.append(piece[pos : m.start()])
        run = m.group()
        out.extend([run] if mode == "spaced" else cut(run) if mode == "segment" else list(run))
        pos = m.end()
    if pos < len(piece):
        out.append(piece[pos:])
    return out
