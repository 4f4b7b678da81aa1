"""The experiments as the app runs them: trained in a worker process, shared by a class, figures drawn once.

A notebook calls core.lab.experiments directly; the app calls these. The first caller trains (in a
worker process, core.sandbox) and later callers asking for the same run watch it or get the
finished result (core.serve.runs). Each snapshot's figure is drawn once however many students watch.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

from ..lab.experiments import MaskParams, MaskRun, ScaleParams, ScaleRun, mask_experiment, scale_experiment
from ..render.experiment_plots import mask_figure, scale_figure
from ..render.plots import to_data_url
from ..render.raster import DrawnCache
from . import runs

MASK_EVERY, SCALE_EVERY = 40, 10  # a snapshot every this many steps (~1-2 s): a figure costs ~0.3-0.6 s of CPU
FIGURES = {"mask": mask_figure, "scale": scale_figure}
DRAWN = DrawnCache(max_items=256, max_bytes=32 * 2**20, size=len)  # (kind, params, steps, done) -> PNG data URL


def shared_mask_experiment(p: MaskParams = MaskParams(), stop: threading.Event | None = None,
                           every: int = MASK_EVERY, session: str | None = None) -> Iterator[MaskRun]:
    """core.lab.experiments.mask_experiment, trained apart and shared (finished runs cached, live ones watched);
    session: who asks, allowed one training waiting or running (core.serve.runs.Turns)."""
    return runs.cached_run(("mask", p), lambda: runs.apart(mask_experiment, p, stop, every), session)


def shared_scale_experiment(p: ScaleParams = ScaleParams(), stop: threading.Event | None = None,
                            every: int = SCALE_EVERY, session: str | None = None) -> Iterator[ScaleRun]:
    """core.lab.experiments.scale_experiment, trained apart and shared (see shared_mask_experiment)."""
    return runs.cached_run(("scale", p), lambda: runs.apart(scale_experiment, p, stop, every), session)


def figure_png(kind: str, run: MaskRun | ScaleRun) -> str:
    """A snapshot's figure, drawn once (~0.3 s of matplotlib) however many students watch the run.

    Runs are seeded and deterministic, so (params, steps done, done) names what the figure shows.
    """
    return DRAWN.get((kind, run.params, len(run.steps), run.done), lambda: to_data_url(FIGURES[kind](run)))


def warm(mask: MaskParams = MaskParams(), scale: ScaleParams = ScaleParams()) -> None:
    """Train the default runs (~17 s, in a worker process): a class's first "Train both" is then a cache hit, and a
    click while this trains watches the same run instead of training a second copy."""
    *_, masked = shared_mask_experiment(mask)
    figure_png("mask", masked)
    *_, scaled = shared_scale_experiment(scale)
    figure_png("scale", scaled)
