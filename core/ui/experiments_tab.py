"""The Experiments tab: the chapter's mask and sqrt(d) experiments, trained live. Layout and wiring only."""

from __future__ import annotations

import html
import logging
from collections.abc import Iterator

import gradio as gr

from core import experiments as ex
from core.experiment_plots import mask_figure, scale_figure
from core.plots import to_data_url
from core.raster import DrawnCache

from .common import TRAINING_GROUP, TRAINING_LIMIT, plot

TITLE = "Experiments"
log = logging.getLogger("attention_lab.ui")
MASK_INTRO = """### (a) Train with and without the causal mask
Two identical one-layer GPTs learn to predict the next word of the synthetic corpus, on the same
batches. One has the causal mask; the other lets every position see the whole window,
**including the word it is asked to predict**. Its training loss falls toward 0: it peeks.
The dashed lines are the **honest loss**: each position predicted from its prefix alone, as
generation must. The samples below are generated one word at a time, where nobody can peek."""
SCALE_INTRO = """### (b) With and without dividing by √d
Two one-layer, one-head models with a wide head (`head_dim` = 256) start from unit-variance
queries and keys. Their dot products then have variance ≈ d: without the division the softmax
is nearly one-hot from the first step (max weight ≈ 1, entropy ≈ 0), and the gradient that
reaches its input is small, so attention learns slowly. Scaled scores keep variance ≈ 1."""
MASK_EVERY, SCALE_EVERY = 40, 10  # redraw every this many steps (~1-2 s): a figure costs ~0.3-0.6 s of CPU


def _fail(exc: Exception) -> gr.Error:
    if isinstance(exc, ValueError):
        return gr.Error(html.escape(str(exc), quote=False), print_exception=False)
    log.exception("experiment failed")
    return gr.Error("The experiment failed; try other settings.", print_exception=False)


FIGURES = {"mask": mask_figure, "scale": scale_figure}
DRAWN = DrawnCache(max_items=256, max_bytes=32 * 2**20, size=len)  # (kind, params, steps, done) -> PNG data URL


def figure_png(kind: str, run: ex.MaskRun | ex.ScaleRun) -> str:
    """A snapshot's figure, drawn once (~0.3 s of matplotlib) however many students watch the run.

    Runs are seeded and deterministic, so (params, steps done, done) names what the figure shows.
    """
    return DRAWN.get((kind, run.params, len(run.steps), run.done), lambda: to_data_url(FIGURES[kind](run)))


def warm(mask: ex.MaskParams = ex.MaskParams(), scale: ex.ScaleParams = ex.ScaleParams()) -> None:
    """Train the default runs (~17 s, in a worker process): a class's first "Train both" is then a cache hit, and a
    click while this trains watches the same run instead of training a second copy."""
    *_, masked = ex.mask_experiment(mask, every=MASK_EVERY)
    figure_png("mask", masked)
    *_, scaled = ex.scale_experiment(scale, every=SCALE_EVERY)
    figure_png("scale", scaled)


def _check(steps: float, seed: float) -> tuple[int, int]:
    steps, seed = int(steps), int(seed)
    if not 10 <= steps <= 2000:
        raise ValueError(f"steps={steps} is out of range; choose 10 to 2000")
    return steps, seed


def mask_summary(run: ex.MaskRun) -> dict:
    """The numbers under the figure, also the API's JSON."""
    n = len(run.steps)

    def last(xs: list[float]) -> float | None:  # the last 10 steps: one batch is noisy
        return round(sum(xs[-10:]) / len(xs[-10:]), 3) if xs else None

    return {
        "steps_done": n, "seconds": round(run.seconds, 1), "done": run.done, "stopped": run.stopped,
        "train_loss": {"masked": last(run.masked), "unmasked": last(run.unmasked)},
        "honest_loss": {"masked": round(run.masked_honest[-1], 3) if run.masked_honest else None,
                        "unmasked": round(run.unmasked_honest[-1], 3) if run.unmasked_honest else None},
        "samples": run.samples,
    }


def scale_summary(run: ex.ScaleRun) -> dict:
    """Final values per model, also the API's JSON."""

    def pick(series: dict[str, list[float]]) -> dict[str, float]:
        return {k: round(v[-1], 4) for k, v in series.items() if v}

    return {"steps_done": len(run.steps), "seconds": round(run.seconds, 1), "done": run.done,
            "max_weight": pick(run.max_weight), "entropy_nats": pick(run.entropy),
            "uniform_entropy_nats": round(run.uniform_entropy, 4), "softmax_input_grad_norm": pick(run.grad_norm),
            "train_loss": pick(run.loss)}


def _words(s: dict, cached: bool) -> str:
    tl, hl = s["train_loss"], s["honest_loss"]
    state = "served from the cache" if cached else f"{s['steps_done']} steps in {s['seconds']} s"
    if s["stopped"]:
        state += " (stopped: not cached)"
    return (f"**{state}.** Training loss: with mask {tl['masked']}, without mask **{tl['unmasked']}** bits/word. "
            f"Honest loss: with mask {hl['masked']}, without mask **{hl['unmasked']}** bits/word.")


def _snapshots(runs, total: int, progress) -> Iterator[tuple[ex.MaskRun | ex.ScaleRun, bool]]:
    """Each snapshot with whether the run came from the cache (a finished first snapshot did); progress shown."""
    cached = None
    for run in runs:
        cached = run.done if cached is None else cached
        progress(len(run.steps) / total, desc=f"step {len(run.steps)} of {total}")
        yield run, cached


def run_mask(steps: float = ex.MaskParams.steps, seed: float = 0, progress=gr.Progress()):
    """Train both models; yields the growing figure. JSON: final losses, samples, seconds."""
    try:
        steps, seed = _check(steps, seed)
        p = ex.MaskParams(steps=steps, seed=seed)
        for run, cached in _snapshots(ex.mask_experiment(p, every=MASK_EVERY), p.steps, progress):
            s = mask_summary(run)
            figure = figure_png("mask", run)
            yield (plot(figure), _words(s, cached), run.samples.get("masked", ""),
                   run.samples.get("unmasked", ""), {**s, "cached": cached})
    except Exception as exc:
        raise _fail(exc) from None


def run_scale(steps: float = ex.ScaleParams.steps, seed: float = 0, progress=gr.Progress()):
    """Train the scaled and unscaled models; yields the growing figures. JSON: final statistics."""
    try:
        steps, seed = _check(steps, seed)
        p = ex.ScaleParams(steps=steps, seed=seed)
        for run, cached in _snapshots(ex.scale_experiment(p, every=SCALE_EVERY), p.steps, progress):
            s = scale_summary(run)
            mw, g = s["max_weight"], s["softmax_input_grad_norm"]
            words = ("served from the cache. " if cached else f"{s['steps_done']} steps in {s['seconds']} s. ") + (
                f"Max weight: scaled {mw.get('scaled')}, unscaled **{mw.get('unscaled')}**; gradient at the "
                f"softmax input: scaled {g.get('scaled')}, unscaled **{g.get('unscaled')}**." if mw else "")
            figure = figure_png("scale", run)
            yield plot(figure), words, {**s, "cached": cached}
    except Exception as exc:
        raise _fail(exc) from None


def _controls(kind: str, max_steps: int, steps: int) -> tuple[gr.Slider, gr.Number, gr.Button, gr.Button]:
    """Steps, seed, "Train both" and "Stop", in one row; element ids start with `kind`."""
    with gr.Row():
        return (gr.Slider(10, max_steps, value=steps, step=10, label="training steps", elem_id=f"{kind}-steps"),
                gr.Number(value=0, precision=0, label="seed", elem_id=f"{kind}-seed"),
                gr.Button("Train both", variant="primary", elem_id=f"{kind}-go"),
                gr.Button("Stop", elem_id=f"{kind}-stop"))


def build(ctx) -> None:
    cpu = dict(concurrency_id=TRAINING_GROUP, concurrency_limit=TRAINING_LIMIT)  # see common.py
    with gr.Tab("Causal mask"):
        gr.Markdown(MASK_INTRO)
        m_steps, m_seed, m_go, m_stop = _controls("mask", 1000, ex.MaskParams.steps)
        m_plot = gr.Plot(label="Loss while training", elem_id="mask-plot")
        m_words = gr.Markdown(elem_id="mask-words")
        with gr.Row():
            m_masked = gr.Textbox(label="Sample from the model trained WITH the mask", interactive=False)
            m_unmasked = gr.Textbox(label="Sample from the model trained WITHOUT the mask", interactive=False)
        m_json = gr.JSON(label="JSON (the /mask_experiment API output)", open=False)
        m_run = m_go.click(run_mask, [m_steps, m_seed], [m_plot, m_words, m_masked, m_unmasked, m_json],
                           api_name="mask_experiment", **cpu)
        m_stop.click(None, None, None, cancels=[m_run], api_visibility="private")
    with gr.Tab("√d scaling"):
        gr.Markdown(SCALE_INTRO)
        s_steps, s_seed, s_go, s_stop = _controls("scale", 500, ex.ScaleParams.steps)
        s_plot = gr.Plot(label="Softmax statistics while training", elem_id="scale-plot")
        s_words = gr.Markdown(elem_id="scale-words")
        s_json = gr.JSON(label="JSON (the /scale_experiment API output)", open=False)
        s_run = s_go.click(run_scale, [s_steps, s_seed], [s_plot, s_words, s_json], api_name="scale_experiment", **cpu)
        s_stop.click(None, None, None, cancels=[s_run], api_visibility="private")
    ctx.warm.append(warm)  # last: the longest (~17 s in a worker process)
