"""The two experiments' curves as charts the browser draws (core.render.charts), redrawn as they grow."""

from __future__ import annotations

from ..i18n import mark, t
from ..lab.experiments import MaskRun, ScaleRun
from . import charts
from .charts import axis, panel, series

MASK = {  # msgids (core.i18n): a chart is made in its reader's language
    "title": mark("Honest loss: each position predicted from its prefix alone"),
    "x": mark("training step"),
    "y": mark("loss (bits per word)"),
    "masked": mark("with mask: training loss"),
    "unmasked": mark("no mask: training loss (peeks)"),
    "masked_honest": mark("with mask: honest loss"),
    "unmasked_honest": mark("no mask: honest loss"),
}
SCALE = {
    "x": mark("training step"),
    "max_weight": mark("Largest weight in a row"),
    "max_weight_y": mark("mean max weight (1 = one-hot)"),
    "entropy": mark("Entropy of a row"),
    "entropy_y": mark("mean entropy (nats)"),
    "grad_norm": mark("Gradient reaching the softmax input"),
    "grad_norm_y": mark("|dLoss / d softmax input| (log)"),
    "loss": mark("Training loss"),
    "loss_y": mark("loss (bits per word)"),
    "scaled": mark("scores / √d"),
    "unscaled": mark("raw scores (no scaling)"),
    "uniform": mark("uniform over the visible tokens"),
}
COLOR = {"masked": 0, "unmasked": 1, "scaled": 0, "unscaled": 1}


def mask_chart(run: MaskRun) -> dict:
    """Training loss of both models per step, and the honest loss (prefix only) where it was measured."""
    last = max(run.params.steps - 1, 1)
    lines = [
        series(t(MASK["masked"]), run.steps, run.masked, COLOR["masked"]),
        series(t(MASK["unmasked"]), run.steps, run.unmasked, COLOR["unmasked"]),
        series(t(MASK["masked_honest"]), run.eval_steps, run.masked_honest, COLOR["masked"], dash=True, markers=True),
        series(t(MASK["unmasked_honest"]), run.eval_steps, run.unmasked_honest, COLOR["unmasked"], dash=True,
               markers=True),
    ]
    p = panel(t(MASK["title"]), axis(t(MASK["x"]), min=0, max=last), axis(t(MASK["y"]), min=0), lines)
    return charts.chart([p], legend=charts.legend_of(lines))


def scale_chart(run: ScaleRun) -> dict:
    """Max softmax weight, entropy, gradient at the softmax input and loss, scaled against unscaled."""
    last = max(run.params.steps - 1, 1)
    panels = []
    for key, y in (("max_weight", axis(t(SCALE["max_weight_y"]), min=0, max=1.02)),
                   ("entropy", axis(t(SCALE["entropy_y"]), min=0)),
                   ("grad_norm", axis(t(SCALE["grad_norm_y"]), log=10)), ("loss", axis(t(SCALE["loss_y"]), min=0))):
        values = getattr(run, key)
        lines = [series(t(SCALE[name]), run.steps, values[name], COLOR[name]) for name in ("scaled", "unscaled")]
        hlines = [{"y": run.uniform_entropy, "name": t(SCALE["uniform"])}] if key == "entropy" else []
        panels.append(panel(t(SCALE[key]), axis(t(SCALE["x"]), min=0, max=last), y, lines, hlines))
    legend = charts.legend_of(panels[0]["series"]) + [{"text": t(SCALE["uniform"]), "swatch": "#555555", "dash": True,
                                                        "line": True}]
    return charts.chart(panels, legend=legend, columns=2, height=380)
