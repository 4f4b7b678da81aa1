"""One request of the Attention tab: sentence + settings -> tokens, a seeded module and its trace."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import torch
from torch import Tensor

from ..attention import AttentionModule, AttentionTrace
from ..config import AttentionConfig, ConfigError, parse_options, whole
from ..registry import Registry
from ..seeding import seeded_init
from .text import Tokens, embed, tokenize

CACHE_SIZE = 256  # distinct requests kept; a class clicking the same example hits this
TRACE_MAX_TOKENS = 64  # the explicit path materialises (H, T, T): the app keeps T small


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
    """Check and normalise raw UI/API values; ConfigError (one sentence) for anything a person got wrong."""
    if not isinstance(sentence, str) or not sentence.strip():
        raise ConfigError("The sentence is empty; type a few words.")
    opts = parse_options(options)
    try:
        opts_key = tuple(sorted(opts.items()))
        hash(opts_key)
    except TypeError:
        raise ConfigError("options values must be numbers, true/false or text") from None
    return Request(sentence, str(variant), bool(causal), bool(scaled), whole("n_heads", n_heads),
                   whole("d_model", d_model), whole("seed", seed), opts_key)


@dataclass(frozen=True)
class Run:
    """The result of one request: tokens, the resolved config, the module and every stage."""

    request: Request
    tokens: Tokens
    config: AttentionConfig
    module: AttentionModule
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
    """The numbers behind the Attention and Step tabs, with a bounded LRU cache keyed on the request."""

    def __init__(self, registry: Registry, cache_size: int = CACHE_SIZE) -> None:
        self.registry = registry
        self.run = lru_cache(maxsize=cache_size)(self._run)

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
            raise ConfigError("The sentence has no words, punctuation or emoji to attend over; type a few words.")
        module = seeded_init(self.registry.build(req.variant, config), req.seed).eval()
        x = embed(tokens.tokens, config.d_model, req.seed)  # (1, T, d)
        with torch.no_grad():
            trace = module.trace(x)
        return Run(req, tokens, config, module, x, trace)


def weights_payload(run: Run) -> dict[str, Any]:
    """The /attention JSON: {"tokens": [...], "weights": [H][T][T]} rounded for reading, not for rounding errors."""
    return {"tokens": list(run.tokens.tokens), "weights": rounded(run.weights)}


def rounded(t: Tensor, digits: int = 6) -> Any:
    """Nested lists for JSON: floats rounded for reading, -inf as the string "-inf", bools kept."""
    if t.dtype == torch.bool:
        return t.tolist()
    if t.dim() > 1:
        return [rounded(row, digits) for row in t]
    values = t.tolist() if t.dim() else [t.item()]
    out = [round(v, digits) if math.isfinite(v) else ("-inf" if v < 0 else "inf") for v in values]
    return out if t.dim() else out[0]


@dataclass(frozen=True)
class RowCheck:
    """The claim under the heatmaps, measured: rows sum to 1; no weight where the mask says no."""

    max_row_error: float  # max |sum of a row - 1|
    blocked_weight: float  # total weight on positions the mask blocks
    above_diagonal: float  # total weight above the diagonal (the future)

    @property
    def line(self) -> str:
        """One line a student reads: 'every row sums to 1; weight above the diagonal: 0'."""
        rows = "every row sums to 1" if self.max_row_error < 1e-5 else f"rows are off 1 by up to {self.max_row_error:.2g}"
        future = "0" if self.above_diagonal == 0 else f"{self.above_diagonal:.3g} (the future leaks in)"
        text = f"{rows}; weight above the diagonal: {future}"
        return text if self.blocked_weight == 0 else text + f"; weight on blocked keys: {self.blocked_weight:.3g}"


def row_check(run: Run) -> RowCheck:
    """Measure the row sums and the weight on the future and on blocked keys."""
    w = run.weights  # (H, T, T)
    T = w.shape[-1]
    future = torch.ones(T, T, dtype=torch.bool).triu(1)  # (T, T) strictly above the diagonal
    return RowCheck(
        max_row_error=float((w.sum(-1) - 1).abs().max()),
        blocked_weight=float(w[:, ~run.allowed].sum()),
        above_diagonal=float(w[:, future].sum()),
    )
