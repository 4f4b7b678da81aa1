"""A step's `expect:` lines measured on the numbers its view draws: what the class reads under the view, and whether
each held (`attention-lab lesson check` and the tests fail when one does not).

The measures (core.lab.lesson_expect.MEASURES) read the view's own data, the dict the page draws: a heatmap's
matrices (core.render.matrix: rows, cols, heads' packed values) or a chart's series (core.render.charts), so a check
proves what is on the screen, not a number computed beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..lab.lesson_expect import Expect, said
from ..render.scales import unpacked


@dataclass(frozen=True)
class Outcome:
    """One expectation as the class reads it: its line (in the page's language), the measured values, and whether
    it held (None: nothing to measure yet, e.g. the class's training run still going)."""

    text: str
    measured: tuple[float, ...] | None
    held: bool | None
    expect: Expect


def outcomes(expects: tuple[Expect, ...], view: dict[str, Any] | None, pending: bool = False,
             changed: bool = False, no_model: bool = False) -> tuple[Outcome, ...]:
    """Each expectation measured on the drawn view (view None: nothing drawn, so each fails; pending: a class's run
    not finished, so each waits; no_model: a real model's claim with none configured, so each says so, unmeasured;
    changed: the presenter's controls moved the view off the step's settings)."""
    out = []
    for e in expects:
        measured = None if pending or no_model else (() if view is None else measure(e, view))
        text, held = said(e, measured, changed, _part(e, view), "no_model" if no_model else "pending")
        out.append(Outcome(text, measured, held, e))
    return tuple(out)


def _part(e: Expect, view: dict[str, Any] | None) -> str:
    """The title of the map (or the name of the line) `in head N` / `in line N` reads, as the view shows it; of
    `lit`, the lit point's name on the x axis (a bar's head)."""
    if e.measure == "lit" and view is not None and view.get("panels"):
        panel = view["panels"][0]
        names, at = panel.get("x", {}).get("categories") or (), panel.get("highlight")
        return str(names[at]) if at is not None and at < len(names) else ""
    if e.head is None or view is None:
        return ""
    if view.get("kind") == "chart":
        lines = [s for p in view.get("panels", ()) for s in p.get("series", ())]
        return str(lines[e.head]["name"]) if e.head < len(lines) else ""
    heads = view.get("heads", ())
    return str(heads[e.head]["title"]) if e.head < len(heads) else ""


def _maps(view: dict[str, Any]) -> list[np.ndarray]:
    return [np.asarray(unpacked(h["values"]), dtype=float) for h in view.get("heads", ())]


def _index(token: str, labels: list[str]) -> int | None:
    """A token of the sentence (its first occurrence) or #N, position N."""
    if token.startswith("#") and token[1:].isdigit():
        n = int(token[1:])
        return n if n < len(labels) else None
    return labels.index(token) if token in labels else None


def _chart_values(e: Expect, view: dict[str, Any]) -> tuple[float, ...]:
    lines = [s for p in view.get("panels", ()) for s in p.get("series", ())]
    if e.head is not None:
        lines = lines[e.head:e.head + 1]
    if e.measure in ("moved before", "moved from"):
        panel = view["panels"][0]
        at = panel.get("highlight") or 0
        ys = [v for v in panel["series"][0]["y"]]
        ys = ys[:at] if e.measure == "moved before" else ys[at:]
        return tuple(math.nan if v is None else float(v) for v in ys)
    if e.measure == "lit":  # the point the chart lights (a bar's head, the edited token): each line's value there
        at = view["panels"][0].get("highlight") if view.get("panels") else None
        ys = [s["y"][at] for s in lines if at is not None and at < len(s.get("y", ()))]
        return tuple(math.nan if v is None else float(v) for v in ys)
    if e.measure == "at":  # each line's value where x is X (a line that does not reach X gives none)
        x = float(e.tokens[0])
        ys = [y for s in lines for sx, y in zip(s.get("x", ()), s.get("y", ()), strict=False) if math.isclose(float(sx), x)]
        return tuple(math.nan if v is None else float(v) for v in ys)
    if e.measure in ("last", "growth"):  # each line's last point (where a run ended), or its ratio to the one before
        ends = [[float(v) for v in s.get("y", ()) if v is not None and math.isfinite(v)][-2:] for s in lines]
        if e.measure == "last":
            return tuple(end[-1] for end in ends if end)
        return tuple(end[1] / end[0] for end in ends if len(end) == 2 and end[0] != 0)
    ys = [float(v) for s in lines for v in s.get("y", ()) if v is not None and math.isfinite(v)]
    if not ys:
        return ()
    return (max(ys),) if e.measure == "largest" else (min(ys),)


def measure(e: Expect, view: dict[str, Any]) -> tuple[float, ...]:
    """The values of e's measure in the drawn view: every one must satisfy the comparison (() when there is none)."""
    if view.get("kind") == "chart":
        return _chart_values(e, view)
    if e.measure == "count ratio":  # the two numbers written above the maps (core.serve.lesson_views.counts)
        values = [float(item["value"]) for item in (view.get("counts") or {}).get("items", ())]
        return (values[1] / values[0],) if len(values) == 2 and values[0] else ()
    maps = _maps(view)
    if e.measure == "heads":
        return (float(len(maps)),)
    if e.measure == "difference":
        if len(maps) < 2 or maps[0].shape != maps[1].shape:
            return ()
        return (float(np.nanmax(np.abs(maps[0] - maps[1]))),)
    if e.measure == "outside":
        return _outside(maps)
    if e.measure == "ratio":
        return _ratio(maps)
    if e.measure == "weight":
        rows = list(view.get("rows", ()))
        cols = list(view.get("cols") or rows)
        h = e.head or 0
        i, j = _index(e.tokens[0], rows), _index(e.tokens[1], cols)
        if i is None or j is None or h >= len(maps):
            return ()
        return (float(maps[h][i, j]),)
    chosen = maps if e.head is None else maps[e.head:e.head + 1]
    values: list[float] = []
    for m in chosen:
        if e.measure == "row sums":
            done = ~np.all(np.isnan(m), axis=-1)  # a row that is NaN throughout is counted by `nan`, not here
            values += [float(v) for v in np.sum(m[done], axis=-1)]
        elif e.measure == "future":
            values += [float(v) for v in m[np.triu(np.ones(m.shape, dtype=bool), k=1)]]
        elif e.measure == "nan":
            values.append(float(np.isnan(m).sum()))
        elif e.measure in ("rows", "columns"):  # (a shape the text states: 2 × 3, where 3 × 2 was expected)
            values.append(float(m.shape[0 if e.measure == "rows" else -1]))
        else:  # largest, smallest (finite)
            finite = m[np.isfinite(m)]
            if finite.size:
                values.append(float(finite.max() if e.measure == "largest" else finite.min()))
    if e.measure in ("largest", "smallest") and values:
        return (max(values),) if e.measure == "largest" else (min(values),)
    if e.measure == "nan":
        return (float(sum(values)),)
    return tuple(values)


def _outside(maps: list[np.ndarray]) -> tuple[float, ...]:
    """How far the last map goes past each column's range in the map before it (0: every value lies between that
    column's smallest and largest, as an average of its rows must; a sum of them would not)."""
    if len(maps) < 2 or maps[-1].shape[-1] != maps[-2].shape[-1]:
        return ()
    source, last = maps[-2], maps[-1]
    above = last - np.nanmax(source, axis=0)  # (T, hd) past each column's largest
    below = np.nanmin(source, axis=0) - last  # (T, hd) under each column's smallest
    return (float(max(0.0, np.nanmax(above), np.nanmax(below))),)


def _ratio(maps: list[np.ndarray]) -> tuple[float, ...]:
    """The second map over the first, cell by cell where neither is 0 (dropout: each kept weight ×1/(1-p))."""
    if len(maps) < 2 or maps[0].shape != maps[1].shape:
        return ()
    kept = (maps[0] != 0) & (maps[1] != 0) & np.isfinite(maps[0]) & np.isfinite(maps[1])
    return tuple(float(v) for v in maps[1][kept] / maps[0][kept])
