"""The Masking tab's numbers: three ways to hide the future, and why scores are divided by sqrt(d)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from ..i18n import t
from ..masks import causal_mask
from .text import sentences


@dataclass(frozen=True)
class ThreeWays:
    """The same scores masked three ways; the first two agree, the third leaks weight to the future."""

    neg_inf: Tensor  # (T, T) softmax(scores with -inf above the diagonal)
    renormalised: Tensor  # (T, T) softmax(scores), future zeroed, rows renormalised
    zero_fill: Tensor  # (T, T) softmax(scores with 0 above the diagonal): the mistake

    @property
    def agree_max_diff(self) -> float:
        """Largest |difference| between the two right ways (float rounding only)."""
        return float((self.neg_inf - self.renormalised).abs().max())

    @property
    def leak_per_row(self) -> list[float]:
        """Weight the 0-fill puts on future keys, per query row."""
        future = ~causal_mask(self.zero_fill.shape[-1])  # (T, T) True = future
        return (self.zero_fill * future).sum(-1).tolist()

    @property
    def summary(self) -> str:
        """One sentence per claim."""
        leak = self.leak_per_row
        worst = max(leak) if leak else 0.0
        return sentences(
            t("-inf before softmax and softmax-then-renormalise agree to {diff} (float rounding; the same numbers).",
              diff=format(self.agree_max_diff, ".1e")),
            t("Filling with 0 instead of -inf leaks weight to the future: up to {worst} of a row's weight (row 0: "
              "{first}).", worst=format(worst, ".3f"), first=format(leak[0], ".3f")))


def three_ways(scores: Tensor) -> ThreeWays:
    """Mask (T, T) scores as -inf before softmax, as softmax-zero-renormalise, and as the wrong 0-fill."""
    T = scores.shape[-1]
    allowed = causal_mask(T, scores.device)  # (T, T) True = may attend
    neg_inf = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)  # (T, T)
    full = torch.softmax(scores, dim=-1) * allowed  # (T, T) future zeroed, rows no longer sum to 1
    renormalised = full / full.sum(dim=-1, keepdim=True)  # (T, T)
    zero_fill = torch.softmax(scores.masked_fill(~allowed, 0.0), dim=-1)  # (T, T) 0 is not "nothing"
    return ThreeWays(neg_inf, renormalised, zero_fill)


def entropy(weights: Tensor) -> Tensor:
    """Shannon entropy in nats of each row of softmax weights; 0 * log 0 counted as 0.  (..., T) -> (...)"""
    return -(weights * torch.log(weights.clamp_min(1e-30))).sum(-1)


@dataclass(frozen=True)
class SqrtD:
    """Softmax sharpness against head dimension, with and without dividing scores by sqrt(d)."""

    dims: tuple[int, ...]
    max_weight: dict[str, tuple[float, ...]]  # "scaled"/"unscaled" -> mean max weight of a row, per d
    entropy: dict[str, tuple[float, ...]]  # "scaled"/"unscaled" -> mean row entropy (nats), per d
    score_std: dict[str, tuple[float, ...]]  # "scaled"/"unscaled" -> std of the scores, per d
    uniform_entropy: float  # log T: the most spread a row can be


DIMS = (2, 4, 8, 16, 32, 64, 128, 256, 512)


def sqrt_d_experiment(dims: tuple[int, ...] = DIMS, T: int = 16, rows: int = 256, seed: int = 0) -> SqrtD:
    """q, k ~ N(0, 1) of dimension d: q·k has variance d, so unscaled softmax saturates as d grows."""
    g = torch.Generator().manual_seed(seed)
    out: dict[str, dict[str, list[float]]] = {m: {"scaled": [], "unscaled": []} for m in ("max", "ent", "std")}
    for d in dims:
        q = torch.randn(rows, 1, d, generator=g)  # (R, 1, d) one query per trial
        k = torch.randn(rows, T, d, generator=g)  # (R, T, d) T keys per trial
        scores = (q @ k.transpose(-2, -1))[:, 0]  # (R, T)
        for name, s in (("unscaled", scores), ("scaled", scores / math.sqrt(d))):
            w = torch.softmax(s, dim=-1)  # (R, T)
            out["max"][name].append(float(w.max(-1).values.mean()))
            out["ent"][name].append(float(entropy(w).mean()))
            out["std"][name].append(float(s.std()))

    def freeze(m: str) -> dict[str, tuple[float, ...]]:
        return {k: tuple(v) for k, v in out[m].items()}

    return SqrtD(tuple(dims), freeze("max"), freeze("ent"), freeze("std"), math.log(T))
