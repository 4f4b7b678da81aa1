"""Text stamped from cached pixels: matplotlib's Agg draws each distinct label once, requests copy it.

Text is most of a heatmap's drawing cost (~3 ms a label in FreeType layout and glyph rendering).
FreeType places glyphs in 1/64 px relative to the anchor, and a whole-pixel move of the anchor moves
the drawing by exactly those pixels. So a text anchored on a whole pixel, over the same background
colour, is the same bytes wherever it lands: a sprite keyed by (text, style, background) is exactly
what matplotlib draws there (tests compare whole figures byte for byte). Callers anchor on whole pixels.
"""

from __future__ import annotations

import math
import threading
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import IdentityTransform

SPRITES = 8192  # cached texts: a label is ~0.5-5 KB of pixels
MARGIN = 3  # px around the layout box: antialiased glyph edges may reach past it
WHITE = (255, 255, 255)


@dataclass(frozen=True)
class Style:
    """How a text is drawn: everything besides the string that changes its pixels."""

    size: float  # points
    ha: str = "center"
    va: str = "center"
    rotation: float = 0.0
    color: str = "black"
    family: tuple[str, ...] | None = None  # None: matplotlib's default (DejaVu Sans)
    dpi: float = 80.0


@dataclass(frozen=True)
class Sprite:
    """A drawn text, cropped to the pixels it changed, and where it sits relative to its anchor."""

    rgb: np.ndarray  # (h, w, 3) uint8, read-only
    ink: np.ndarray  # (h, w) bool: pixels that differ from the background
    dx: int  # column of rgb[0, 0] minus the anchor's x
    dy: int  # row of rgb[0, 0] minus (canvas rows - the anchor's y)


def stamp(out: np.ndarray, text: str, style: Style, x: int, y: int, bg: tuple[int, int, int] = WHITE) -> None:
    """Draw `text` into out (H, W, 3) in place, anchored at the whole pixel (x, y) of display space (y up)."""
    if not text:
        return
    s = sprite(text, style, tuple(int(c) for c in bg))
    top, left = out.shape[0] - int(y) + s.dy, int(x) + s.dx
    r0, c0 = max(top, 0), max(left, 0)  # clip to the canvas, as Agg does
    r1, c1 = min(top + s.rgb.shape[0], out.shape[0]), min(left + s.rgb.shape[1], out.shape[1])
    if r0 >= r1 or c0 >= c1:
        return
    src = np.s_[r0 - top : r1 - top, c0 - left : c1 - left]
    np.copyto(out[r0:r1, c0:c1], s.rgb[src], where=s.ink[src][..., None])


@lru_cache(maxsize=SPRITES)
def sprite(text: str, style: Style, bg: tuple[int, int, int]) -> Sprite:
    """Matplotlib draws the Text once, anchored at a whole pixel of a canvas filled with `bg`.

    The canvas is sized from the text's length (one layout, not two); if the ink reaches its edge the
    text was larger than guessed, and it is drawn again on a canvas measured by matplotlib.
    """
    em = style.size * style.dpi / 72  # px
    long_side, short_side = math.ceil(em * (1.3 * len(text) + 2)), math.ceil(em * 3)
    w, h = (short_side, long_side) if style.rotation % 180 else (long_side, short_side)
    drawn = _draw(text, style, bg, 2 * w, 2 * h, w, h)  # the anchor in the middle: any alignment fits
    if drawn is None:
        t = _text(text, style)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            box = t.get_window_extent(RendererAgg(1, 1, style.dpi))  # display units, around the anchor
        ox, oy = math.floor(box.x0) - MARGIN, math.floor(box.y0) - MARGIN
        drawn = _draw(text, style, bg, math.ceil(box.x1) - ox + MARGIN, math.ceil(box.y1) - oy + MARGIN, -ox, -oy,
                      exact=True)
    return drawn


def text_artist(text: str, style: Style, x: int = 0, y: int = 0) -> Text:
    """The matplotlib Text a sprite stands for, anchored at display pixel (x, y): add it to a figure
    (fig.add_artist) to draw what stamp() copies."""
    t = Text(x, y, text, ha=style.ha, va=style.va, rotation=style.rotation, fontsize=style.size,
             color=style.color, transform=IdentityTransform())
    if style.family is not None:
        t.set_family(list(style.family))
    return t


def _text(text: str, style: Style) -> Text:
    t = text_artist(text, style)
    t.set_figure(_figure(style.dpi))
    return t


def _draw(text: str, style: Style, bg: tuple[int, int, int], w: int, h: int, ax: int, ay: int,
          exact: bool = False) -> Sprite | None:
    """Draw on a (h, w) canvas with the anchor at the whole pixel (ax, ay); None if the ink touches an
    edge (it may have been cut) unless the canvas was `exact`ly measured."""
    renderer = RendererAgg(w, h, style.dpi)
    np.asarray(renderer.buffer_rgba())[:] = (*bg, 255)
    t = _text(text, style)
    t.set_position((ax, ay))  # a whole-pixel shift of the anchor moves the glyphs by whole pixels
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # missing glyphs are replaced before they get here
        t.draw(renderer)
    rgb = np.asarray(renderer.buffer_rgba())[..., :3]  # (h, w, 3)
    ink = np.any(rgb != np.asarray(bg, dtype=np.uint8), axis=-1)  # (h, w)
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if rows.size == 0:
        return _frozen(np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0), bool), 0, 0)
    if not exact and (rows[0] == 0 or cols[0] == 0 or rows[-1] == h - 1 or cols[-1] == w - 1):
        return None
    crop = np.s_[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    # Agg puts display y at row (rows - y): canvas row r is real row r + (H - y) - (h - ay); column c is c + x - ax
    return _frozen(rgb[crop].copy(), ink[crop].copy(), int(cols[0]) - ax, int(rows[0]) - (h - ay))


def _frozen(rgb: np.ndarray, ink: np.ndarray, dx: int, dy: int) -> Sprite:
    for a in (rgb, ink):
        a.flags.writeable = False  # shared by every request thread
    return Sprite(rgb, ink, dx, dy)


_local = threading.local()


def _figure(dpi: float) -> Figure:
    """A figure per thread and dpi, only for its dpi: Text.get_window_extent briefly sets dpi on it."""
    figures = _local.__dict__.setdefault("figures", {})
    if dpi not in figures:
        figures[dpi] = Figure(dpi=dpi)
    return figures[dpi]
