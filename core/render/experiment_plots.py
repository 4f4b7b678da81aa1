"""Figures for the two experiments (Figure + Agg, never pyplot): redrawn as the curves grow."""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..lab.experiments import MaskRun, ScaleRun

COLORS = {"masked": "#1f77b4", "unmasked": "#d62728", "scaled": "#1f77b4", "unscaled": "#d62728"}


def mask_figure(run: MaskRun) -> Figure:
    """Training loss of both models per step, and the honest loss (prefix only) where it was measured."""
    fig = Figure(figsize=(7.5, 3.6), dpi=80)
    FigureCanvasAgg(fig)  # Agg, explicitly: no pyplot, no GUI backend
    ax = fig.add_subplot()
    ax.plot(run.steps, run.masked, color=COLORS["masked"], lw=1, label="with mask: training loss")
    ax.plot(run.steps, run.unmasked, color=COLORS["unmasked"], lw=1, label="no mask: training loss (peeks)")
    ax.plot(run.eval_steps, run.masked_honest, "o--", color=COLORS["masked"], ms=4, label="with mask: honest loss")
    ax.plot(run.eval_steps, run.unmasked_honest, "o--", color=COLORS["unmasked"], ms=4, label="no mask: honest loss")
    ax.set_xlim(0, max(run.params.steps - 1, 1))
    top = max([*run.masked, *run.unmasked, *run.masked_honest, *run.unmasked_honest], default=7.0)
    ax.set_ylim(0, top * 1.3)  # headroom for the legend
    ax.set_xlabel("training step")
    ax.set_ylabel("loss (bits per word)")
    ax.set_title("Honest loss: each position predicted from its prefix alone", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", ncol=2)
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.14, top=0.9)
    return fig


def scale_figure(run: ScaleRun) -> Figure:
    """Max softmax weight, entropy, gradient at the softmax input and loss, scaled against unscaled."""
    fig = Figure(figsize=(8.5, 5.2), dpi=80)
    FigureCanvasAgg(fig)
    axes = fig.subplots(2, 2, sharex=True)
    panels = (
        (axes[0, 0], run.max_weight, "mean max attention weight", (0, 1.02)),
        (axes[0, 1], run.entropy, "mean attention entropy (nats)", None),
        (axes[1, 0], run.grad_norm, "|dLoss/d softmax input|", None),
        (axes[1, 1], run.loss, "training loss (bits per word)", None),
    )
    for ax, series, title, ylim in panels:
        for name in ("scaled", "unscaled"):
            label = "scores / sqrt(d)" if name == "scaled" else "raw scores (no scaling)"
            ax.plot(run.steps, series[name], color=COLORS[name], lw=1.2, label=label)
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
        ax.set_xlim(0, max(run.params.steps - 1, 1))
        if ylim:
            ax.set_ylim(*ylim)
    axes[0, 1].axhline(run.uniform_entropy, color="grey", ls=":", lw=1, label="uniform over visible tokens")
    axes[1, 0].set_yscale("log")
    axes[0, 1].legend(fontsize=7, loc="upper right")
    for ax in axes[1]:
        ax.set_xlabel("training step")
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.1, top=0.94, hspace=0.3, wspace=0.25)
    return fig
