"""A drawn view that says what it was drawn for, so the page can ask again when its controls moved on meanwhile.

Several controls set at once (a lab link, "Open in the lab") each start their change event with the values set so
far, and the page's unqueued answers arrive in any order (trigger_mode orders one event's requests, not several
events' answers): the last answer painted may be one for half-set controls. Each view an event draws carries the
values it was asked for and a number of its own; after it is painted, JS compares them with the controls and, when
they differ, writes a hidden box whose change draws again, once per answer (a refused setting sends no answer, so
nothing loops).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

ANSWERS = itertools.count()  # each answer's number (a late stale one is asked again; one seen before is not)


def marked(view: dict[str, Any] | None, values: Iterable[Any]) -> dict[str, Any] | None:
    """The view (a core.render dict, cached and shared: copied, never changed) with the raw values it was drawn for."""
    if not isinstance(view, dict):
        return view
    return {**view, "asked": list(values), "answer": next(ANSWERS)}


# (data, ...the controls' values now, in the order they were asked with) -> "draw <time>" when the view is stale
JS = """(data, ...now) => [STALE(data, now) ? "draw " + Date.now() : undefined]"""

# The test both pages share (the Attention tab's DRAWN_JS adds its toggles): stale once per answer
STALE = """((data, now) => {
  if (!(data && data.asked) || JSON.stringify(data.asked) === JSON.stringify(now)) return false;
  const seen = (window.AttnLabAnswers = window.AttnLabAnswers || new Set());
  const key = data.answer ?? data.stamp;  // (a view no event marked: its stamp)
  if (seen.has(key)) return false;
  seen.add(key);
  return true;
})"""


def js() -> str:
    """STALE_JS for an event's .then: its inputs the view, then the controls in the order they were asked with."""
    return JS.replace("STALE", STALE)
