"""Matplotlib figures as PNG data URLs (Figure + Agg, never pyplot), and how tokens are labelled in them."""

from __future__ import annotations

import base64
import io
import warnings
from collections.abc import Sequence
from functools import lru_cache

from matplotlib import colormaps, font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import Colormap, ListedColormap
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font

DPI = 80
WEIGHTS_CMAP = "viridis"
MASK_CMAP = ListedColormap(["#3b3b3b", "#f2a93b"])  # blocked dark, may attend amber
PNG_OPTIONS = {"compress_level": 1}  # fast zlib: these PNGs are small anyway
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


def to_data_url(fig: Figure) -> str:
    """Render once to PNG and wrap as a data URL (what gr.Plot sends to the browser)."""
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # missing glyphs are already replaced
        fig.savefig(buf, format="png", dpi=DPI, pil_kwargs=PNG_OPTIONS)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def cmap_of(cmap: str | Colormap) -> Colormap:
    return colormaps[cmap] if isinstance(cmap, str) else cmap


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
