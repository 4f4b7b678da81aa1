"""What a lesson step hands the lab ("Open in the lab"): beyond the Attention tab's inputs, each view's own settings,
so the tab it continues in opens on exactly what the step showed (its stage, edit, card, mistake, run, model...).

Every value is the one the step's view was computed with (core.serve.lessons), resolved as the view resolves it:
a default the view replaces (the interventions' sentence, the training run's settings, the real model) is handed
over as the value it drew, never as the key's default.
"""

from __future__ import annotations

from typing import Any

from ..lab.lesson_keys import DEFAULTS
from ..lab.pronoun import CHAPTER_SENTENCE
from .lesson_views import COST_PANEL, SHAPE, cost_paths

OWN = {  # a view -> the state keys its lab tab has controls for (the Attention tab's inputs are always handed over)
    "stage": ("head", "stage"), "causality": ("position", "replacement"), "dependency": ("position", "replacement"),
    "transfer": ("mistake",), "failure": ("card",), "interventions": ("mode", "panel"),
    "sqrt-d": ("panel",), "cost": ("panel", "paths"), "trained": ("layer", "head"), "dropout": ("dropout",),
}


def handed(view: str, st: dict[str, Any]) -> dict[str, Any]:
    """The step's own settings its lab tab takes, as the step's view used them (keys a step left unset: the view's
    defaults)."""
    own = {k: st.get(k, DEFAULTS.get(k)) for k in OWN.get(view, ()) if k in st or k in DEFAULTS}
    if view == "interventions":  # (the view reads the trained model's sentence when the step names none)
        own["sentence"] = st["sentence"] if st["sentence"] != DEFAULTS["sentence"] else CHAPTER_SENTENCE
    if view == "transfer":  # (the step's copy: the Weight transfer tab's first shape)
        own.update(zip(("d_in", "d_out"), SHAPE, strict=True))
    if view == "cost":  # (the saved benchmark's lines the step drew, and its panel: memory unless it names one)
        from ..bench.cost import load_saved

        own.update(paths=cost_paths(load_saved() or {}), panel=st.get("panel", COST_PANEL))
    if view == "training":
        own.update(_training(st))
    if view in ("real-chapter", "sink"):
        own.update(_real(view, st))
    return {"view": view, **own}


def _training(st: dict[str, Any]) -> dict[str, Any]:
    """The class's run the step reads (core.serve.lesson_training): its experiment, steps and seed, and the panel."""
    from .lesson_training import PARAMS

    kind = st.get("experiment", DEFAULTS["experiment"])
    return {"experiment": kind, "steps": PARAMS[kind].steps, "run_seed": PARAMS[kind].seed, "panel": st.get("panel", 0)}


def _real(view: str, st: dict[str, Any]) -> dict[str, Any]:
    """The model and sentence a real-model step ran (core.serve.real_lessons); none when it had no model to run."""
    from . import real_lessons, real_models

    own = st["sentence"] if st["sentence"] != DEFAULTS["sentence"] else None
    if view == "real-chapter":
        name = real_models.chinese_model()
        return {} if name is None else {"model": name, "sentence": own or real_lessons.CHAPTER}
    name = real_lessons.sink_model(st.get("model"))
    return {"model": name, "sentence": own or real_lessons.SINK.get(name, real_lessons.SINK[""])}
