"""Matplotlib figures as PNG data URLs: Figure + Agg (never pyplot), drawn as little as possible."""

from __future__ import annotations

import base64
import io
import math
import warnings
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from matplotlib import colormaps, font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import Colormap, ListedColormap
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font

from . import raster

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
    """Several (T, T) heatmaps as ONE image on one axes (white gaps between): one set of ticks, set once.

    One axes instead of one per head is what keeps this fast: matplotlib's cost is in Tick objects
    and text, not in pixels. Values are written in the cells for short sentences and few heads
    (T <= ANNOTATE_MAX_T and at most ANNOTATE_MAX_CELLS cells, e.g. 2 heads x 8 tokens, drawn by
    matplotlib); otherwise a cached frame (labels, titles) is reused and only the cells are coloured.
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
    layout = (tuple(tokens), tuple(titles[: len(mats)]), rows, cols, xlabel, ylabel)
    if annotate and T <= ANNOTATE_MAX_T and len(mats) * T * T <= ANNOTATE_MAX_CELLS:
        return _draw(canvas, colours, lo, hi, layout, annotate=True)
    frame = FRAMES.get(layout, lambda: _draw_frame(canvas.shape, layout))
    return raster.png_data_url(raster.paint(frame, shown, colours, lo, hi), PNG_OPTIONS["compress_level"])


Layout = tuple[tuple[str, ...], tuple[str, ...], int, int, str, str]  # tokens, titles, rows, cols, xlabel, ylabel
FRAMES = raster.FrameCache()  # drawn frames per layout (tokens, titles, grid shape, axis labels)


def _figure(canvas: np.ndarray, colours: Colormap, lo: float, hi: float, layout: Layout) -> tuple[Figure, Any]:
    """The figure with its image, token labels, axis labels and titles (no cell values)."""
    tokens, titles, rows, cols, xlabel, ylabel = layout
    T, gap = len(tokens), len(tokens) + 1
    side = max(1.4, CELL_IN * T)  # inches per heatmap
    width, height = cols * (side + 0.1) + 1.2, rows * (side + 0.3) + 1.5  # top: room for gr.Plot's label
    fig = Figure(figsize=(width, height), dpi=DPI)
    ax = fig.add_axes((1.1 / width, 1.0 / height, 1 - 1.2 / width, 1 - 1.7 / height))
    ax.imshow(canvas, cmap=colours, vmin=lo, vmax=hi, interpolation="nearest")
    _token_labels(ax, labels(tokens), rows, cols, gap)
    ax.set_xlabel(xlabel, fontsize=8, labelpad=_label_pad(tokens))
    ax.set_ylabel(ylabel, fontsize=8, labelpad=_label_pad(tokens))
    for idx, title in enumerate(titles):
        r, c = divmod(idx, cols)
        ax.text(c * gap + (T - 1) / 2, r * gap - 0.75, title, ha="center", va="bottom", fontsize=9)
    return fig, ax


def _draw(canvas: np.ndarray, colours: Colormap, lo: float, hi: float, layout: Layout, annotate: bool) -> str:
    """The whole figure drawn by matplotlib (values, -inf as -∞, written in the cells if `annotate`)."""
    fig, ax = _figure(np.where(np.isneginf(canvas), lo, canvas), colours, lo, hi, layout)
    if annotate:
        _annotate(ax, canvas, (lo + hi) / 2)
    return to_data_url(fig)


def _draw_frame(shape: tuple[int, int], layout: Layout) -> raster.Frame:
    """The figure with every cell blank (white), drawn once per layout; and where its cells land.

    Where: the same figure redrawn (text hidden) with an index image, so the pixel -> cell mapping is
    matplotlib's own (it rounds the image box to whole pixels and stretches to fill it).
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
    return raster.make_frame(rgb, y0, x0, cell_row, cell_col)


def _token_labels(ax, text: list[str], rows: int, cols: int, gap: int) -> None:
    """Token names beside each block as plain Text: no Tick objects (they cost most of a draw)."""
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_frame_on(False)
    below, left = ax.get_xaxis_transform(), ax.get_yaxis_transform()  # (data x, axes y), (axes x, data y)
    family = font_family()  # glyphs DejaVu lacks (CJK) come from the fallback font
    for r in range(rows):
        for i, t in enumerate(text):
            ax.text(-0.01, r * gap + i, t, transform=left, ha="right", va="center", fontsize=8, family=family)
    for c in range(cols):
        for j, t in enumerate(text):
            ax.text(c * gap + j, -0.01, t, transform=below, ha="center", va="top", rotation=90, fontsize=8,
                    family=family)


def _label_pad(tokens: Sequence[str]) -> float:
    """Room (points) for the longest token label between the axes and its axis title."""
    return 4 + 5.2 * max((len(t) for t in labels(tokens)), default=1)


def _cmap(cmap: str | Colormap) -> Colormap:
    return colormaps[cmap] if isinstance(cmap, str) else cmap


def _annotate(ax, canvas: np.ndarray, mid: float) -> None:
    """Write each value in its cell, dark on light cells and light on dark ones; -inf as -∞."""
    for (i, j), val in np.ndenumerate(canvas):
        if np.isnan(val):
            continue
        text = f"{val:.2f}" if np.isfinite(val) else ("-∞" if val < 0 else "∞")
        ax.text(j, i, text, ha="center", va="center", fontsize=6.5,
                color="black" if np.isfinite(val) and val > mid else "white")


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
