"""A lesson step on the class's shared training run (the Experiments tab's): its chart and the figures it measured.

The step never trains and never waits: it reads the run the app warms at start-up (core.serve.experiments.warm), the
same one a student's "Train both" with the default settings shares (core.serve.runs). Finished, it is the cached run;
still training, it is the latest snapshot with the fraction done (a step change stays one round trip; moving back and
forth redraws it); not started yet, the empty axes and one sentence saying so.
"""

from __future__ import annotations

from typing import Any

from ..config import ConfigError
from ..i18n import mark, t
from ..lab.experiments import MaskParams, MaskRun, ScaleParams, ScaleRun, mask_summary, scale_summary
from ..lab.lesson_keys import PANEL_PAST
from ..render.tokens import markdown_text
from ..render.web import stamp
from . import runs
from .experiments import chart

PARAMS = {"mask": MaskParams(), "scale": ScaleParams()}  # the runs warm() trains and "Train both" starts by default
EMPTY = {"mask": MaskRun, "scale": ScaleRun}  # a run with no step yet: the chart's axes and legend
SAMPLE_WORDS = 12  # of each 20-word sample: enough to read the mask-free model's repetition, and one screen
MESSAGES = {  # msgids (core.i18n)
    "mask": mark("Training loss without the mask {unmasked:.2f} bits per word, with it {masked:.2f}; honest loss "
                 "(each word from its prefix alone) {unmasked_honest:.2f} against {masked_honest:.2f}.  \n"
                 "Generated word by word, with the mask: '{sample_masked}'; without: '{sample_unmasked}'."),
    "mask_title": mark("Loss with and without the mask"),  # (the tab's title, about the honest loss, is wider than a step)
    "scale": mark("Without √d the largest weight in a row reaches {unscaled:.2f} (1 = one-hot), with it {scaled:.2f}; "
                  "the gradient reaching the softmax input is {grad_unscaled:.4f} against {grad_scaled:.4f}."),
    "training": mark("The class's run is still training ({percent}% done): these are its curves so far; come back "
                     "to this step in a few seconds for its figures."),
    "waiting": mark("The class's run has not started yet: the app trains it after start-up, or press Train both in "
                    "the Experiments tab; then come back to this step."),
}


def training(st: dict[str, Any]) -> tuple[dict, str]:
    """The step's panel of the Experiments tab's chart (as far as the run got) and its check: the run's figures, or
    where the run is."""
    kind = st.get("experiment", "mask")
    p = PARAMS[kind]
    run = runs.peek((kind, p))
    data = _panel(kind, chart(kind, run if run is not None else EMPTY[kind](p)), st.get("panel", 0))
    if run is None:
        return data, t(MESSAGES["waiting"])
    if not run.done:
        return data, t(MESSAGES["training"], percent=round(100 * run.fraction_done))
    data = {**data, "done": True}  # (a step's expect: lines are measured on a finished run only)
    return data, (_mask_check(run) if kind == "mask" else _scale_check(run))


def _panel(kind: str, data: dict, k: int) -> dict:
    """One panel of a chart, with the legend of its own lines (the mask chart's under a title a step can fit)."""
    if k >= len(data["panels"]):  # e.g. panel: 1 of the mask run's one panel: said, never another panel shown
        raise ConfigError(t(PANEL_PAST, panel=k, last=len(data["panels"]) - 1))
    panel = data["panels"][k]
    if kind == "mask":
        panel = {**panel, "title": t(MESSAGES["mask_title"])}
    names = {s["name"] for s in panel["series"]} | {h["name"] for h in panel.get("hlines", ())}
    legend = [e for e in data.get("legend", ()) if e["text"] in names]
    return {**data, "panels": [panel], "legend": legend, "stamp": stamp(data["stamp"], panel["title"], len(legend))}


def _mask_check(run: MaskRun) -> str:
    """Training loss (its last steps' mean) and honest loss of both models, then both samples: all from the run."""
    s = mask_summary(run)
    tl, hl = s["train_loss"], s["honest_loss"]
    return t(MESSAGES["mask"], unmasked=tl["unmasked"], masked=tl["masked"], unmasked_honest=hl["unmasked"],
             masked_honest=hl["masked"], sample_masked=_start(run.samples["masked"]),
             sample_unmasked=_start(run.samples["unmasked"]))


def _scale_check(run: ScaleRun) -> str:
    """The last step's largest weight and gradient at the softmax input, without and with √d."""
    s = scale_summary(run)
    mw, g = s["max_weight"], s["softmax_input_grad_norm"]
    return t(MESSAGES["scale"], unscaled=mw["unscaled"], scaled=mw["scaled"], grad_unscaled=g["unscaled"],
             grad_scaled=g["scaled"])


def _start(sample: str) -> str:
    """A sample's first words, as plain text in the check's Markdown (the model's words: escaped, never markup)."""
    words = sample.split()
    return markdown_text(" ".join(words[:SAMPLE_WORDS]) + (" …" if len(words) > SAMPLE_WORDS else ""))
