"""The Experiments tab: the chapter's mask and sqrt(d) experiments, trained live. Layout and wiring only."""

from __future__ import annotations

from collections.abc import Iterator

import gradio as gr

from core.i18n import mark, t
from core.lab import experiments as ex
from core.serve import clients
from core.serve.experiments import chart, shared_mask_experiment, shared_scale_experiment, warm

from . import lab_open
from .common import TRAINING_GROUP, TRAINING_LIMIT, api_accordion, export_button, user_errors, view
from .i18n import static

TITLE = mark("Experiments")
TEXT = {  # msgids: the page shows each in its own language (core.ui.i18n.static)
    "mask_tab": mark("Causal mask"),
    "scale_tab": mark("√d scaling"),
    "mask_intro": mark("### (a) Train with and without the causal mask\nTwo identical one-layer GPTs learn to predict "
                       "the next word of the synthetic corpus, on the same\nbatches. One has the causal mask; the "
                       "other lets every position see the whole window,\n**including the word it is asked to "
                       "predict**. Its training loss falls toward 0: it peeks.\nThe dashed lines are the **honest "
                       "loss**: each position predicted from its prefix alone, as\ngeneration must. The samples below "
                       "are generated one word at a time, where nobody can peek."),
    "scale_intro": mark("### (b) With and without dividing by √d\nTwo one-layer, one-head models with a wide head "
                        "(`head_dim` = 256) start from unit-variance\nqueries and keys. Their dot products then have "
                        "variance ≈ d: without the division the softmax\nis nearly one-hot from the first step (max "
                        "weight ≈ 1, entropy ≈ 0), and the gradient that\nreaches its input is small, so attention "
                        "learns slowly. Scaled scores keep variance ≈ 1."),
    "steps": mark("training steps"),
    "seed": mark("seed"),
    "go": mark("Train both"),
    "stop": mark("Stop"),
    "masked": mark("Sample from the model trained WITH the mask"),
    "unmasked": mark("Sample from the model trained WITHOUT the mask"),
    "mask_json": mark("JSON (the /mask_experiment API output)"),
    "scale_json": mark("JSON (the /scale_experiment API output)"),
}


def _state(s: dict, cached: bool) -> str:
    """Where the run's numbers come from: the cache, or this many steps in this many seconds (and if it stopped)."""
    if cached:
        return t("served from the cache (stopped: not cached)") if s["stopped"] else t("served from the cache")
    if s["stopped"]:
        return t("{steps} steps in {seconds} s (stopped: not cached)", steps=s["steps_done"], seconds=s["seconds"])
    return t("{steps} steps in {seconds} s", steps=s["steps_done"], seconds=s["seconds"])


def _words(s: dict, cached: bool) -> str:
    tl, hl = s["train_loss"], s["honest_loss"]
    return t("**{state}.** Training loss: with mask {tl_m}, without mask **{tl_u}** bits/word. Honest loss: with mask "
             "{hl_m}, without mask **{hl_u}** bits/word.", state=_state(s, cached), tl_m=tl["masked"],
             tl_u=tl["unmasked"], hl_m=hl["masked"], hl_u=hl["unmasked"])


def _scale_words(s: dict, cached: bool) -> str:
    mw, g = s["max_weight"], s["softmax_input_grad_norm"]
    if not mw:
        return t("{state}.", state=_state(s, cached))
    return t("{state}. Max weight: scaled {s}, unscaled **{u}**; gradient at the softmax input: scaled {gs}, "
             "unscaled **{gu}**.", state=_state(s, cached), s=mw.get("scaled"), u=mw.get("unscaled"),
             gs=g.get("scaled"), gu=g.get("unscaled"))


def _snapshots(runs, total: int, progress) -> Iterator[tuple[ex.MaskRun | ex.ScaleRun, bool]]:
    """Each snapshot with whether the run came from the cache (a finished first snapshot did); progress shown."""
    cached = None
    for run in runs:
        cached = run.done if cached is None else cached
        progress(run.fraction_done, desc=t("step {n} of {total}", n=len(run.steps), total=total))
        yield run, cached


@user_errors
def run_mask(steps: float = ex.MaskParams.steps, seed: float = 0, request: gr.Request = None,
             progress=gr.Progress()):
    """Train both models; yields the growing figure. JSON: final losses, samples, seconds."""
    steps, seed = ex.check_params("mask", steps, seed)
    p = ex.MaskParams(steps=steps, seed=seed)
    for run, cached in _snapshots(shared_mask_experiment(p, session=_session(request)), p.steps, progress):
        s = ex.mask_summary(run)
        yield (chart("mask", run), _words(s, cached), run.samples.get("masked", ""),
               run.samples.get("unmasked", ""), {**s, "cached": cached})


@user_errors
def run_scale(steps: float = ex.ScaleParams.steps, seed: float = 0, request: gr.Request = None,
              progress=gr.Progress()):
    """Train the scaled and unscaled models; yields the growing figures. JSON: final statistics."""
    steps, seed = ex.check_params("scale", steps, seed)
    p = ex.ScaleParams(steps=steps, seed=seed)
    for run, cached in _snapshots(shared_scale_experiment(p, session=_session(request)), p.steps, progress):
        s = ex.scale_summary(run)
        yield chart("scale", run), _scale_words(s, cached), {**s, "cached": cached}


def _session(request: gr.Request | None) -> str | None:
    """Who asks: one training waiting or running per client address (core.serve.runs, core.serve.clients); a
    session would not do: every /call/ is a new one."""
    return None if request is None else clients.key_of(request)


def stop_mask(summary: dict | None):
    """After Stop: the JSON and the words say the run was stopped."""
    s = ex.stopped_summary(summary)
    return s, _words(s, bool(s.get("cached"))) if isinstance(s, dict) and "train_loss" in s else gr.skip()


def stop_scale(summary: dict | None):
    """After Stop: the JSON and the words say the run was stopped."""
    s = ex.stopped_summary(summary)
    return s, _scale_words(s, bool(s.get("cached"))) if isinstance(s, dict) and "max_weight" in s else gr.skip()


def _controls(kind: str, max_steps: int, steps: int) -> tuple[gr.Slider, gr.Number, gr.Button, gr.Button]:
    """Steps, seed, "Train both" and "Stop", in one row; element ids start with `kind`."""
    with gr.Row():
        return (gr.Slider(10, max_steps, value=steps, step=10, label=static(TEXT["steps"]), elem_id=f"{kind}-steps"),
                gr.Number(value=0, precision=0, label=static(TEXT["seed"]), elem_id=f"{kind}-seed"),
                gr.Button(static(TEXT["go"]), variant="primary", elem_id=f"{kind}-go"),
                gr.Button(static(TEXT["stop"]), elem_id=f"{kind}-stop"))


def _of(kind: str, key: str):
    """A lesson's training step's run setting, for the controls of its own experiment only."""
    return lambda lab: lab[key] if lab.get("experiment") == kind and key in lab else gr.skip()


def build(ctx) -> None:
    cpu = dict(concurrency_id=TRAINING_GROUP, concurrency_limit=TRAINING_LIMIT)  # see common.py
    with gr.Tab(static(TEXT["mask_tab"]), elem_id="experiments-mask"):  # (its button: #experiments-mask-button)
        gr.Markdown(static(TEXT["mask_intro"]))
        m_steps, m_seed, m_go, m_stop = _controls("mask", ex.MAX_STEPS["mask"], ex.MaskParams.steps)
        m_plot = view(None, elem_id="mask-plot")
        m_words = gr.Markdown(elem_id="mask-words")
        with gr.Row():
            m_masked = gr.Textbox(label=static(TEXT["masked"]), interactive=False)
            m_unmasked = gr.Textbox(label=static(TEXT["unmasked"]), interactive=False)
        export_button(m_plot, "mask-plot")
        with api_accordion():
            m_json = gr.JSON(label=static(TEXT["mask_json"]), open=False)
        m_run = m_go.click(run_mask, [m_steps, m_seed], [m_plot, m_words, m_masked, m_unmasked, m_json],
                           api_name="mask_experiment", **cpu)
        m_stop.click(stop_mask, m_json, [m_json, m_words], cancels=[m_run], api_visibility="private")
    with gr.Tab(static(TEXT["scale_tab"]), elem_id="experiments-scale"):
        gr.Markdown(static(TEXT["scale_intro"]))
        s_steps, s_seed, s_go, s_stop = _controls("scale", ex.MAX_STEPS["scale"], ex.ScaleParams.steps)
        s_plot = view(None, elem_id="scale-plot")
        s_words = gr.Markdown(elem_id="scale-words")
        export_button(s_plot, "scale-plot")
        with api_accordion():
            s_json = gr.JSON(label=static(TEXT["scale_json"]), open=False)
        s_run = s_go.click(run_scale, [s_steps, s_seed], [s_plot, s_words, s_json], api_name="scale_experiment", **cpu)
        s_stop.click(stop_scale, s_json, [s_json, s_words], cancels=[s_run], api_visibility="private")
    lab_open.takes(ctx, "experiments_tab", {m_steps: _of("mask", "steps"), m_seed: _of("mask", "run_seed"),
                                            s_steps: _of("scale", "steps"), s_seed: _of("scale", "run_seed")})
    ctx.warm.append(warm)  # last: the longest, in a worker process
