"""The experiments as the app runs them: trained in a worker process, shared by a class, charts for the page.

A notebook calls core.lab.experiments directly; the app calls these. The first caller trains (in a
worker process, core.proc.sandbox) and later callers asking for the same run watch it or get the
finished result (core.serve.runs): a run's numbers are trained once. Each snapshot's chart (numbers for the
browser, words in the reader's language) is built once per language however many students watch, and
remembered for its PNG export.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

from ..i18n import current
from ..lab.experiments import MaskParams, MaskRun, ScaleParams, ScaleRun, mask_experiment, scale_experiment
from ..render.experiment_plots import mask_chart, scale_chart
from . import runs
from .cache import DrawnCache
from .exports import remember

MASK_EVERY, SCALE_EVERY = 40, 10  # a snapshot every this many steps: the chart moves, the stream stays small
CHARTS = {"mask": mask_chart, "scale": scale_chart}
DRAWN = DrawnCache(max_items=256)  # (kind, params, steps, done, language) -> chart dict


def shared_mask_experiment(p: MaskParams = MaskParams(), stop: threading.Event | None = None,
                           every: int = MASK_EVERY, session: str | None = None) -> Iterator[MaskRun]:
    """core.lab.experiments.mask_experiment, trained apart and shared (finished runs cached, live ones watched);
    session: who asks, allowed one training waiting or running (core.serve.runs.Turns)."""
    return runs.cached_run(("mask", p), lambda: runs.apart(mask_experiment, p, stop, every), session)


def shared_scale_experiment(p: ScaleParams = ScaleParams(), stop: threading.Event | None = None,
                            every: int = SCALE_EVERY, session: str | None = None) -> Iterator[ScaleRun]:
    """core.lab.experiments.scale_experiment, trained apart and shared (see shared_mask_experiment)."""
    return runs.cached_run(("scale", p), lambda: runs.apart(scale_experiment, p, stop, every), session)


def chart(kind: str, run: MaskRun | ScaleRun) -> dict:
    """A snapshot's chart in the current language, built once however many students watch the run.

    Runs are seeded and deterministic, so (params, steps done, done) names what the chart shows; its words are
    the language's.
    """
    return remember(DRAWN.get((kind, run.params, len(run.steps), run.done, current()), lambda: CHARTS[kind](run)))


def warm(mask: MaskParams = MaskParams(), scale: ScaleParams = ScaleParams()) -> None:
    """Train the default runs (in a worker process): a class's first "Train both" is then a cache hit, and a
    click while this trains watches the same run instead of training a second copy."""
    *_, masked = shared_mask_experiment(mask)
    chart("mask", masked)
    *_, scaled = shared_scale_experiment(scale)
    chart("scale", scaled)
