"""How tokens are labelled in matplotlib figures (PNG exports): fonts with CJK, no mathtext, missing glyphs named."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from matplotlib import font_manager
from matplotlib.ft2font import FT2Font

MAX_LABEL = 16  # characters of a token shown in a label: a pasted URL must not push the heatmap off the image
CJK_FONTS = ("WenQuanYi Micro Hei", "Noto Sans CJK SC", "Noto Sans CJK JP", "Droid Sans Fallback")


@lru_cache(maxsize=1)
def font_family() -> list[str]:
    """DejaVu Sans, then the first CJK font installed (a Space gets one from packages.txt)."""
    manager = font_manager.fontManager
    if not any(f.name in CJK_FONTS for f in manager.ttflist):  # the font may be newer than matplotlib's cache
        for path in font_manager.findSystemFonts():
            if "wqy-microhei" in path or "NotoSansCJK" in path:
                manager.addfont(path)
    installed = {f.name for f in manager.ttflist}
    return ["DejaVu Sans", *[name for name in CJK_FONTS if name in installed][:1]]


@lru_cache(maxsize=1)
def _fonts() -> tuple[FT2Font, ...]:
    return tuple(FT2Font(font_manager.findfont(name, fallback_to_default=False)) for name in font_family())


@lru_cache(maxsize=4096)
def tick_label(token: str) -> str:
    """A token as matplotlib can draw it: at most MAX_LABEL characters; '$' escaped (no mathtext);
    glyphs the font lacks as U+XXXX."""
    if len(token) > MAX_LABEL:
        token = token[: MAX_LABEL - 1] + "…"
    fonts = _fonts()
    if all(any(font.get_char_index(ord(c)) for font in fonts) for c in token):
        return token.replace("$", r"\$")
    return " ".join(f"U+{ord(c):04X}" for c in token[:2]) + ("…" if len(token) > 2 else "")


def labels(tokens: Sequence[str]) -> list[str]:
    """Tick labels for a token axis: position and token, so repeated words stay distinct."""
    return [f"{i} {tick_label(t)}" for i, t in enumerate(tokens)]
