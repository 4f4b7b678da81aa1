"""What each tab displays for one request, rendered once and kept in a bounded LRU cache.

Drawing is the slow part of a request (matplotlib text and PNG encoding), so the cache holds the
finished PNG data URLs, not just the tensors: a class clicking the same example gets them back at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..config import whole_in
from ..lab.causality import replacement_word
from ..lab.masking import sqrt_d_experiment, three_ways
from ..lab.session import (
    TRACE_MAX_TOKENS,
    Lab,
    Request,
    make_request,
    nonfinite_weights,
    row_check,
    seed_value,
    sentence_text,
    switch,
    weights_payload,
)
from ..lab.text import text_field
from ..render import heatmap, plots
from .plugins import probe

VIEW_CACHE = 256


@dataclass(frozen=True)
class AttentionView:
    """The Attention tab: one heatmap per head, the mask, the row check, notes, and the API JSON."""

    heatmaps: str  # PNG data URL
    mask: str  # PNG data URL
    check: str
    note: str
    payload: dict[str, Any]


@lru_cache(maxsize=VIEW_CACHE)
def attention_view(lab: Lab, req: Request) -> AttentionView:
    """Run the request and draw it; cached on (lab, request)."""
    run = lab.run(req)
    variant = lab.registry.get(req.variant)
    H = run.weights.shape[0]
    notes = [run.tokens.note]
    if not variant.uses_heads and req.n_heads != 1:
        notes.append(f"{variant.title} has one head as wide as d_model; n_heads is not used.")
    weights = run.weights.numpy()  # (H, T, T)
    if bad := nonfinite_weights(run):
        notes.append(f"plugin {variant.plugin!r} returned {bad} attention weights that are NaN or infinite: "
                     "they are drawn as 0 and written as \"NaN\" in the JSON.")
        weights = np.nan_to_num(weights, nan=0.0, posinf=0.0, neginf=0.0)
    heatmaps = heatmap.heatmap_grid(list(weights), run.tokens.tokens, _head_titles(H))
    mask = heatmap.mask_image(run.allowed.numpy())
    return AttentionView(heatmaps, mask, row_check(run).line, " ".join(n for n in notes if n), weights_payload(run))


def warm_frames(lengths: range = range(6, 15), heads: tuple[int, ...] = (1, 2, 4)) -> int:
    """Draw the heatmap frames the Attention tab's common sentences need (6-14 tokens; 1, 2 or 4 heads;
    the two narrowest label margins) and their causal masks: ~0.1 s each, so a class's first clicks
    do not each wait for one. Returns how many were drawn."""
    n = 0
    for T in lengths:
        heatmap.mask_image(np.tril(np.ones((T, T), dtype=bool)))
        for h in heads:
            rows, cols = heatmap.grid(h, 4)
            for margin in (heatmap.MIN_MARGIN, heatmap.MIN_MARGIN + heatmap.MARGIN_STEP):
                heatmap.frame_for(heatmap.Layout(T, tuple(_head_titles(h)), rows, cols, margin))
                n += 1
    return n


def _head_titles(n: int) -> list[str]:
    return [f"head {h}" for h in range(n)]


def attention(lab: Lab, sentence, variant="multi-head", causal=True, scaled=True, n_heads=2, d_model=16, seed=0,
              options="{}") -> AttentionView:
    """Raw UI/API values -> the (cached) view; ConfigError for anything a person got wrong."""
    return attention_view(lab, make_request(sentence, variant, causal, scaled, n_heads, d_model, seed, options))


@dataclass(frozen=True)
class CausalityView:
    """The Causality tab: bars of max |change| per row, the dependency heatmap, a summary, the API JSON."""

    bars: str
    dependency: str
    summary: str
    payload: dict[str, Any]


@lru_cache(maxsize=VIEW_CACHE)
def _causality_view(lab: Lab, sentence: str, position: int, replacement: str, causal: bool, variant: str,
                    seed: int) -> CausalityView:
    res = probe(lab, sentence, position, replacement, causal, variant, seed)
    where = "with the causal mask" if res.causal else "WITHOUT the causal mask"
    diffs = np.nan_to_num(np.asarray(res.row_max_abs_diff, dtype=float), nan=0.0, posinf=0.0).tolist()
    bars = plots.bars(diffs, res.tokens, res.position,
                      f"token {res.position} → {plots.tick_label(res.replacement)}, {where}", "max |output change|")
    dep = heatmap.heatmap_grid([np.nan_to_num(res.dependency.numpy(), nan=0.0, posinf=0.0)], res.tokens, [f"|d out_i / d x_j|, {where}"],
                             vmin=0.0, vmax=None, cmap="magma", xlabel="input token j", ylabel="output row i")
    return CausalityView(bars, dep, res.summary, res.payload())


def causality(lab: Lab, sentence, position, replacement, causal=True, variant="multi-head", seed=0) -> CausalityView:
    """Raw UI/API values -> the (cached) view: each checked (the sentence cut to its cap) before it keys the cache."""
    return _causality_view(lab, sentence_text(sentence), whole_in("position", position, 0, TRACE_MAX_TOKENS - 1),
                           replacement_word(replacement), switch("causal", causal), text_field("variant", variant),
                           seed_value(seed))


@dataclass(frozen=True)
class MaskingView:
    """The Masking tab: the three ways side by side, the sqrt(d) plot, and what they show."""

    three: str
    three_summary: str
    sqrt_d: str
    sqrt_d_summary: str


@lru_cache(maxsize=VIEW_CACHE)
def _masking_view(lab: Lab, req: Request) -> MaskingView:
    run = lab.run(req)
    ways = three_ways(run.trace.scaled[0, 0])  # head 0's scaled scores (T, T)
    three = heatmap.heatmap_grid(
        [ways.neg_inf.numpy(), ways.renormalised.numpy(), ways.zero_fill.numpy()], run.tokens.tokens,
        ["1. -inf, then softmax", "2. softmax, zero future, renormalise", "3. WRONG: fill 0, then softmax"],
        max_cols=3,
    )
    exp = sqrt_d_experiment()
    series = {f"{m} {s}": vals for m, table in (("max weight", exp.max_weight), ("entropy", exp.entropy))
              for s, vals in table.items()}
    sqrt_d = plots.lines(exp.dims, series, [
        ("largest weight in a row (1 = one-hot)", "mean max weight", ["max weight unscaled", "max weight scaled"]),
        (f"entropy of a row (uniform = {exp.uniform_entropy:.2f} nats)", "mean entropy (nats)",
         ["entropy unscaled", "entropy scaled"]),
    ], "head dimension d")
    i = exp.dims.index(512) if 512 in exp.dims else -1
    summary = (
        f"q·k of two random d-dimensional vectors has standard deviation √d: at d = {exp.dims[i]} the unscaled "
        f"scores spread {exp.score_std['unscaled'][i]:.1f} and the softmax puts {exp.max_weight['unscaled'][i]:.2f} "
        f"on one key on average (nearly one-hot, tiny gradients); divided by √d they spread "
        f"{exp.score_std['scaled'][i]:.2f} and the largest weight stays {exp.max_weight['scaled'][i]:.2f}."
    )
    return MaskingView(three, ways.summary, sqrt_d, summary)


def masking(lab: Lab, sentence, seed=0) -> MaskingView:
    """The three masking ways on head 0 of the sentence (multi-head, unmasked scores), and the sqrt(d) plot."""
    return _masking_view(lab, make_request(sentence, "multi-head", True, True, 2, 16, seed, "{}"))
