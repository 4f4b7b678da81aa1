"""Charts of the Causality and Masking tabs: which output rows an edit moves, and why scores are divided by √d."""

from __future__ import annotations

from collections.abc import Sequence

from ..lab.masking import SqrtD
from . import charts
from .charts import axis, panel, series

CAUSALITY = {
    "title": "Token {position} → '{replacement}', {where}",
    "with_mask": "with the causal mask",
    "without_mask": "WITHOUT the causal mask",
    "x": "output row (token)",
    "y": "max |output change|",
    "name": "max |change|",
    "edited": "the edited position",
    "other": "every other row",
}
SQRT_D = {
    "max_weight": "Largest weight in a row (1 = one-hot)",
    "max_weight_y": "mean max weight",
    "entropy": "Entropy of a row (uniform = {uniform:.2f} nats)",
    "entropy_y": "mean entropy (nats)",
    "x": "head dimension d (log scale)",
    "unscaled": "unscaled: q·k",
    "scaled": "scaled: q·k / √d",
    "uniform": "uniform row",
}


def causality_bars(values: Sequence[float], tokens: Sequence[str], position: int, replacement: str,
                   causal: bool) -> dict:
    """One bar per output row; the edited position in the second colour."""
    where = CAUSALITY["with_mask"] if causal else CAUSALITY["without_mask"]
    title = CAUSALITY["title"].format(position=position, replacement=charts.short(replacement), where=where)
    names = [f"{i} {charts.short(t, 12)}" for i, t in enumerate(tokens)]
    legend = [{"text": CAUSALITY["edited"], "color": 1}, {"text": CAUSALITY["other"], "color": 0}]
    return charts.bars(names, values, position, title, CAUSALITY["x"], CAUSALITY["y"], CAUSALITY["name"], legend)


def sqrt_d_chart(exp: SqrtD) -> dict:
    """Sharpness of a softmax row against head dimension, with and without dividing by √d."""
    panels = []
    for key, table in (("max_weight", exp.max_weight), ("entropy", exp.entropy)):
        lines = [series(SQRT_D[name], exp.dims, table[name], c, markers=True)
                 for name, c in (("unscaled", 1), ("scaled", 0))]
        hlines = [{"y": exp.uniform_entropy, "name": SQRT_D["uniform"]}] if key == "entropy" else []
        title = SQRT_D[key].format(uniform=exp.uniform_entropy)
        y = axis(SQRT_D[key + "_y"], min=0, max=1.02) if key == "max_weight" else axis(SQRT_D[key + "_y"], min=0)
        panels.append(panel(title, axis(SQRT_D["x"], log=2, ticks=list(exp.dims)), y, lines, hlines))
    legend = charts.legend_of(panels[0]["series"]) + [{"text": SQRT_D["uniform"], "swatch": "#555555", "dash": True, "line": True}]
    return charts.chart(panels, legend=legend, columns=2, height=400)


MODEL = {
    "parts": "Where the parameters are: {preset} with {variant}",
    "parts_x": "part of the model",
    "parts_y": "parameters (millions)",
    "parts_name": "parameters",
    "cache": "KV cache at full context (T = {T}, fp16, one sequence)",
    "cache_x": "attention",
    "cache_y": "MiB",
    "cache_name": "KV cache",
    "reference": "multi-head (reference)",
    "this": "{variant}",
}
PARTS = ("embeddings", "attention", "mlp", "norms")


def model_parts(payload: dict, context_length: int) -> dict:
    """The Model tab: parameters by part (attention marked), and the KV cache against plain multi-head."""
    ref = payload["reference_multi_head"]
    parts = {"title": MODEL["parts"].format(preset=payload["preset"], variant=payload["variant"]), "type": "bars",
             "x": {"label": MODEL["parts_x"], "categories": list(PARTS)}, "y": {"label": MODEL["parts_y"], "min": 0},
             "series": [series(MODEL["parts_name"], range(len(PARTS)), [payload[p] / 1e6 for p in PARTS])],
             "highlight": PARTS.index("attention")}
    mib = [ref["kv_bytes_per_token"] * ref["kv_tokens_at_context"] / 2**20,
           payload["kv_bytes_per_token"] * payload["kv_tokens_at_context"] / 2**20]
    cache = {"title": MODEL["cache"].format(T=context_length), "type": "bars",
             "x": {"label": MODEL["cache_x"], "categories": [MODEL["reference"], MODEL["this"].format(variant=payload["variant"])]},
             "y": {"label": MODEL["cache_y"], "min": 0}, "series": [series(MODEL["cache_name"], range(2), mib)],
             "highlight": 1}
    return charts.chart([parts, cache], columns=2, hover=charts.BAR_HOVER, digits=2, height=380)
