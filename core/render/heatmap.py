"""Attention heatmaps as PNG data URLs: a frame matplotlib draws once per shape, cells and text per request.

Matplotlib draws the frame (the head titles, where every cell lands) once per Layout, which does not
depend on the sentence's words (core.raster). Each request colours the cells with numpy and stamps the
token labels, the axis titles and, for short sentences, the values from text sprites that matplotlib
drew once (core.sprites). Every text sits on a whole pixel, so a stamped figure is byte for byte the
figure matplotlib draws with the same Text artists (tests compare them).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import Colormap, Normalize
from matplotlib.figure import Figure

from . import raster, sprites
from .plots import DPI, MASK_CMAP, PNG_OPTIONS, WEIGHTS_CMAP, cmap_of, font_family, labels

ANNOTATE_MAX_T = 8  # write the value in each cell up to this many tokens (readable in a 25 px cell)
ANNOTATE_MAX_CELLS = 128  # ...and up to this many cells in all (2 heads of 8 tokens): more is noise
CELL_IN = 0.32  # inches per heatmap cell
MARGIN_STEP = 40  # px: the left/bottom margin grows in these steps, so most sentences share a frame
MIN_MARGIN = 88  # px (1.1 in): room for short token labels and the axis title
TITLE_GAP = 4  # px between the longest token label and the axis title
VALUE = sprites.Style(6.5, dpi=DPI)  # a weight written in its cell
Placed = tuple[str, sprites.Style, int, int]  # text, style, anchor x, anchor y (display pixels, y up)


class Layout(NamedTuple):
    """What a frame depends on: not the words (stamped per request), only the shape and the head titles."""

    T: int
    titles: tuple[str, ...]
    rows: int
    cols: int
    margin: int  # px left of and below the axes: token labels, then the axis title


FRAMES = raster.DrawnCache()  # drawn frames per Layout


def heatmap_grid(
    mats: Sequence[np.ndarray],
    tokens: Sequence[str],
    titles: Sequence[str],
    vmin: float | None = 0.0,
    vmax: float | None = 1.0,
    cmap: str | Colormap = WEIGHTS_CMAP,
    xlabel: str = "key (attended to)",
    ylabel: str = "query (attending)",
    max_cols: int = 4,
    annotate: bool = True,
) -> str:
    """Several (T, T) heatmaps as ONE image (white gaps between), one set of labels; values written in
    the cells for short sentences (T <= ANNOTATE_MAX_T and at most ANNOTATE_MAX_CELLS cells)."""
    T, gap = len(tokens), len(tokens) + 1
    rows, cols = grid(len(mats), max_cols)
    canvas = np.full((rows * gap - 1, cols * gap - 1), np.nan)  # (rows*(T+1)-1, cols*(T+1)-1)
    for idx, mat in enumerate(mats):
        r, c = divmod(idx, cols)
        canvas[r * gap : r * gap + T, c * gap : c * gap + T] = np.asarray(mat, dtype=float)  # (T, T)
    finite = canvas[np.isfinite(canvas)]
    lo = vmin if vmin is not None else (finite.min() if finite.size else 0.0)
    hi = vmax if vmax is not None else (finite.max() if finite.size else 1.0)
    shown = np.where(np.isneginf(canvas), lo, canvas)  # -inf drawn at the low end; NaN gaps white
    colours = cmap_of(cmap).with_extremes(bad="white")
    layout = Layout(T, tuple(titles[: len(mats)]), rows, cols, margin(labels(tokens), rows, cols))
    frame = frame_for(layout)
    rgb = raster.paint(frame, shown, colours, lo, hi)  # (H, W, 3)
    for text, style, x, y in label_texts(frame, tokens, xlabel, ylabel):
        sprites.stamp(rgb, text, style, x, y)
    if annotate and T <= ANNOTATE_MAX_T and len(mats) * T * T <= ANNOTATE_MAX_CELLS:
        cell_rgb = colours(Normalize(lo, hi)(shown), bytes=True)[..., :3]  # (h, w, 3): what paint coloured
        for text, style, x, y, (i, j) in value_texts(frame, canvas, (lo + hi) / 2):
            sprites.stamp(rgb, text, style, x, y, bg=tuple(cell_rgb[i, j]))
    return raster.png_data_url(rgb, PNG_OPTIONS["compress_level"])


def mask_image(mask: np.ndarray, title: str = "mask") -> str:
    """The mask pattern (True = may attend, amber; blocked dark), labelled by position only.

    It depends on T and the variant alone, never on the words, so it is cached across sentences.
    """
    mask = np.asarray(mask, dtype=bool)  # (T, T)
    return _mask_image(mask.tobytes(), mask.shape[0], title)


@lru_cache(maxsize=256)
def _mask_image(packed: bytes, T: int, title: str) -> str:
    mask = np.frombuffer(packed, dtype=bool).reshape(T, T)
    return heatmap_grid([mask.astype(float)], [""] * T, [title], cmap=MASK_CMAP, annotate=False)  # no 1.00/0.00


def grid(n: int, max_cols: int) -> tuple[int, int]:
    """Rows and columns for n panels: 4 heads as 2x2, otherwise up to max_cols in a row."""
    cols = 2 if n == 4 else min(n, max_cols)
    return math.ceil(n / cols), cols


@lru_cache(maxsize=1)
def styles() -> dict[str, sprites.Style]:
    """Token labels left of each block row and below each block column (CJK from the fallback font);
    the axis titles beside and below them."""
    family = tuple(font_family())
    return {
        "ylabels": sprites.Style(8, ha="right", va="center", family=family, dpi=DPI),
        "xlabels": sprites.Style(8, ha="center", va="top", rotation=90, family=family, dpi=DPI),
        "ytitle": sprites.Style(8, ha="right", va="center", rotation=90, dpi=DPI),
        "xtitle": sprites.Style(8, ha="center", va="top", dpi=DPI),
    }


def label_texts(frame: raster.Frame, tokens: Sequence[str], xlabel: str, ylabel: str) -> list[Placed]:
    """Where each token label and axis title goes: labels at the frame's anchors, titles just past the
    longest label."""
    st, names = styles(), labels(tokens)
    placed = [(text, st[side], int(x), int(y))
              for side in ("ylabels", "xlabels")
              for (x, y), text in zip(frame.anchors[side].reshape(-1, 2),
                                      names * (len(frame.anchors[side])), strict=True)]
    width, depth = _extent(names)
    cx, cy = frame.anchors["centre"]
    x_title = int(frame.anchors["ylabels"][..., 0].min()) - width - TITLE_GAP
    y_title = int(frame.anchors["xlabels"][..., 1].min()) - depth - TITLE_GAP
    return [*placed, (ylabel, st["ytitle"], x_title, int(cy)), (xlabel, st["xtitle"], int(cx), y_title)]


def value_texts(frame: raster.Frame, canvas: np.ndarray, mid: float) -> Iterator[tuple[str, sprites.Style, int, int,
                                                                                       tuple[int, int]]]:
    """Each value to write in its cell: dark on light cells, light on dark; -inf as -∞; NaN cells stay empty."""
    for (i, j), val in np.ndenumerate(canvas):
        if np.isnan(val):
            continue
        text = f"{val:.2f}" if np.isfinite(val) else ("-∞" if val < 0 else "∞")
        x, y = frame.anchors["cells"][i, j]
        yield text, replace(VALUE, color="black" if np.isfinite(val) and val > mid else "white"), int(x), int(y), (i, j)


def margin(names: Sequence[str], rows: int, cols: int) -> int:
    """Pixels left of (and below) the axes for the longest label, the gap before it and the axis title."""
    T = len(names)
    room = 0.01 * max(_axes_box(T, rows, cols)) * DPI + max(_extent(names)) + TITLE_GAP + 12 + 6  # title, edge
    return max(MIN_MARGIN, math.ceil(room / MARGIN_STEP) * MARGIN_STEP)


def _extent(names: Sequence[str]) -> tuple[int, int]:
    """How far the longest label reaches left of its anchor, and below its anchor (px)."""
    st = styles()
    left = [sprites.sprite(t, st["ylabels"], sprites.WHITE) for t in names]
    below = [sprites.sprite(t, st["xlabels"], sprites.WHITE) for t in names]
    return max((-s.dx for s in left), default=0), max((s.dy + s.rgb.shape[0] for s in below), default=0)


def frame_for(layout: Layout) -> raster.Frame:
    """The layout's frame, drawn on first use."""
    gap = layout.T + 1
    return FRAMES.get(layout, lambda: _draw_frame((layout.rows * gap - 1, layout.cols * gap - 1), layout))


def figure(canvas: np.ndarray, colours: Colormap, lo: float, hi: float, layout: Layout) -> tuple[Figure, Any]:
    """The figure with its image and the head titles (labels, axis titles and values are stamped later).

    Its size is a whole number of pixels, so display coordinates and pixel rows line up exactly.
    """
    T, gap = layout.T, layout.T + 1
    box_w, box_h = _axes_box(T, layout.rows, layout.cols)
    m = layout.margin / DPI
    width, height = round((box_w + m + 0.1) * DPI) / DPI, round((box_h + m + 0.7) * DPI) / DPI
    fig = Figure(figsize=(width, height), dpi=DPI)  # the top has room for gr.Plot's label
    ax = fig.add_axes((m / width, m / height, 1 - (m + 0.1) / width, 1 - (m + 0.7) / height))
    ax.imshow(canvas, cmap=colours, vmin=lo, vmax=hi, interpolation="nearest")
    ax.set_axis_off()
    for idx, title in enumerate(layout.titles):
        r, c = divmod(idx, layout.cols)
        ax.text(c * gap + (T - 1) / 2, r * gap - 0.75, title, ha="center", va="bottom", fontsize=9)
    return fig, ax


def _axes_box(T: int, rows: int, cols: int) -> tuple[float, float]:
    """Inches for the axes that hold every block: a block per head, with room for the titles."""
    side = max(1.4, CELL_IN * T)  # inches per heatmap
    return cols * (side + 0.1), rows * (side + 0.3)


def _draw_frame(shape: tuple[int, int], layout: Layout) -> raster.Frame:
    """The figure with every cell blank (white); where its cells land; the anchors of its text.

    Where the cells land: the same figure redrawn (text hidden) with an index image, so the pixel ->
    cell mapping is matplotlib's own (it rounds the image box to whole pixels and stretches to fill it).
    """
    fig, ax = figure(np.full(shape, np.nan), cmap_of(WEIGHTS_CMAP).with_extremes(bad="white"), 0.0, 1.0, layout)
    agg = FigureCanvasAgg(fig)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # missing glyphs are already replaced
        agg.draw()
    rgb = np.array(agg.buffer_rgba())[..., :3]  # (H, W, 3), a copy: the buffer is redrawn below
    for text in ax.texts:
        text.set_visible(False)
    (image,) = ax.images
    image.set_data(raster.index_image(shape))
    image.set_cmap(raster.index_cmap(shape[0] * shape[1]))
    image.set_clim(0, shape[0] * shape[1])
    agg.draw()
    y0, x0, cell_row, cell_col = raster.decode_cells(np.asarray(agg.buffer_rgba()), shape)
    return raster.make_frame(rgb, y0, x0, cell_row, cell_col, anchors=_anchors(ax, layout, shape))


def _anchors(ax, layout: Layout, shape: tuple[int, int]) -> dict[str, np.ndarray]:
    """Display-pixel anchors (x, y up), rounded to whole pixels (see core.sprites): token labels left of
    each block row (rows, T, 2) and below each block column (cols, T, 2), cell centres (h, w, 2), and
    the centre of the axes (2,)."""
    T, gap = layout.T, layout.T + 1
    pos = np.arange(T, dtype=float)
    left = [np.column_stack([np.full(T, -0.01), r * gap + pos]) for r in range(layout.rows)]  # (axes x, data y)
    below = [np.column_stack([c * gap + pos, np.full(T, -0.01)]) for c in range(layout.cols)]  # (data x, axes y)
    jj, ii = np.meshgrid(np.arange(shape[1], dtype=float), np.arange(shape[0], dtype=float))
    cells = ax.transData.transform(np.column_stack([jj.ravel(), ii.ravel()])).reshape(*shape, 2)

    def whole(points: np.ndarray) -> np.ndarray:
        return np.rint(points).astype(int)

    return {
        "ylabels": whole(ax.get_yaxis_transform().transform(np.concatenate(left))).reshape(-1, T, 2),
        "xlabels": whole(ax.get_xaxis_transform().transform(np.concatenate(below))).reshape(-1, T, 2),
        "cells": whole(cells),
        "centre": whole(ax.transAxes.transform((0.5, 0.5))),
    }
