"""What each tab displays for one request, built once and kept in a bounded LRU cache.

A view is numbers and labels for the browser to draw (core.render.matrix, core.render.charts): the
server never draws a picture on a click. The cache holds the finished dicts, so a class clicking the
same example gets them back at once; every view is also remembered for its PNG export (core.serve.exports).
A view's words are in the request's language (core.i18n.current()), which is part of every cache key.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any

import numpy as np

from ..i18n import current, lookup, mark, t
from ..lab import steps
from ..lab.causality import replacement_word
from ..lab.lesson_keys import DROPOUT as DROPOUT_RATES
from ..lab.masking import sqrt_d_experiment, three_ways
from ..lab.page_softmax import page_softmax
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
from ..lab.text import sentences, text_field, tokenize
from ..mistakes import whole, whole_in
from ..render import lab_charts, matrix, tab_matrices
from . import slots
from .exports import remember
from .plugins import probe

VIEW_CACHE = 256
NOTES = {
    "no_heads": mark("{title} has one head as wide as d_model; n_heads is not used."),
    "nonfinite": mark("plugin '{plugin}' returned {bad} attention weights that are NaN or infinite: they are drawn as "
                      "0 and written as \"NaN\" in the JSON."),
}


def served(view):
    """A view on its way to a page: each of its drawings is remembered for a PNG export."""
    for f in fields(view):
        value = getattr(view, f.name)
        if isinstance(value, dict) and "kind" in value:
            remember(value)
    return view


@dataclass(frozen=True)
class AttentionView:
    """The Attention tab: the heatmaps (and head view), the mask, the row check, notes, and the API JSON."""

    heatmaps: dict[str, Any]  # core.render.matrix data
    mask: dict[str, Any]
    check: str
    note: str
    payload: dict[str, Any]


@lru_cache(maxsize=VIEW_CACHE)
def attention_view(lab: Lab, req: Request, language: str) -> AttentionView:
    """Run the request and lay out its numbers for the page, its words in `language` (core.i18n.current(): part
    of the key); cached on (lab, request, language), computed in a CPU slot."""
    with slots.CPU:
        return _attention_view(lab, req)


def _attention_view(lab: Lab, req: Request) -> AttentionView:
    run = lab.run(req)
    variant = lab.registry.get(req.variant)
    notes = [run.tokens.note]
    if not variant.uses_heads and req.n_heads != 1:
        notes.append(t(NOTES["no_heads"], title=lookup(variant.title)))
    weights = run.weights.numpy()  # (H, T, T)
    if bad := nonfinite_weights(run):
        notes.append(t(NOTES["nonfinite"], plugin=variant.plugin, bad=bad))
        weights = np.nan_to_num(weights, nan=0.0, posinf=0.0, neginf=0.0)
    tr = run.trace
    note = sentences(*notes)
    scaled = np.nan_to_num(tr.scaled[0].numpy(), nan=0.0, posinf=0.0, neginf=-np.inf)  # (H, [M,] T, T); -inf = blocked
    maps = {name: np.nan_to_num(m[0].numpy()) for name, m in tr.maps.items()}  # (H, T, T) each: a variant's maps
    normalised = getattr(variant, "normalised", True)
    page = None  # the raw scores for the page's own softmax, when the variant is exactly that (both masks)
    if normalised and not maps and not bad:  # (the flipped run only once this one is the page's softmax)
        page = page_softmax(run, lambda: lab.run(replace(req, causal=not req.causal)))
    heat = matrix.attention(run.tokens.tokens, weights, tr.mask[0].numpy(), scaled, n_kv_heads=tr.k.shape[1],
                            normalised=normalised, note=note, maps=maps, page=page, causal=req.causal,
                            is_scaled=run.config.scaled, check=row_check(run).line)
    heat["toggles"] = matrix.setting(req.causal, req.scaled)  # what it was asked for (the page's DRAWN_JS reads it)
    return AttentionView(heat, mask_view(run.allowed.numpy().tobytes(), len(run.tokens), current()),
                         heat["labels"]["check_text"], note, weights_payload(run))


@lru_cache(maxsize=VIEW_CACHE)
def mask_view(packed: bytes, T: int, language: str) -> dict[str, Any]:
    """The mask pattern depends on the length and the variant, never on the sentence's words: cached across
    sentences (per language: its labels are words)."""
    return matrix.mask(np.frombuffer(packed, dtype=bool).reshape(T, T))


def attention(lab: Lab, sentence, variant="multi-head", causal=True, scaled=True, n_heads=2, d_model=16, seed=0,
              options="{}") -> AttentionView:
    """Raw UI/API values -> the (cached) view; ConfigError for anything a person got wrong."""
    req = make_request(sentence, variant, causal, scaled, n_heads, d_model, seed, options)
    return served(attention_view(lab, req, current()))


@dataclass(frozen=True)
class StepView:
    """The Step-through tab for one head: the head shown, the heads there are, sharing/band, and each stage."""

    head: int
    last_head: int
    sharing: str
    stages: list[tuple[str, dict[str, Any]]]  # (formula as Markdown with LaTeX, matrix data) per stage
    run: Any  # the Run, for the trace download
    note: str = ""  # how the sentence was read (segmented automatically, cut), "" when there is nothing to say


@lru_cache(maxsize=VIEW_CACHE)
def _step_view(lab: Lab, req: Request, head: int, language: str) -> StepView:
    with slots.CPU:  # the page's events skip the queue: the semaphore bounds their CPU (cached views take none)
        return _step_stages(lab, req, head)


def _step_stages(lab: Lab, req: Request, head: int) -> StepView:
    run = lab.run(req)  # (one run per view: the views are the one cache)
    h = steps.pick_head(run, head)
    shown = []
    for stage in steps.stages(run, h, variant=lab.registry.get(req.variant)):
        shown.append((steps.formula_markdown(stage, run.config.scaled), tab_matrices.stage(stage, run.tokens.tokens)))
    return StepView(h, steps.last_head(run), steps.sharing(run), shown, run, run.tokens.note)


def padded(stages: list, n: int) -> list:
    """Exactly n (formula, data) pairs for n stage slots: cut, or filled with empty ones."""
    return [*stages[:n], *[("", None)] * (n - len(stages[:n]))]


def step(lab: Lab, sentence, variant, causal, scaled, n_heads, d_model, seed, options, head) -> StepView:
    """Raw UI values -> every stage of one head (cached)."""
    req = make_request(sentence, variant, causal, scaled, n_heads, d_model, seed, options)
    view = _step_view(lab, req, min(whole("head", head), req.n_heads), current())  # (held to the heads it has there)
    for _, data in view.stages:
        remember(data)
    return view


@dataclass(frozen=True)
class CausalityView:
    """The Causality tab: bars of max |change| per row, the dependency map, a summary, the API JSON."""

    bars: dict[str, Any]
    dependency: dict[str, Any]
    summary: str
    payload: dict[str, Any]


@lru_cache(maxsize=VIEW_CACHE)
def _causality_view(lab: Lab, sentence: str, position: int, replacement: str, causal: bool, variant: str,
                    seed: int, language: str) -> CausalityView:
    with slots.CPU:  # the page's events skip the queue: the semaphore bounds their CPU (cached views take none)
        return _causality(lab, sentence, position, replacement, causal, variant, seed)


def _causality(lab: Lab, sentence: str, position: int, replacement: str, causal: bool, variant: str,
               seed: int) -> CausalityView:
    res = probe(lab, sentence, position, replacement, causal, variant, seed)
    diffs = np.nan_to_num(np.asarray(res.row_max_abs_diff, dtype=float), nan=0.0, posinf=0.0).tolist()
    bars = lab_charts.causality_bars(diffs, res.tokens, res.position, res.replacement, res.causal)
    note = tokenize(sentence, TRACE_MAX_TOKENS).note  # the tokens the probe read, and how (segmented, cut)
    dep = tab_matrices.dependency(res.tokens, np.nan_to_num(res.dependency.numpy(), nan=0.0, posinf=0.0), res.causal,
                                  note=note)
    return CausalityView(bars, dep, res.summary, res.payload())


def causality(lab: Lab, sentence, position, replacement, causal=True, variant="multi-head", seed=0) -> CausalityView:
    """Raw UI/API values -> the (cached) view: each checked (the sentence cut to its cap) before it keys the cache."""
    return served(_causality_view(lab, sentence_text(sentence), whole_in("position", position, 0, TRACE_MAX_TOKENS - 1),
                                  replacement_word(replacement), switch("causal", causal), text_field("variant", variant),
                                  seed_value(seed), current()))


def last_position(sentence: Any) -> int:
    """The largest position the Causality tab's slider offers for this sentence: its last token (at least 1)."""
    if not isinstance(sentence, str):
        return 1  # a slider needs a range, whatever it was sent
    return max(len(tokenize(sentence, TRACE_MAX_TOKENS).tokens) - 1, 1)


def position_range(sentence: Any, position: Any) -> tuple[int, int]:
    """(last position, position held to it) for the Causality slider when the sentence changes."""
    last = last_position(sentence)
    try:
        return last, min(max(int(position), 0), last)
    except (TypeError, ValueError):
        return last, 0


@dataclass(frozen=True)
class MaskingView:
    """The Masking tab: the three ways side by side, the sqrt(d) curves, and what they show."""

    three: dict[str, Any]
    three_summary: str
    sqrt_d: dict[str, Any]
    sqrt_d_summary: str


SQRT_D_SUMMARY = mark(
    "q·k of two random d-dimensional vectors has standard deviation √d: at d = {d} the unscaled scores spread "
    "{unscaled_std} and the softmax puts {unscaled_max} on one key on average (nearly one-hot, tiny gradients); "
    "divided by √d they spread {scaled_std} and the largest weight stays {scaled_max}."
)


@lru_cache(maxsize=VIEW_CACHE)
def _masking_view(lab: Lab, req: Request, language: str) -> MaskingView:
    with slots.CPU:  # the page's events skip the queue: the semaphore bounds their CPU (cached views take none)
        return _masking(lab, req)


def _masking(lab: Lab, req: Request) -> MaskingView:
    run = lab.run(req)
    ways = three_ways(run.trace.first_map("scaled")[0, 0])  # head 0's scaled scores (T, T), its first map
    three = tab_matrices.three_ways(run.tokens.tokens, ways.neg_inf.numpy(), ways.renormalised.numpy(),
                              ways.zero_fill.numpy())
    exp = sqrt_d_experiment()
    i = exp.dims.index(512) if 512 in exp.dims else -1
    summary = t(SQRT_D_SUMMARY, d=exp.dims[i], unscaled_std=format(exp.score_std["unscaled"][i], ".1f"),
                unscaled_max=format(exp.max_weight["unscaled"][i], ".2f"),
                scaled_std=format(exp.score_std["scaled"][i], ".2f"),
                scaled_max=format(exp.max_weight["scaled"][i], ".2f"))
    return MaskingView(three, ways.summary, lab_charts.sqrt_d_chart(exp), summary)


def masking(lab: Lab, sentence, seed=0) -> MaskingView:
    """The three masking ways on head 0 of the sentence (multi-head, unmasked scores), and the sqrt(d) plot."""
    return served(_masking_view(lab, make_request(sentence, "multi-head", True, True, 2, 16, seed, "{}"), current()))


def dropout(lab: Lab, sentence, p=0.5, seed=0) -> tuple[dict[str, Any], str]:
    """Head 0 of the Masking tab's layer (multi-head, d_model 16, 2 heads) beside the same weights after one training
    step's dropout at rate p, and its check line: the Masking tab's pair and a lesson's dropout step, one function."""
    from .lesson_views import dropout as beside

    rate = p if p in DROPOUT_RATES else DROPOUT_RATES[-1]  # (a rate no control offers: the classic 0.5)
    data, check = beside(attention(lab, sentence, "multi-head", True, True, 2, 16, seed, "{}"),
                         {"head": 0, "dropout": rate, "seed": whole("seed", seed)})
    return remember(data), check


def model_chart(payload: dict[str, Any]) -> dict[str, Any]:
    """The Model tab's chart from its /model_size numbers (parameters by part; the KV cache against multi-head)."""
    from ..model import PRESETS

    return remember(lab_charts.model_parts(payload, PRESETS[payload["preset"]].context_length))
