"""A lesson step's state -> the view it shows and the check that proves its claim, from the tabs' own (cached) views.

Every number comes from the function a lab tab uses (core.serve.views, .trained, .chapter, core.lab.transfer_report,
core.bench.cost); this module only picks the view, presets its state, and fits it to one screen.
Where a step is in its lesson (its number, a link's step) is core.serve.lesson_moves.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np

from ..config import ConfigError
from ..i18n import current, mark, t
from ..lab import lesson_format, lesson_keys, lesson_shelf
from ..lab.lesson_format import STAGES
from ..lab.lesson_shelf import Shelf
from ..lab.lesson_values import Known
from ..lab.pronoun import CHAPTER_SENTENCE
from ..render import charts, matrix
from ..render.lesson_html import step_html
from ..render.tokens import markdown_text
from . import chapter, lesson_checks, lesson_images, lesson_lab, lesson_training, lesson_views, views
from .exports import remember
from .trained import trained

log = logging.getLogger("attention_lab.lessons")

ENV = "ATTENTION_LAB_LESSONS"  # a teacher's folder of lesson files (several: separated by os.pathsep)
HEIGHT = 300  # px a step's drawn view may take: text, view and controls fit 1024×768 without scrolling
RESERVE = 768 - HEIGHT  # px of the window the rest of a step's screen takes: a taller window, a taller view
FONT_PX = 17  # the views' token labels, read from the back of a room
PAGE_HEIGHT = 520  # px of a step's view on the handout's printed page (A4 or Letter, its text above it)
DEFAULTS: dict[str, Any] = lesson_keys.DEFAULTS  # what a key a step does not set takes (the parser checks with it)
TRAINED_SENTENCE = CHAPTER_SENTENCE
LAB_TABS = {  # the lab tab a step continues in (core.ui module names)
    "heatmaps": "attention_tab", "mask": "attention_tab", "trained": "attention_tab", "stage": "step_tab",
    "causality": "causality_tab", "dependency": "causality_tab", "three-ways": "masking_tab",
    "sqrt-d": "masking_tab", "transfer": "transfer_tab", "failure": "chapter_tab", "interventions": "chapter_tab",
    "cost": "cost_tab", "dropout": "masking_tab", "training": "experiments_tab",
    "real-chapter": "real_model_tab", "sink": "real_model_tab",
}
MESSAGES = {
    "weight": mark("{query} → {key}: {weight:.2f}"),  # (the tokens as Markdown that shows them as typed)
    "row": mark("row={row} is past the sentence's last token; choose 0 to {last}"),
    "key": mark("key={row} is past the sentence's last token; choose 0 to {last}"),
    "cost": mark("Measured offline at T = {T}: one call of the naive path grew memory by {naive} MiB, the fused "
                 "kernel by {fused} MiB; doubling T quadruples the square."),
    "unknown_view": mark("view {view} is not known; the views are {views}"),
}


def places(registry: Any) -> list[tuple[str, str]]:
    """Where lessons come from, in order: the built-ins, the teacher's folder(s), then each plugin's."""
    out = [(str(lesson_shelf.BUILT_IN), "built-in")]
    out += [(p, ENV) for p in os.environ.get(ENV, "").split(os.pathsep) if p.strip()]
    out += [(path, f"plugin {plugin}") for plugin, path in getattr(registry, "lessons", [])]
    return out


def load(registry: Any) -> Shelf:
    """Every lesson the app offers; a file with a mistake is one sentence in .errors (and in the server's log) and
    the rest still load. The registry's variants check each step's variant and options, as the views will."""
    shelf = lesson_shelf.shelf(places(registry), Known.of(registry) if getattr(registry, "variants", None) else None)
    for error in shelf.errors:
        log.warning("lesson not loaded: %s", error, extra={"lab_key": f"{error.path}:{error.line}"})  # (one each)
    return shelf


def text_html(lesson: lesson_format.Lesson, k: int) -> str:
    """Step k's title and text as the page shows them: markdown-it's HTML, its images the app's own addresses."""
    step = lesson.steps[k]
    return step_html(step.title, step.text, {image.src: lesson_images.url(image.file) for image in step.images})


@dataclass(frozen=True)
class Shown:
    """What one step shows: the drawn view, the check (Markdown: the view's own, then one line per expectation),
    the state a lab tab continues from, and each `expect:` line measured on the drawn view (core.serve.lesson_checks)."""

    view: dict[str, Any] | None
    check: str
    lab: dict[str, Any]  # the Attention tab's inputs (sentence, variant, causal, scaled, heads, d_model, seed, options)
    outcomes: tuple[lesson_checks.Outcome, ...] = ()


def state(step: lesson_format.Step, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The step's whole state: the defaults, what the file sets, then what the presenter changed (its controls)."""
    base = {**DEFAULTS, **({"sentence": TRAINED_SENTENCE} if step.view == "trained" else {})}
    return {**base, **step.state, **{k: v for k, v in (overrides or {}).items() if k in step.controls}}


def shown(lab: Any, step: lesson_format.Step, overrides: dict[str, Any] | None = None) -> Shown:
    """A step as the class sees it: its view with the presenter's changes, its check and its expectations measured."""
    st = state(step, overrides)
    return show(lab, step.view, st, step.expect, changed=st != state(step))


def show(lab: Any, view: str, st: dict[str, Any], expect: tuple = (), changed: bool = False) -> Shown:
    """The step's view and check (cached: a step change paints from memory), each of expect measured on the drawn
    view and said under the check (changed: the presenter moved a control away from the step's own settings, so an
    expectation that no longer holds is said as what changed, not as a broken claim); ConfigError for a state it
    refuses."""
    if view == "training":  # not cached here: the class's run may still be training (core.serve.lesson_training)
        data, check = lesson_training.training(st)
        shown = Shown(_fit(data), check, _lab(st))
    elif view in ("real-chapter", "sink"):  # cached per model and language in core.serve.real_lessons
        shown = _real(view, st)
    else:
        shown = _show(lab, view, json.dumps(st, sort_keys=True, ensure_ascii=False), current())  # (text: per language)
    shown = replace(shown, lab={**shown.lab, **lesson_lab.handed(view, st)})  # what its lab tab opens on
    if expect:
        waiting = view == "training" and not (shown.view or {}).get("done")  # (a run not finished: measured later)
        found = lesson_checks.outcomes(expect, shown.view, pending=waiting, changed=changed,
                                       no_model=_no_real_model(view, shown, st))
        check = "  \n".join([*([shown.check] if shown.check else []), *(markdown_text(o.text) for o in found)])
        shown = replace(shown, check=check, outcomes=found, view=_side_by_side(shown.view, expect))
    if shown.view is not None:
        remember(shown.view)
    return shown


def _no_real_model(view: str, shown: Shown, st: dict[str, Any]) -> bool:
    """A real model's step with none configured (no Chinese-capable model; the sink's tiny stand-in, which is too
    small to grow a sink): its claim is about a real model, so it is said unmeasured, neither held nor broken."""
    if view == "real-chapter":
        return shown.view is None
    if view == "sink" and not st.get("model"):
        from . import real_lessons, real_models

        return real_lessons.sink_model() == real_models.TINY
    return False


def _side_by_side(data: dict[str, Any] | None, expect: tuple) -> dict[str, Any] | None:
    """A step whose claim is about several maps (`expect: heads == 4`) draws them all side by side, never one big
    with thumbnails: the class compares them at a glance."""
    if data is None or not any(e.measure == "heads" and e.value > 1 for e in expect):
        return data
    n = len(data.get("heads", ()))
    return {**data, "focus": False, "side_by_side": True, "min_columns": min(n, 4), "max_columns": min(n, 4)}


def _fit(data: dict[str, Any], panel: int | None = None, **extra: Any) -> dict[str, Any]:
    """A tab's view fitted to a lesson's screen: a height budget, larger labels, no head view underneath; of a
    chart, the one panel that proves the step's claim."""
    if data.get("kind") == "chart":
        if panel is not None and panel >= len(data["panels"]):  # a silent other panel would contradict the text
            raise ConfigError(t(lesson_format.PANEL_PAST, panel=panel, last=len(data["panels"]) - 1))
        panels = data["panels"] if panel is None else data["panels"][panel:panel + 1]
        legend = charts.legend_for(data.get("legend", []), panels, data["panels"])  # (no line it does not draw)
        return {**data, "panels": panels, "legend": legend, "height": HEIGHT, "window_reserve": RESERVE, "columns": 1,
                **extra}
    heads = len(data.get("heads", ()))
    if data.get("softmax"):  # the step's settings, as the server computed them: never the Attention tab's switches
        data = {**data, "softmax": {**data["softmax"], "controls": {}}}
    return {**data, "height_budget": HEIGHT, "window_reserve": RESERVE, "font_px": FONT_PX, "headview": None,
            "min_columns": min(heads, 4) or 1, "min_head": 0,
            "focus": True,  # heads too small side by side for every label: one big, the others as thumbnails
            "check": False,  # (heads side by side on one screen; the step's own check says it)
            "labels": {**data.get("labels", {}), "note": ""}, **extra}  # (the tab's "click a token" hint: not here)


def on_paper(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """A step's view for the handout's paper: a fixed height (no window to fill), every map drawn (no thumbnails)."""
    if view is None:
        return None
    if view.get("kind") == "chart":
        return {**view, "height": PAGE_HEIGHT - 60, "window_reserve": 0}  # (its title and legend above the plot)
    return {**view, "height_budget": PAGE_HEIGHT, "window_reserve": 0, "focus": False,  # (heads side by side: paper
            "side_by_side": False}  # has no thumbnail to click, so never one map and thumbnails)


def _lab(st: dict[str, Any]) -> dict[str, Any]:
    return {k: st[k] for k in ("sentence", "variant", "causal", "scaled", "heads", "d_model", "seed", "options")}


def _row(st: dict[str, Any], T: int, default: int | None) -> int | None:
    row = st.get("row", default)
    if row is not None and row >= T:
        raise ConfigError(t(MESSAGES["row"], row=row, last=T - 1))
    return row


def weight_line(query: str, key: str, weight: float) -> str:
    """The check of a lit row: its token, the key's and the weight (the tokens shown as typed, never as Markdown)."""
    return t(MESSAGES["weight"], query=markdown_text(query), key=markdown_text(key), weight=float(weight))


@lru_cache(maxsize=256)
def _show(lab: Any, view: str, frozen: str, language: str) -> Shown:
    st = json.loads(frozen)
    args = (st["sentence"], st["variant"], st["causal"], st["scaled"], st["heads"], st["d_model"], st["seed"],
            json.dumps(st["options"]))
    if view in ("heatmaps", "mask"):
        v = views.attention(lab, *args)
        if view == "mask":
            return Shown(_fit(v.mask, max_cell=36), v.check, _lab(st))
        T = len(v.heatmaps["rows"])
        row = _row(st, T, None)
        check = v.check
        if row is not None:
            w = np.asarray(v.payload["weights"][0][row], dtype=float)  # head 0's row
            key = st.get("key", int(np.nanargmax(w)))
            if key >= T:
                raise ConfigError(t(MESSAGES["key"], row=key, last=T - 1))
            check = weight_line(v.heatmaps["rows"][row], v.heatmaps["rows"][key], w[key]) + "  \n" + check
        lit = {"highlight": row, "highlight_key": key} if row is not None else {}  # the cell the check reads
        if st.get("count"):  # two numbers counted on real layers, written above the maps (`count ratio` reads them)
            lit["counts"] = lesson_views.counts(lab, (*args, st["count"]))
        return Shown(_fit(v.heatmaps, **lit), check, _lab(st))
    if view == "stage":
        v = views.step(lab, *args, st["head"])
        stages = views.padded(v.stages, len(STAGES))
        if st["stage"] in ("Q", "K", "V") and all(d for _, d in stages[:3]):  # looks for, offers, passes on: together
            data, check = lesson_views.qkv(stages, STAGES, v.head)
            return Shown(_fit(data), check, _lab(st))
        formula, data = stages[STAGES.index(st["stage"])]
        if st["stage"] == "context":  # the values beside their averages (a variant's own shapes: the context alone)
            data = lesson_views.averages(stages, STAGES) or data
        row = _row(st, len(data["rows"]), None) if data else None
        return Shown(None if data is None else _fit(data, **({"highlight": row} if row is not None else {})),
                     formula, _lab(st))
    if view == "trained":
        return _trained(st)
    if view in ("causality", "dependency"):
        v = views.causality(lab, st["sentence"], st["position"], st["replacement"], st["causal"], st["variant"],
                            st["seed"])
        return Shown(_fit(v.bars if view == "causality" else v.dependency), v.summary, _lab(st))
    if view in ("three-ways", "sqrt-d"):
        v = views.masking(lab, st["sentence"], st["seed"])
        if view == "three-ways":
            return Shown(_fit(v.three), v.three_summary, _lab(st))
        return Shown(_fit(v.sqrt_d, panel=st.get("panel", 0)), v.sqrt_d_summary, _lab(st))
    if view == "transfer":
        data, check = lesson_views.transfer(st)
        return Shown(_fit(data), check, _lab(st))
    if view == "failure":
        card = next(c for c in chapter.cards() if c.key == st["card"])
        return Shown(_fit(card.weights), "  \n".join(card.check.splitlines()[1:]), _lab(st))  # wrong, then fix
    if view == "interventions":
        v = chapter.interventions(st["sentence"] if st["sentence"] != DEFAULTS["sentence"] else TRAINED_SENTENCE,
                                  st["mode"])
        return Shown(_fit(v.chart, panel=st.get("panel", 0)), v.headline, _lab(st))
    if view == "cost":
        return _cost(st)
    if view == "dropout":  # the Masking tab's pair, by its own function: Open in the lab draws the same numbers
        data, check = views.dropout(lab, st["sentence"], st["dropout"], st["seed"])
        return Shown(_fit(data), check, _lab(st))
    raise ConfigError(t(MESSAGES["unknown_view"], view=repr(view), views=", ".join(lesson_format.VIEWS)))


def _trained(st: dict[str, Any]) -> Shown:
    """One head of the trained tiny model as a heatmap, its pronoun's (or the named) row lit, the check row → key."""
    v = trained(st["sentence"], st["layer"], st["head"])
    tokens, weights = v.payload["tokens"], np.asarray(v.payload["weights"][st["head"]], dtype=float)  # (T, T)
    T = len(tokens)
    row = _row(st, T, v.model.get("highlight", T - 1))
    key = st.get("key", int(np.argmax(weights[row])))
    if key >= T:
        raise ConfigError(t(MESSAGES["key"], row=key, last=T - 1))
    allowed = np.tril(np.ones((T, T), dtype=bool))  # the tiny model is causal
    labels = {"hover": matrix.LABELS["hover_plain"], "note": "", "warning": v.note}  # (its role: the head's title)
    data = matrix.heatmaps(tokens, [weights], [v.payload["heads"][st["head"]]], blocked=~allowed, labels=labels,
                           max_columns=1)
    check = weight_line(tokens[row], tokens[key], weights[row, key])
    return Shown(_fit(data, highlight=row, highlight_key=key, height_budget=HEIGHT + 50), check,  # (one head)
                 {**_lab({**DEFAULTS, **st}), "weights": "trained"})


def _real(view: str, st: dict[str, Any]) -> Shown:
    """A step on a real model (core.serve.real_lessons): the chapter's sentence in a Chinese-capable model, or the
    attention sink; with no such model configured, the step says how to configure one."""
    from . import real_lessons

    own = st["sentence"] != DEFAULTS["sentence"]
    if view == "real-chapter":
        data, check = real_lessons.chapter_step(st["sentence"] if own else None)
    else:
        data, check = real_lessons.sink_step(st["sentence"] if own else None, st.get("model"))
    return Shown(None if data is None else _fit(data), check, _lab(st))


def _cost(st: dict[str, Any]) -> Shown:
    """The saved long-sequence benchmark's chart, the step's paths only (the Cost tab draws the same when opened from
    it, core.serve.lesson_lab); the check reads the naive square against the fused kernel."""
    from ..bench import cost
    from ..render.cost_plot import saved_chart

    saved = cost.load_saved() or {"points": []}
    paths = lesson_views.cost_paths(saved)
    peak = {(p.get("row"), p.get("T")): p.get("peak_mib") for p in saved["points"] if p.get("row") in paths}
    both = sorted(T for (row, T) in peak if row == "trace" and peak.get(("multi-head", T)) is not None
                  and peak[(row, T)] is not None)
    check = "" if not both else t(MESSAGES["cost"], T=both[-1], naive=f"{peak[('trace', both[-1])]:,.0f}",
                                  fused=f"{peak[('multi-head', both[-1])]:,.0f}")
    return Shown(_fit(saved_chart(saved, paths), panel=st.get("panel", lesson_views.COST_PANEL)), check, _lab(st))
