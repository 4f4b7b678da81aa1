"""Charts of the Causality and Masking tabs: which output rows an edit moves, and why scores are divided by √d."""

from __future__ import annotations

from collections.abc import Sequence

from ..i18n import mark, t
from ..lab.masking import SqrtD
from ..lab.model_stats import PART_WORDS
from . import charts
from .charts import axis, panel, series
from .matrix import words

CAUSALITY = {
    "title": mark("Token {position} → '{replacement}', {where}"),
    "with_mask": mark("with the causal mask"),
    "without_mask": mark("WITHOUT the causal mask"),
    "x": mark("output row (token)"),
    "y": mark("max |output change|"),
    "name": mark("max |change|"),
    "edited": mark("the edited position"),
    "other": mark("every other row"),
}
SQRT_D = {
    "max_weight": mark("Largest weight in a row (1 = one-hot)"),
    "max_weight_y": mark("mean max weight"),
    "entropy": mark("Entropy of a row (uniform = {uniform} nats)"),
    "entropy_y": mark("mean entropy (nats)"),
    "x": mark("head dimension d (log scale)"),
    "unscaled": mark("unscaled: q·k"),
    "scaled": mark("scaled: q·k / √d"),
    "uniform": mark("uniform row"),
    "spread": mark("Spread of the scores: standard deviation"),
    "spread_y": mark("std of the scores"),
    "spread_unscaled": mark("unscaled: std of q·k"),
    "spread_scaled": mark("scaled: std of q·k / √d"),
    "root": mark("√d"),
}
SPREAD = 2  # the panel of the scores' spread (a lesson's sqrt-d step draws it beside the panel it names)


def causality_bars(values: Sequence[float], tokens: Sequence[str], position: int, replacement: str,
                   causal: bool) -> dict:
    """One bar per output row; the edited position in the second colour."""
    said = words(CAUSALITY)
    where = said["with_mask"] if causal else said["without_mask"]
    title = t(CAUSALITY["title"], position=position, replacement=charts.short(replacement), where=where)
    names = [f"{i} {charts.short(token, 12)}" for i, token in enumerate(tokens)]
    legend = [{"text": said["edited"], "color": 1}, {"text": said["other"], "color": 0}]
    return charts.bars(names, values, position, title, said["x"], said["y"], said["name"], legend)


def sqrt_d_chart(exp: SqrtD) -> dict:
    """Sharpness of a softmax row against head dimension, with and without dividing by √d."""
    panels, said = [], words(SQRT_D)
    for key, table in (("max_weight", exp.max_weight), ("entropy", exp.entropy)):
        lines = [series(said[name], exp.dims, table[name], c, markers=True)
                 for name, c in (("unscaled", 1), ("scaled", 0))]
        hlines = [{"y": exp.uniform_entropy, "name": said["uniform"]}] if key == "entropy" else []
        title = t(SQRT_D[key], uniform=format(exp.uniform_entropy, ".2f"))
        y = axis(said[key + "_y"], min=0, max=1.02) if key == "max_weight" else axis(said[key + "_y"], min=0)
        panels.append(panel(title, axis(said["x"], log=2, ticks=list(exp.dims)), y, lines, hlines))
    spread = [series(said["spread_" + name], exp.dims, exp.score_std[name], c, markers=True)  # the real q·k's std
              for name, c in (("unscaled", 1), ("scaled", 0))]
    spread.append(series(said["root"], exp.dims, [d ** 0.5 for d in exp.dims], 2, dash=True))  # what theory says
    panels.append(panel(said["spread"], axis(said["x"], log=2, ticks=list(exp.dims)), axis(said["spread_y"], min=0),
                        spread))
    legend = charts.legend_of([*panels[0]["series"], spread[-1]]) + [
        {"text": said["uniform"], "swatch": "#555555", "dash": True, "line": True}]
    return charts.chart(panels, legend=legend, columns=3, height=400)


MODEL = {
    "parts": mark("Where the parameters are: {preset} with {variant}"),
    "parts_x": mark("part of the model"),
    "parts_y": mark("parameters (millions)"),
    "parts_name": mark("parameters"),
    "cache": mark("KV cache at full context (T = {T}, fp16, one sequence)"),
    "cache_x": mark("attention"),
    "cache_y": "MiB",  # a unit
    "cache_name": mark("KV cache"),
    "reference": mark("multi-head (reference)"),
}
PARTS = ("embeddings", "attention", "mlp", "norms")  # core.lab.model_stats.PARTS: the API's names


def model_parts(payload: dict, context_length: int) -> dict:
    """The Model tab: parameters by part (attention marked), and the KV cache against plain multi-head."""
    ref, said = payload["reference_multi_head"], words(MODEL)
    parts = {"title": t(MODEL["parts"], preset=payload["preset"], variant=payload["variant"]), "type": "bars",
             "x": {"label": said["parts_x"], "categories": [t(PART_WORDS[p]) for p in PARTS]},
             "y": {"label": said["parts_y"], "min": 0},
             "series": [series(said["parts_name"], range(len(PARTS)), [payload[p] / 1e6 for p in PARTS])],
             "highlight": PARTS.index("attention")}
    mib = [ref["kv_bytes_per_token"] * ref["kv_tokens_at_context"] / 2**20,
           payload["kv_bytes_per_token"] * payload["kv_tokens_at_context"] / 2**20]
    cache = {"title": t(MODEL["cache"], T=context_length), "type": "bars",
             "x": {"label": said["cache_x"], "categories": [said["reference"], payload["variant"]]},
             "y": {"label": said["cache_y"], "min": 0}, "series": [series(said["cache_name"], range(2), mib)],
             "highlight": 1}
    return charts.chart([parts, cache], columns=2, hover=charts.BAR_HOVER, digits=2, height=380)
