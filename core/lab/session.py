"""One request of the Attention tab: sentence + settings -> tokens, a seeded module and its trace."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from ..attention import AttentionModule, AttentionTrace
from ..config import AttentionConfig, parse_options
from ..i18n import mark, t
from ..mistakes import ConfigError, named, whole_in
from ..registry import Registry
from ..seeding import SEED_MAX, seeded_init
from .text import KEPT_CHARS, Tokens, embed, text_field, tokenize

TRACE_MAX_TOKENS = 64  # the explicit path materialises (H, T, T): the app keeps T small
MAX_OPTIONS_CHARS = 1000  # an options object is a few names and numbers
MAX_NAME_CHARS = 100  # a variant's name


@dataclass(frozen=True)
class Request:
    """Everything that decides the result; frozen and hashable, so it keys the cache."""

    sentence: str
    variant: str = "multi-head"
    causal: bool = True
    scaled: bool = True
    n_heads: int = 2
    d_model: int = 16
    seed: int = 0
    options: tuple[tuple[str, Any], ...] = ()


def make_request(
    sentence: Any,
    variant: Any = "multi-head",
    causal: Any = True,
    scaled: Any = True,
    n_heads: Any = 2,
    d_model: Any = 16,
    seed: Any = 0,
    options: Any = "{}",
) -> Request:
    """Check and normalise raw UI/API values; ConfigError (one sentence) for anything a person got wrong.

    The sentence is cut to its character cap (one past it, so the note can still say it was cut) before
    it becomes part of a cache key: a pasted book costs the cache what a sentence does.
    """
    sentence = sentence_text(sentence)
    if not sentence.strip():
        raise ConfigError(t("The sentence is empty; type a few words."))
    variant = text_field("variant", variant)
    if len(variant) > MAX_NAME_CHARS:
        raise ConfigError(t("variant is longer than {n} characters; type a variant's name.", n=MAX_NAME_CHARS))
    if isinstance(options, str) and len(options) > MAX_OPTIONS_CHARS:
        raise ConfigError(t("options is longer than {n} characters; an options object names a few options, such as "
                            "{example}.", n=format(MAX_OPTIONS_CHARS, ","), example='{"window": 3}'))
    opts = parse_options(text_field("options", options) if isinstance(options, str) else options)
    try:
        opts_key = tuple(sorted(opts.items()))
        hash(opts_key)
    except TypeError:
        raise ConfigError(t("options values must be numbers, true/false or text")) from None
    return Request(sentence, variant, switch("causal", causal), switch("scaled", scaled),
                   whole_in("n_heads", n_heads, 1, 1024), whole_in("d_model", d_model, 1, 4096),
                   seed_value(seed), opts_key)


def sentence_text(sentence: Any, name: str = "sentence") -> str:
    """A sentence as the lab keys it: text, cut to KEPT_CHARS (one past what it reads: the note can say it was cut)."""
    return text_field(name, "" if sentence is None else sentence)[:KEPT_CHARS]


def switch(name: str, value: Any) -> bool:
    """A checkbox's value: true or false (1, "no" or a list are refused, not guessed)."""
    if not isinstance(value, bool):
        raise ConfigError(t("{field} must be true or false", field=named(name, value)))
    return value


def seed_value(seed: Any, name: str = "seed") -> int:
    """A seed a person typed, as a whole number from 0 to SEED_MAX."""
    return whole_in(name, seed, 0, SEED_MAX)


@dataclass(frozen=True)
class Run:
    """The result of one request: tokens, the resolved config, the module and every stage."""

    request: Request
    tokens: Tokens
    config: AttentionConfig
    module: AttentionModule | None  # None when it ran in a plugin's worker process (it stays there)
    x: Tensor  # (1, T, d_model) the embedded sentence
    trace: AttentionTrace

    @property
    def weights(self) -> Tensor:
        """Softmax weights of the one sentence.  (H, T, T)"""
        return self.trace.weights[0]

    @property
    def allowed(self) -> Tensor:
        """The mask as the module used it, True = may attend.  (T, T)"""
        return self.trace.mask[0, 0]


class Lab:
    """The numbers behind the Attention and Step tabs: each call runs the request (core.serve caches the views)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def run(self, req: Request) -> Run:
        """Tokens, the seeded module and its trace for one request (ConfigError for a sentence with no tokens)."""
        return self._run(req)

    def config_for(self, req: Request) -> AttentionConfig:
        """The variant's resolved config; single-head ignores n_heads (it has one head as wide as d_model)."""
        variant = self.registry.get(req.variant)
        n_heads = req.n_heads if variant.uses_heads else 1
        config = AttentionConfig(d_model=req.d_model, n_heads=n_heads, causal=req.causal, scaled=req.scaled,
                                 options=dict(req.options))
        return variant.resolve(config)

    def _run(self, req: Request) -> Run:
        config = self.config_for(req)
        tokens = tokenize(req.sentence, TRACE_MAX_TOKENS)
        if not tokens.tokens:
            raise ConfigError(t("The sentence has no words, punctuation or emoji to attend over; type a few words."))
        module = seeded_init(self.registry.build(req.variant, config), req.seed).eval()
        x = embed(tokens.tokens, config.d_model, req.seed)  # (1, T, d)
        with torch.no_grad():
            trace = module.trace(x)
        return Run(req, tokens, config, module, x, trace)


TRACE_FIELDS = ("q", "k", "v", "scores", "scaled", "mask", "masked", "weights", "context", "output")


def trace_problem(run: Run) -> str | None:
    """What in a run's trace the views could not use (not a tensor, a wrong shape), in words; None when sound.

    A plugin's trace comes from another process: the shapes are checked here, before any view reads them.
    """
    T = len(run.tokens)
    tensors = {name: getattr(run.trace, name, None) for name in TRACE_FIELDS}
    for name, x in tensors.items():
        if not isinstance(x, Tensor):
            return t("{name} that is not a tensor", name=name)
        if (x.dtype != torch.bool) if name == "mask" else not x.is_floating_point():
            return t("{name} of dtype {dtype}", name=name, dtype=x.dtype)
    w = tensors["weights"]
    if w.dim() != 4 or tuple(w.shape[::2]) != (1, T) or w.shape[-1] != T:
        return t("weights of shape {shape}; the lab expects (1, heads, {T}, {T}) for {T} tokens", shape=tuple(w.shape),
                 T=T)
    H = w.shape[1]
    q, k = tensors["q"], tensors["k"]
    if q.dim() != 4 or tuple(q.shape[:3]) != (1, H, T):
        return t("q of shape {shape}; the lab expects (1, {H}, {T}, head_dim)", shape=tuple(q.shape), H=H, T=T)
    for name in ("k", "v"):
        x = tensors[name]
        if x.dim() != 4 or x.shape[0] != 1 or x.shape[2] != T or x.shape[1] < 1 or H % x.shape[1]:
            return t("{name} of shape {shape}; the lab expects (1, K/V heads dividing {H}, {T}, head_dim)", name=name,
                     shape=tuple(x.shape), H=H, T=T)
    for name in ("scores", "scaled", "masked"):
        if tuple(tensors[name].shape) != (1, H, T, T):
            return t("{name} of shape {shape}; the lab expects (1, {H}, {T}, {T})", name=name,
                     shape=tuple(tensors[name].shape), H=H, T=T)
    mask, context, out = tensors["mask"], tensors["context"], tensors["output"]
    if mask.dim() != 4 or tuple(mask.shape[-2:]) != (T, T):
        return t("a mask of shape {shape}; the lab expects (1, 1, {T}, {T})", shape=tuple(mask.shape), T=T)
    if context.dim() != 4 or tuple(context.shape[:3]) != (1, H, T):
        return t("context of shape {shape}; the lab expects (1, {H}, {T}, head_dim)", shape=tuple(context.shape), H=H,
                 T=T)
    if k.shape[-1] != q.shape[-1]:
        return t("keys {k} wide for queries {q} wide; they must match", k=k.shape[-1], q=q.shape[-1])
    if out.dim() != 3 or tuple(out.shape[:2]) != (1, T):
        return t("output of shape {shape}; the lab expects (1, {T}, d_model)", shape=tuple(out.shape), T=T)
    return None


def weights_payload(run: Run) -> dict[str, Any]:
    """The /attention JSON: {"tokens": [...], "weights": [H][T][T]} rounded for reading, not for rounding errors."""
    return {"tokens": list(run.tokens.tokens), "weights": rounded(run.weights)}


def rounded(t: Tensor, digits: int = 6) -> Any:
    """Nested lists for JSON: floats rounded for reading, -inf, inf and NaN as strings, bools kept."""
    if t.dtype == torch.bool:
        return t.tolist()
    if t.dim() > 1:
        return [rounded(row, digits) for row in t]
    values = t.tolist() if t.dim() else [t.item()]
    out = [json_number(v, digits) for v in values]
    return out if t.dim() else out[0]


def json_number(v: float, digits: int | None = 6) -> float | str:
    """A float JSON can carry: rounded when finite (digits=None: as it is), else "-inf", "inf" or "NaN"."""
    if math.isfinite(v):
        return v if digits is None else round(v, digits)
    return "NaN" if math.isnan(v) else ("-inf" if v < 0 else "inf")


def nonfinite_weights(run: Run) -> int:
    """How many attention weights are NaN or infinite (a broken plugin's softmax); 0 for any sound variant."""
    return int((~torch.isfinite(run.weights)).sum())


@dataclass(frozen=True)
class RowCheck:
    """The claim under the heatmaps, measured: rows sum to 1; no weight where the mask says no."""

    max_row_error: float  # max |sum of a row - 1|
    blocked_weight: float  # total weight on positions the mask blocks
    above_diagonal: float  # total weight above the diagonal (the future)
    rows: int = 1  # how many rows (heads x queries) the totals are over: the line gives means per row

    @property
    def line(self) -> str:
        """One line a student reads: 'every row sums to 1; weight above the diagonal: 0'."""
        if not math.isfinite(self.max_row_error):
            return t(CHECK["nonfinite"])
        if self.max_row_error < 1e-5:
            rows = t(CHECK["rows"])
        else:
            rows = t(CHECK["rows_off"], error=format(self.max_row_error, ".2g"))
        # per row, read against "each row sums to 1" (a total over heads and rows has no scale a student knows)
        future = (t(CHECK["zero"]) if self.above_diagonal == 0
                  else t(CHECK["leak"], value=format(self.above_diagonal / self.rows, ".2g")))
        if self.blocked_weight == 0:
            return t(CHECK["line"], rows=rows, future=future)
        blocked = t(CHECK["mean"], value=format(self.blocked_weight / self.rows, ".2g"))
        return t(CHECK["line_blocked"], rows=rows, future=future, blocked=blocked)


# The check line's words (measured here for every view, the page's own softmax views included)
CHECK = {
    "line": mark("{rows}; weight above the diagonal: {future}"),
    "line_blocked": mark("{rows}; weight above the diagonal: {future}; weight on blocked keys: {blocked}"),
    "rows": mark("every row sums to 1"),
    "rows_off": mark("rows are off 1 by up to {error}"),
    "zero": mark("0 in every row"),
    "leak": mark("{value} of 1 per row on average (the future leaks in)"),
    "mean": mark("{value} of 1 per row on average"),
    "nonfinite": mark("some rows hold NaN or infinite weights: they are not probabilities"),
}


def row_check(run: Run) -> RowCheck:
    """Measure the row sums and the weight on the future and on blocked keys of a run."""
    return measure_rows(run.weights, run.allowed)


def measure_rows(weights: Tensor, allowed: Tensor) -> RowCheck:
    """The one row check: weights (H, T, T), allowed (T, T) or (H, T, T) True = may attend (the page's own softmax
    views are measured here too, for each setting of their toggles: core.render.matrix.softmax_inputs)."""
    w = weights  # (H, T, T)
    T = w.shape[-1]
    future = torch.ones(T, T, dtype=torch.bool).triu(1)  # (T, T) strictly above the diagonal
    return RowCheck(
        max_row_error=float((w.sum(-1) - 1).abs().max()),
        blocked_weight=float(w.masked_fill(allowed, 0).sum()),  # allowed (T, T) or (H, T, T)
        above_diagonal=float(w[:, future].sum()),
        rows=w.shape[0] * T,
    )
