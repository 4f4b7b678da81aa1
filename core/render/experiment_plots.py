"""The two experiments' curves as charts the browser draws (core.render.charts), redrawn as they grow."""

from __future__ import annotations

from ..lab.experiments import MaskRun, ScaleRun
from . import charts
from .charts import axis, panel, series

MASK = {
    "title": "Honest loss: each position predicted from its prefix alone",
    "x": "training step",
    "y": "loss (bits per word)",
    "masked": "with mask: training loss",
    "unmasked": "no mask: training loss (peeks)",
    "masked_honest": "with mask: honest loss",
    "unmasked_honest": "no mask: honest loss",
}
SCALE = {
    "x": "training step",
    "max_weight": "Largest weight in a row",
    "max_weight_y": "mean max weight (1 = one-hot)",
    "entropy": "Entropy of a row",
    "entropy_y": "mean entropy (nats)",
    "grad_norm": "Gradient reaching the softmax input",
    "grad_norm_y": "|dLoss / d softmax input| (log)",
    "loss": "Training loss",
    "loss_y": "loss (bits per word)",
    "scaled": "scores / √d",
    "unscaled": "raw scores (no scaling)",
    "uniform": "uniform over the visible tokens",
}
COLOR = {"masked": 0, "unmasked": 1, "scaled": 0, "unscaled": 1}


def mask_chart(run: MaskRun) -> dict:
    """Training loss of both models per step, and the honest loss (prefix only) where it was measured."""
    last = max(run.params.steps - 1, 1)
    lines = [
        series(MASK["masked"], run.steps, run.masked, COLOR["masked"]),
        series(MASK["unmasked"], run.steps, run.unmasked, COLOR["unmasked"]),
        series(MASK["masked_honest"], run.eval_steps, run.masked_honest, COLOR["masked"], dash=True, markers=True),
        series(MASK["unmasked_honest"], run.eval_steps, run.unmasked_honest, COLOR["unmasked"], dash=True,
               markers=True),
    ]
    p = panel(MASK["title"], axis(MASK["x"], min=0, max=last), axis(MASK["y"], min=0), lines)
    return charts.chart([p], legend=charts.legend_of(lines))


def scale_chart(run: ScaleRun) -> dict:
    """Max softmax weight, entropy, gradient at the softmax input and loss, scaled against unscaled."""
    last = max(run.params.steps - 1, 1)
    panels = []
    for key, y in (("max_weight", axis(SCALE["max_weight_y"], min=0, max=1.02)),
                   ("entropy", axis(SCALE["entropy_y"], min=0)),
                   ("grad_norm", axis(SCALE["grad_norm_y"], log=10)), ("loss", axis(SCALE["loss_y"], min=0))):
        values = getattr(run, key)
        lines = [series(SCALE[name], run.steps, values[name], COLOR[name]) for name in ("scaled", "unscaled")]
        hlines = [{"y": run.uniform_entropy, "name": SCALE["uniform"]}] if key == "entropy" else []
        panels.append(panel(SCALE[key], axis(SCALE["x"], min=0, max=last), y, lines, hlines))
    legend = charts.legend_of(panels[0]["series"]) + [{"text": SCALE["uniform"], "swatch": "#555555", "dash": True, "line": True}]
    return charts.chart(panels, legend=legend, columns=2, height=380)
