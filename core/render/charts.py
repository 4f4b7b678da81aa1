"""Charts for the browser: numbers -> the dict web/charts.js draws (line and bar panels, legend, hover).

The data contract (JSON; every string is drawn as text):

    kind     "chart"
    stamp    names what is drawn (written to data-stamp after drawing)
    panels   [{"title", "type": "line" | "bars",
               "x": {"label", "log": 0 | 2 | 10, "ticks": [...] (optional), "categories": [...] (bars)},
               "y": {"label", "log", "min", "max" (optional)},
               "series": [{"name", "x": [...], "y": [...], "color": index, "dash", "markers", "markers_only",
                           "marker", "width", "short": its name at its end (optional)}],
               "hlines": [{"y", "name"}] (optional), "highlight": index of the bar to mark (bars),
               "direct_labels": px right of the plot where each line's name is written at its end (optional)}]
    columns  panels side by side (1 to 4; one below 700 px)
    legend   [{"text", "color": index | "swatch": "#rrggbb", "dash", "marker"}]: one entry per line style shown
             (drawn with its line's dash and marker, so a line is found in the legend without its colour)
    labels   {"hover": "{series}: {x_label} {x} → {y_label} {y}", "title", "numbers": the summary of each panel's
             table of numbers (a screen reader's, a sighted reader opens it)}
    colors   the palette the colour indexes refer to (Okabe-Ito by default)
    digits   decimals of hovered values
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..i18n import mark, t
from . import access, colors
from .tokens import visible
from .web import stamp

HOVER = mark("{series}: {x_label} {x} → {y_label} {y}")  # hover templates: the page fills them in
BAR_HOVER = mark("{x}: {y_label} {y}")


def short(text: str, n: int = 16) -> str:
    """A user's word in a title: at most n characters (a pasted paragraph must not push the chart away), every
    character visible (core.render.tokens)."""
    chars = list(str(text))
    return visible("".join(chars[: n - 1]) + "…" if len(chars) > n else str(text))


def axis(label: str, log: int = 0, **kw: Any) -> dict:
    return {"label": label, "log": log, **kw}


DASHES = {"dash": 1, "dot": 2, "dashdot": 3, "long": 4}  # the page's dash patterns, by index
MARKERS = {"circle": 0, "square": 1, "triangle": 2, "diamond": 3, "ring": 4}  # the page's marker shapes, by index


def series(name: str, x: Sequence[float], y: Sequence[float | None], color: int = 0, dash: bool | str = False,
           markers: bool = False, markers_only: bool = False, marker: str | None = None,
           width: float | None = None) -> dict:
    """One line: None or non-finite values are skipped by the page. dash: True or one of DASHES; marker: one of
    MARKERS (sent as indexes: codes, not text); width: the line's px."""
    s = {"name": name, "x": [float(v) for v in x], "y": [None if v is None else float(v) for v in y],
         "color": color, "dash": DASHES[dash] if isinstance(dash, str) else dash, "markers": markers,
         "markers_only": markers_only}
    if marker:
        s["marker"] = MARKERS[marker]
    if width:
        s["width"] = width
    return s


def panel(title: str, x: dict, y: dict, lines: list[dict], hlines: list[dict] | None = None,
          direct_labels: int = 0) -> dict:
    """direct_labels: px kept right of the plot for each line's name at its end (many lines, read from afar)."""
    p = {"title": title, "type": "line", "x": x, "y": y, "series": lines, "hlines": hlines or []}
    if direct_labels:
        p["direct_labels"] = direct_labels
    return p


def chart(panels: list[dict], legend: list[dict] | None = None, columns: int = 1, title: str = "",
          hover: str = HOVER, digits: int = 3, height: int = 440) -> dict:
    """Panels side by side (`columns`), one legend for all of them."""
    data = {"kind": "chart", "panels": panels, "columns": columns, "legend": legend or [],
            "labels": {"hover": t(hover), "title": title, "numbers": t(access.LABELS["numbers"])},  # (hover: a msgid, looked up here)
            "colors": list(colors.CATEGORICAL), "digits": digits, "height": height}
    data["stamp"] = stamp(panels, legend, title, data["labels"]["hover"])
    return data


def legend_for(legend: list[dict], shown: list[dict], every: list[dict]) -> list[dict]:
    """The legend of some of a chart's panels (a lesson's step shows the one that proves its claim): an entry that
    names or draws a line only of panels not shown is left out; an entry of no panel's line stays."""
    def drawn(panels: list[dict]) -> set:
        out: set = set()
        for p in panels:
            for s in p.get("series", ()):
                out |= {("text", s.get("name")), ("line", s.get("color"), s.get("dash"))}
            out |= {("text", h.get("name")) for h in p.get("hlines", ())}
        return out

    def said(item: dict) -> set:
        keys = {("text", item.get("text"))}
        return keys | ({("line", item["color"], item.get("dash", False))} if "color" in item else set())

    here, anywhere = drawn(shown), drawn(every)
    return [item for item in legend if said(item) & here or not said(item) & anywhere]


def legend_of(lines: list[dict]) -> list[dict]:
    """One legend entry per distinct (name, colour, dash), in order."""
    seen, out = set(), []
    for s in lines:
        key = (s["name"], s["color"], s["dash"])
        if key not in seen:
            seen.add(key)
            item = {"text": s["name"], "color": s["color"], "dash": s["dash"], "line": not s["markers_only"]}
            if s["markers"] or s["markers_only"]:
                item["marker"] = s.get("marker", 0)  # the legend draws the line's own marker and dash
            out.append(item)
    return out


def bars(categories: Sequence[str], values: Sequence[float], highlight: int | None, title: str, x_label: str,
         y_label: str, name: str, legend: list[dict] | None = None) -> dict:
    """One bar per category (e.g. per token), one marked in the second colour."""
    p = {"title": title, "type": "bars", "x": {"label": x_label, "categories": list(categories)},
         "y": {"label": y_label, "min": 0}, "series": [series(name, range(len(values)), values)],
         "highlight": highlight}
    return chart([p], legend=legend, hover=BAR_HOVER, digits=4)
