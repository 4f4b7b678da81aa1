"""A view as a PNG for a worksheet: the same dict the browser draws, drawn once by matplotlib (Figure + Agg).

Off the hot path: only when someone asks for the file. Token labels go through plots.tick_label
(no mathtext; a glyph no installed font has is written as its code point).
"""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..i18n import t
from .plots import font_family, tick_label
from .scales import unpacked

DPI = 110
BLOCKED = "#d4d4d4"


def _matrix(values) -> np.ndarray:
    return np.asarray(unpacked(values), dtype=float)


def _heatmap_axes(ax, head: dict, data: dict, rows: list[str], cols: list[str], cmap, labels: dict) -> object:
    m = _matrix(head["values"])
    scale = data["scale"]
    shown = np.where(np.isneginf(m), scale["min"], m)
    blocked = _matrix(head["blocked"]).astype(bool) if head.get("blocked") else np.zeros(m.shape, dtype=bool)
    shown = np.ma.masked_array(shown, mask=blocked)
    image = ax.imshow(shown, cmap=cmap, vmin=scale["min"], vmax=scale["max"], interpolation="nearest")
    ax.set_facecolor(BLOCKED)  # blocked cells are masked out of the image: grey, hatched below
    for i, j in zip(*np.nonzero(blocked), strict=True):
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", edgecolor="#8c8c8c", lw=0))
    T = len(rows)
    if data.get("show_values"):
        mid = (scale["min"] + scale["max"]) / 2
        for (i, j), v in np.ndenumerate(m):
            if not blocked[i, j] and np.isfinite(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=max(5, 11 - T // 3),
                        color="black" if v > mid else "white")
    ax.set_title(head["title"], fontsize=12)
    ax.set_xticks(range(len(cols)), cols, rotation=90, fontsize=9)
    ax.set_yticks(range(T), rows, fontsize=9)
    ax.set_xlabel(labels.get("x", ""), fontsize=10)
    ax.set_ylabel(labels.get("y", ""), fontsize=10)
    return image


def heatmaps_figure(data: dict) -> Figure:
    """Every head of a heatmaps (or model view) dict, as a grid of heatmaps with one colour bar."""
    if data["kind"] == "modelview":
        heads = [h for layer in data["layers"] for h in layer]
        cols_n = len(data["layers"][0])
        labels = data.get("heatmap_labels", {})
    else:
        heads, labels = data["heads"], data.get("labels", {})
        cols_n = 2 if len(heads) == 4 else min(len(heads), 4)
    if data.get("position_labels"):
        rows = [str(i) for i in range(len(data["rows"]))]
    else:
        rows = [f"{i} {tick_label(t)}" for i, t in enumerate(data["rows"])]
    cols = [tick_label(str(c)) for c in data["cols"]] if data.get("cols") else rows
    n_rows = math.ceil(len(heads) / cols_n)
    side = max(3.0, 0.3 * len(rows) + 1.5)
    label_in = 0.075 * max((len(r) for r in rows), default=1) + 0.5  # inches: one head's y labels and title
    # constrained layout: each head's y labels get their own room, never drawn over the head to their left
    fig = Figure(figsize=((side + label_in) * cols_n + 1.0, side * n_rows + 0.6), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    cmap = LinearSegmentedColormap.from_list("view", data["scale"]["stops"])
    axes = fig.subplots(n_rows, cols_n, squeeze=False)
    image = None
    for idx, ax in enumerate(axes.flat):
        if idx >= len(heads):
            ax.set_axis_off()
            continue
        image = _heatmap_axes(ax, heads[idx], data, rows, cols, cmap, labels)
    if image is not None and data["scale"].get("ticks"):
        fig.colorbar(image, ax=axes, shrink=0.8, label=(labels.get("legend") or [{}])[0].get("text", ""))
    return fig


def chart_figure(data: dict) -> Figure:
    """A chart dict's panels side by side, one legend."""
    panels, colours = data["panels"], data["colors"]
    cols_n = max(1, min(data.get("columns", 1), len(panels)))
    n_rows = math.ceil(len(panels) / cols_n)
    fig = Figure(figsize=(6.4 * cols_n, 4.4 * n_rows + 0.8), dpi=DPI)
    FigureCanvasAgg(fig)
    axes = fig.subplots(n_rows, cols_n, squeeze=False)
    for ax, p in zip(axes.flat, panels, strict=False):
        if p["type"] == "bars":
            ys = [0.0 if v is None else v for v in p["series"][0]["y"]]
            bar_colours = [colours[1] if i == p.get("highlight") else colours[0] for i in range(len(ys))]
            ax.bar(range(len(ys)), ys, color=bar_colours)
            ax.set_xticks(range(len(ys)), [tick_label(c) for c in p["x"]["categories"]], rotation=70, fontsize=9)
        else:
            for s in p["series"]:
                pts = [(x, y) for x, y in zip(s["x"], s["y"], strict=True) if y is not None and math.isfinite(y)]
                if not pts:
                    continue
                style = "o" if s.get("markers_only") else ("o" if s.get("markers") else "") + ("--" if s.get("dash") else "-")
                ax.plot(*zip(*pts, strict=True), style, color=colours[s["color"] % len(colours)], lw=2, ms=4,
                        label=s["name"])
            for hl in p.get("hlines", []):
                ax.axhline(hl["y"], color="#555555", ls=":", lw=1.5)
            for a, setter in ((p["x"], ax.set_xscale), (p["y"], ax.set_yscale)):
                if a.get("log"):
                    setter("log", base=a["log"])
            if p["y"].get("min") is not None or p["y"].get("max") is not None:
                ax.set_ylim(p["y"].get("min"), p["y"].get("max"))
        ax.set_title(p["title"], fontsize=12)
        ax.set_xlabel(p["x"]["label"], fontsize=11)
        ax.set_ylabel(p["y"]["label"], fontsize=11)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_axis_off()
    handles, names = axes.flat[0].get_legend_handles_labels()
    if len(handles) > 1:
        fig.legend(handles, names, loc="lower center", ncol=min(4, len(handles)), fontsize=10, frameon=False)
    fig.tight_layout(rect=(0, 0.08 if len(handles) > 1 else 0, 1, 1))
    return fig


def png(data: dict) -> bytes:
    """The PNG bytes of a view dict (heatmaps, model view or chart)."""
    if data.get("kind") in ("heatmaps", "modelview"):
        fig = heatmaps_figure(data)
    elif data.get("kind") == "chart":
        fig = chart_figure(data)
    else:
        raise ValueError(t("this view cannot be exported as a PNG"))
    for text in fig.findobj(match=lambda a: hasattr(a, "set_family")):
        text.set_family(font_family())
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # missing glyphs are already replaced; tight_layout notes
        fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()
