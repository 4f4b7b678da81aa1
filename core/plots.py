"""Matplotlib figures as PNG data URLs: Figure + Agg (never pyplot), drawn as little as possible."""

from __future__ import annotations

import base64
import io
import math
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np
from matplotlib import colormaps, font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import Colormap, ListedColormap, Normalize
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font

from . import raster, sprites

DPI = 80
ANNOTATE_MAX_T = 8  # write the value in each cell up to this many tokens (readable in a 25 px cell)
ANNOTATE_MAX_CELLS = 128  # ...and up to this many cells in all: each number costs ~2 ms of text drawing
CELL_IN = 0.32  # inches per heatmap cell
WEIGHTS_CMAP = "viridis"
MASK_CMAP = ListedColormap(["#3b3b3b", "#f2a93b"])  # blocked dark, may attend amber
PNG_OPTIONS = {"compress_level": 1}  # fast zlib: these PNGs are small anyway


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
    """A token as matplotlib can draw it: '$' escaped (no mathtext); glyphs the font lacks as U+XXXX."""
    fonts = _fonts()
    if all(any(font.get_char_index(ord(c)) for font in fonts) for c in token):
        return token.replace("$", r"\$")
    return " ".join(f"U+{ord(c):04X}" for c in token[:2]) + ("…" if len(token) > 2 else "")


def labels(tokens: Sequence[str]) -> list[str]:
    """Tick labels for a token axis: position and token, so repeated words stay distinct."""
    return [f"{i} {tick_label(t)}" for i, t in enumerate(tokens)]


def to_data_url(fig: Figure) -> str:
    """Render once to PNG and wrap as a data URL (what gr.Plot sends to the browser)."""
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # missing glyphs are already replaced
        fig.savefig(buf, format="png", dpi=DPI, pil_kwargs=PNG_OPTIONS)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _grid(n: int, max_cols: int) -> tuple[int, int]:
    """Rows and columns for n panels: 4 heads as 2x2, otherwise up to max_cols in a row."""
    cols = 2 if n == 4 else min(n, max_cols)
    return math.ceil(n / cols), cols


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
    """Several (T, T) heatmaps as ONE image on one axes (white gaps between): one set of labels.

    Matplotlib draws the frame (titles, axis labels, where the cells go) once per shape; each request
    colours the cells and stamps the token labels and, for short sentences (T <= ANNOTATE_MAX_T and at
    most ANNOTATE_MAX_CELLS cells), the values from text sprites matplotlib drew once (core.sprites).
    """
    T, gap = len(tokens), len(tokens) + 1
    rows, cols = _grid(len(mats), max_cols)
    canvas = np.full((rows * gap - 1, cols * gap - 1), np.nan)  # (rows*(T+1)-1, cols*(T+1)-1)
    for idx, mat in enumerate(mats):
        r, c = divmod(idx, cols)
        canvas[r * gap : r * gap + T, c * gap : c * gap + T] = np.asarray(mat, dtype=float)  # (T, T)
    finite = canvas[np.isfinite(canvas)]
    lo = vmin if vmin is not None else (finite.min() if finite.size else 0.0)
    hi = vmax if vmax is not None else (finite.max() if finite.size else 1.0)
    shown = np.where(np.isneginf(canvas), lo, canvas)  # -inf drawn at the low end; NaN gaps white
    colours = _cmap(cmap).with_extremes(bad="white")
    layout = Layout(T, tuple(titles[: len(mats)]), rows, cols, xlabel, ylabel, _label_pad(tokens, rows, cols))
    frame = FRAMES.get(layout, lambda: _draw_frame(canvas.shape, layout))
    rgb = raster.paint(frame, shown, colours, lo, hi)  # (H, W, 3)
    left, below = label_styles()
    for (x, y), text in zip(frame.anchors["ylabels"].reshape(-1, 2), labels(tokens) * rows, strict=True):
        sprites.stamp(rgb, text, left, x, y)
    for (x, y), text in zip(frame.anchors["xlabels"].reshape(-1, 2), labels(tokens) * cols, strict=True):
        sprites.stamp(rgb, text, below, x, y)
    if annotate and T <= ANNOTATE_MAX_T and len(mats) * T * T <= ANNOTATE_MAX_CELLS:
        cell_rgb = colours(Normalize(lo, hi)(shown), bytes=True)[..., :3]  # (h, w, 3): what paint coloured
        for (i, j), text, color in values(canvas, (lo + hi) / 2):
            x, y = frame.anchors["cells"][i, j]
            sprites.stamp(rgb, text, replace(VALUE, color=color), x, y, bg=tuple(cell_rgb[i, j]))
    return raster.png_data_url(rgb, PNG_OPTIONS["compress_level"])


class Layout(NamedTuple):
    """What a heatmap frame depends on (not the tokens' words: those are stamped per request)."""

    T: int
    titles: tuple[str, ...]
    rows: int
    cols: int
    xlabel: str
    ylabel: str
    label_pad: float  # points between the cells and the axis titles: room for the longest token label


FRAMES = raster.FrameCache()  # drawn frames per Layout
VALUE = sprites.Style(6.5, dpi=DPI)  # a weight written in its cell


@lru_cache(maxsize=1)
def label_styles() -> tuple[sprites.Style, sprites.Style]:
    """Token labels left of each row of blocks, and below each column (CJK glyphs from the fallback font)."""
    family = tuple(font_family())
    return (sprites.Style(8, ha="right", va="center", family=family, dpi=DPI),
            sprites.Style(8, ha="center", va="top", rotation=90, family=family, dpi=DPI))


def values(canvas: np.ndarray, mid: float) -> Iterator[tuple[tuple[int, int], str, str]]:
    """((row, col), text, colour) for each cell to write: dark on light cells, light on dark; -inf as -∞."""
    for (i, j), val in np.ndenumerate(canvas):
        if np.isnan(val):
            continue
        text = f"{val:.2f}" if np.isfinite(val) else ("-∞" if val < 0 else "∞")
        yield (i, j), text, "black" if np.isfinite(val) and val > mid else "white"


def _figure(canvas: np.ndarray, colours: Colormap, lo: float, hi: float, layout: Layout) -> tuple[Figure, Any]:
    """The figure with its image, axis labels and titles (token labels and values are stamped later).

    Its size is a whole number of pixels, so display coordinates and pixel rows line up exactly.
    """
    T, gap = layout.T, layout.T + 1
    box_w, box_h = _axes_box(T, layout.rows, layout.cols)
    margin = max(1.1, layout.label_pad / 72 + 0.3)  # left and bottom: token labels, then the axis title
    width, height = round((box_w + margin + 0.1) * DPI) / DPI, round((box_h + margin + 0.7) * DPI) / DPI
    fig = Figure(figsize=(width, height), dpi=DPI)  # whole pixels; the top has room for gr.Plot's label
    ax = fig.add_axes((margin / width, margin / height, 1 - (margin + 0.1) / width, 1 - (margin + 0.7) / height))
    ax.imshow(canvas, cmap=colours, vmin=lo, vmax=hi, interpolation="nearest")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_frame_on(False)
    ax.set_xlabel(layout.xlabel, fontsize=8, labelpad=layout.label_pad)
    ax.set_ylabel(layout.ylabel, fontsize=8, labelpad=layout.label_pad)
    for idx, title in enumerate(layout.titles):
        r, c = divmod(idx, layout.cols)
        ax.text(c * gap + (T - 1) / 2, r * gap - 0.75, title, ha="center", va="bottom", fontsize=9)
    return fig, ax


def _axes_box(T: int, rows: int, cols: int) -> tuple[float, float]:
    """Inches for the axes that hold every block: a block per head, with room for the titles."""
    side = max(1.4, CELL_IN * T)  # inches per heatmap
    return cols * (side + 0.1), rows * (side + 0.3)


def _draw_frame(shape: tuple[int, int], layout: Layout) -> raster.Frame:
    """The figure with every cell blank (white), drawn once per layout; where its cells land; and the
    whole-pixel anchors of its token labels and cell values.

    Where the cells land: the same figure redrawn (text hidden) with an index image, so the pixel ->
    cell mapping is matplotlib's own (it rounds the image box to whole pixels and stretches to fill it).
    """
    fig, ax = _figure(np.full(shape, np.nan), _cmap(WEIGHTS_CMAP).with_extremes(bad="white"), 0.0, 1.0, layout)
    agg = FigureCanvasAgg(fig)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # missing glyphs are already replaced
        agg.draw()
    rgb = np.array(agg.buffer_rgba())[..., :3]  # (H, W, 3), a copy: the buffer is redrawn below
    for text in [*ax.texts, ax.xaxis.label, ax.yaxis.label]:
        text.set_visible(False)
    (image,) = ax.images
    image.set_data(raster.index_image(shape))
    image.set_cmap(raster.index_cmap(shape[0] * shape[1]))
    image.set_clim(0, shape[0] * shape[1])
    agg.draw()
    y0, x0, cell_row, cell_col = raster.decode_cells(np.asarray(agg.buffer_rgba()), shape)
    return raster.make_frame(rgb, y0, x0, cell_row, cell_col, anchors=_anchors(ax, layout, shape))


def _anchors(ax, layout: Layout, shape: tuple[int, int]) -> dict[str, np.ndarray]:
    """Display-pixel anchors (x, y up), rounded to whole pixels (see core.sprites) for: token labels
    left of each block row (rows, T, 2), below each block column (cols, T, 2), and cell centres (h, w, 2)."""
    T, gap = layout.T, layout.T + 1
    pos = np.arange(T, dtype=float)
    left = [np.column_stack([np.full(T, -0.01), r * gap + pos]) for r in range(layout.rows)]  # (axes x, data y)
    below = [np.column_stack([c * gap + pos, np.full(T, -0.01)]) for c in range(layout.cols)]  # (data x, axes y)
    jj, ii = np.meshgrid(np.arange(shape[1], dtype=float), np.arange(shape[0], dtype=float))
    cells = ax.transData.transform(np.column_stack([jj.ravel(), ii.ravel()])).reshape(*shape, 2)
    return {
        "ylabels": np.rint(ax.get_yaxis_transform().transform(np.concatenate(left))).astype(int).reshape(-1, T, 2),
        "xlabels": np.rint(ax.get_xaxis_transform().transform(np.concatenate(below))).astype(int).reshape(-1, T, 2),
        "cells": np.rint(cells).astype(int),
    }


def _label_pad(tokens: Sequence[str], rows: int, cols: int) -> float:
    """Room (points) between the cells and the axis titles: the longest token label as drawn, the gap
    before it (1% of the axes, see _anchors) and a margin, in steps of 6 px so similar sentences share a frame."""
    left, below = label_styles()
    width = max((-sprites.sprite(t, left, sprites.WHITE).dx for t in labels(tokens)), default=0)
    depth = max((sprites.sprite(t, below, sprites.WHITE).dy + sprites.sprite(t, below, sprites.WHITE).rgb.shape[0]
                 for t in labels(tokens)), default=0)
    px = max(width, depth) + 0.01 * max(_axes_box(len(tokens), rows, cols)) * DPI + 4
    return math.ceil(px / 6) * 6 * 72 / DPI


def _cmap(cmap: str | Colormap) -> Colormap:
    return colormaps[cmap] if isinstance(cmap, str) else cmap


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


def bars(values: Sequence[float], tokens: Sequence[str], highlight: int, title: str, ylabel: str) -> str:
    """One bar per output row; the edited position marked."""
    T = len(tokens)
    fig = Figure(figsize=(max(4.0, 0.4 * T + 1.5), 3.6), dpi=DPI)
    ax = fig.add_subplot()
    fig.subplots_adjust(left=0.14, right=0.98, bottom=0.32, top=0.8)  # top: room for gr.Plot's label
    colors = ["tab:orange" if i == highlight else "tab:blue" for i in range(T)]
    ax.bar(range(T), values, color=colors)
    ax.set_xticks(range(T), labels(tokens), rotation=90, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.set_title(title, fontsize=9)
    return to_data_url(fig)


def lines(
    x: Sequence[float],
    series: dict[str, Sequence[float]],
    panels: Sequence[tuple[str, str, Sequence[str]]],
    xlabel: str,
) -> str:
    """Side-by-side line panels; each panel (title, ylabel, series names) on a log2 x axis."""
    fig = Figure(figsize=(4.2 * len(panels), 3.6), dpi=DPI)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.15, top=0.8, wspace=0.28)  # top: room for gr.Plot's label
    for ax, (title, ylabel, names) in zip(axes, panels, strict=True):
        for name in names:
            ax.plot(x, series[name], marker="o", label=name)
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(x), [str(int(v)) for v in x])
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.legend(fontsize=7)
    return to_data_url(fig)
