"""`expect:` lines: what a step's numbers must show, read into Expect (a small grammar), and said as the class reads it.

    expect: weight 它 -> 违约金 >= 0.9          MEASURE [in head N | in line N] OP NUMBER
    expect: row sums == 1
    expect: future in head 0 == 0

A measure is read on the numbers the step's view draws (core.serve.lesson_checks): each gives one or more values
and the expectation holds when every one of them satisfies OP NUMBER. Which views can measure what is MEASURES, so a
step asking a chart for a weight is refused at its line. Plain Python (no torch): the parser and the CLI read it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..i18n import mark, t
from ..mistakes import excerpt
from .lesson_errors import Mistake

MATRICES = ("heatmaps", "mask", "stage", "trained", "dependency", "three-ways", "transfer", "failure", "dropout")
CHARTS = ("sqrt-d", "causality", "interventions", "cost", "training")
REAL = ("real-chapter", "sink")  # a layer × head map of a real model (none configured: measured when one is)
TOKENS = ("heatmaps", "stage", "trained", "dependency", "three-ways", "failure", "dropout")  # rows and keys are tokens
# measure -> (the views that draw its numbers, what the class reads (msgid; {q} {k} for a weight, {x} for a point))
MEASURES: dict[str, tuple[tuple[str, ...], str]] = {
    "weight": (TOKENS, mark("weight {q} → {k}")),
    "row sums": (MATRICES, mark("every row's sum")),
    "future": (MATRICES, mark("every value above the diagonal")),
    "largest": ((*MATRICES, *CHARTS, *REAL), mark("the largest value")),
    "smallest": ((*MATRICES, *CHARTS, *REAL), mark("the smallest value")),
    "difference": (MATRICES, mark("the largest difference between the first two maps")),
    "heads": (MATRICES, mark("maps shown")),
    "nan": (MATRICES, mark("cells that are NaN")),
    "rows": (MATRICES, mark("rows drawn")),
    "columns": (MATRICES, mark("columns drawn")),
    "ratio": (MATRICES, mark("the second map over the first, cell by cell where neither is 0")),
    "count ratio": (("heatmaps",), mark("the second count over the first")),
    "outside": (MATRICES, mark("how far the last map goes past its column's range in the map before it")),
    "last": (CHARTS, mark("the last point")),
    "growth": (CHARTS, mark("the last point over the one before")),
    "lit": (CHARTS, mark("the lit point")),
    "at": (CHARTS, mark("the point at x = {x}")),
    "moved before": (("causality",), mark("every row before the edited token moved by")),
    "moved from": (("causality",), mark("every row from the edited token on moved by")),
}
OPS = {">=": "≥", "<=": "≤", "==": "=", "!=": "≠", ">": ">", "<": "<"}  # (two-character ones first: the regex)
EQUAL = 1e-3  # `==` holds within this (a card's weights are drawn rounded to 4 decimals: a row of 5 sums to 1 ± 2.5e-4)
LINE = re.compile(r"(?P<what>.+?)(?:\s+in\s+(?P<part>head|line)\s+(?P<n>\d{1,2}))?\s*"
                  r"(?P<op>>=|<=|==|!=|>|<)\s*(?P<value>\S+)\Z")
WEIGHT = re.compile(r"weight\s+(?P<q>\S+)\s*->\s*(?P<k>\S+)\Z")
AT = re.compile(r"at\s+(?P<x>\S+)\Z")
MESSAGES = {
    "grammar": mark("an expectation reads 'MEASURE OP NUMBER', like 'weight 它 -> 违约金 >= 0.9', not {line}"),
    "number": mark("an expectation compares with a number (or -inf, inf), not {value}"),
    "measure": mark("{measure} is not a measure; the measures are {measures}"),
    "weight": mark("a weight reads 'weight QUERY -> KEY' (two tokens of the sentence, or #N for position N)"),
    "at": mark("a point reads 'at X', X a number on the chart's x axis (at 64: where d = 64)"),
    "view": mark("view {view} cannot measure {measure}; it measures {measures}"),
    "part": mark("'in {part} N' is not for view {view}: use 'in head N' for a map, 'in line N' for a chart"),
    "held": mark("{what} {op} {value}: measured {measured} ✓"),
    "failed": mark("{what} {op} {value}: measured {measured} ✗ (the step's claim does not hold)"),
    "pending": mark("{what} {op} {value}: not measured yet"),
    "no_model": mark("{what} {op} {value}: not measured, no real model is configured (ATTENTION_LAB_MODELS names "
                     "one)"),
    "changed": mark("{what}: now {measured} (with the step's own settings: {op} {value})"),
    "in_head": mark("{what} (map {n})"),
    "in_line": mark("{what} (line {n})"),
    "named": mark("{what} ({part})"),
    "nothing": mark("nothing to measure"),
}


@dataclass(frozen=True)
class Expect:
    """One expectation: measure (a key of MEASURES), its tokens (weight: query, key), the map or line it reads
    (None: all, or the first for a weight), the comparison and the number; line: the file's line (for errors)."""

    measure: str
    op: str
    value: float
    tokens: tuple[str, ...] = ()
    head: int | None = None
    part: str = "head"  # "head": a map of a matrix view; "line": a chart's series
    text: str = ""
    line: int = 0

    def holds(self, measured: float) -> bool:
        """One measured value against OP NUMBER (NaN never satisfies a comparison but !=)."""
        v, n = measured, self.value
        if self.op in ("==", "!="):
            same = v == n or (math.isfinite(v) and math.isfinite(n) and abs(v - n) <= EQUAL)
            return same if self.op == "==" else not same
        return {">=": v >= n, "<=": v <= n, ">": v > n, "<": v < n}[self.op]

    def what(self, part: str = "") -> str:
        """The measure as the class reads it, in the current language (part: the name of the map or line it reads,
        as the view titles it)."""
        if self.measure == "at":
            said = t(MEASURES["at"][1], x=self.tokens[0])
        else:
            said = t(MEASURES[self.measure][1], q=self.tokens[0], k=self.tokens[1]) if self.tokens else t(
                MEASURES[self.measure][1])
        if part and self.measure != "weight":  # (a map's or a line's title, or the lit point's name)
            return t(MESSAGES["named"], what=said, part=part)
        if self.head is not None and self.measure != "weight":
            return t(MESSAGES["in_head" if self.part == "head" else "in_line"], what=said, n=self.head)
        return said


def _number(text: str) -> float:
    n = {"inf": math.inf, "-inf": -math.inf, "+inf": math.inf}.get(text.lower())
    if n is None:
        try:
            n = float(text)
        except ValueError:
            raise Mistake(MESSAGES["number"], value=excerpt(text)) from None
        if not math.isfinite(n):
            raise Mistake(MESSAGES["number"], value=excerpt(text))
    return n


def parse(text: str, view: str, line: int = 0) -> Expect:
    """An `expect:` line's value for a step showing `view`; Mistake (one sentence) when it is not one."""
    m = LINE.match(text.strip())
    if not m:
        raise Mistake(MESSAGES["grammar"], line=excerpt(text.strip()))
    what = " ".join(m["what"].split())
    tokens: tuple[str, ...] = ()
    if what.startswith("weight ") or what == "weight":
        w = WEIGHT.match(what)
        if not w:
            raise Mistake(MESSAGES["weight"])
        what, tokens = "weight", (w["q"], w["k"])
    if what.startswith("at ") or what == "at":  # a chart's point: at X on its x axis
        a = AT.match(what)
        try:
            x = _number(a["x"]) if a else math.inf
        except Mistake:
            x = math.inf
        if not math.isfinite(x):
            raise Mistake(MESSAGES["at"])
        what, tokens = "at", (written(x),)
    if what not in MEASURES:
        raise Mistake(MESSAGES["measure"], measure=excerpt(what), measures=", ".join(MEASURES))
    views = MEASURES[what][0]
    if view not in views:
        can = [name for name, (vs, _) in MEASURES.items() if view in vs]
        raise Mistake(MESSAGES["view"], view=view, measure=repr(what), measures=", ".join(can) or "—")
    if m["part"] and (m["part"] == "head") != (view in MATRICES):
        raise Mistake(MESSAGES["part"], part=m["part"], view=view)
    head = int(m["n"]) if m["n"] else None
    return Expect(what, m["op"], _number(m["value"]), tokens, head, m["part"] or "head", text.strip(), line)


def said(expect: Expect, measured: tuple[float, ...] | None, changed: bool = False,
         part: str = "", why: str = "pending") -> tuple[str, bool | None]:
    """The check line the class reads, and whether it held (None: nothing measured, `why` a key of MESSAGES: a run
    still training, no real model; changed: a control moved the view off the step's settings, so a claim that no
    longer holds is what changed)."""
    fields = {"what": expect.what(part), "op": OPS[expect.op], "value": written(expect.value)}
    if measured is None:
        return t(MESSAGES[why], **fields), None
    if not measured:
        return t(MESSAGES["failed"], **fields, measured=t(MESSAGES["nothing"])), False
    held = all(expect.holds(v) for v in measured)
    finite = [v for v in measured if not math.isnan(v)]
    lo, hi = (min(finite), max(finite)) if finite else (math.nan, math.nan)
    shown = number(lo) if number(lo) == number(hi) or abs(hi - lo) < 1e-3 else f"{number(lo)} … {number(hi)}"
    if len(finite) < len(measured):
        shown = "NaN" if not finite else f"{shown}, NaN"
    key = "held" if held else ("changed" if changed else "failed")
    return t(MESSAGES[key], **fields, measured=shown), held


def number(v: float) -> str:
    """A measured or expected number as the check writes it: -inf, an integer as is, else 2 to 4 significant."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    if abs(v - round(v)) < 1e-6 and abs(v) < 1e9:  # (a float32 row sum of 0.99999994 reads 1)
        return str(int(round(v)))
    if abs(v) >= 0.1:
        return f"{v:.2f}"
    return f"{v:.2g}"


def written(v: float) -> str:
    """An expected number as the file wrote it (0.9, 0.00001, -inf), not rounded like a measurement."""
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    return f"{v:.10f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))
