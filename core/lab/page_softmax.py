"""What the page needs to redo scale, mask and softmax itself (the causal and √d toggles paint without a round trip).

The page is sent the raw scores only when it can reproduce the variant exactly: a variant's weights must be
softmax(mask(scale(scores))), checked here on the run itself for both settings of the causal mask, never taken
from what a variant says about itself. Anything else (no softmax, several maps, a bias) keeps the server path.
The run with the mask flipped is asked for only once the run itself passed (a variant the page cannot redo costs
one run, not two).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor

TOLERANCE = 1e-6  # the page's weights against torch's: float32 in, float64 softmax on the page
SETTINGS = ((True, True), (True, False), (False, True), (False, False))  # (causal, scaled): the page's four views


@dataclass(frozen=True)
class PageSoftmax:
    """Raw scores (H, T, T), the head width, and the allowed masks (T, T) with the causal mask on and off."""

    scores: Tensor  # (H, T, T) float64 q @ k^T, before any scaling
    head_dim: int
    allowed_causal: Tensor  # (T, T) True = may attend, causal mask on
    allowed_full: Tensor  # (T, T) True = may attend, causal mask off

    def allowed(self, causal: bool) -> Tensor:
        """The mask for one setting of the causal toggle.  (T, T)"""
        return self.allowed_causal if causal else self.allowed_full

    def weights(self, causal: bool, scaled: bool) -> Tensor:
        """The weights the page draws for one setting of both toggles.  (H, T, T) float64"""
        return softmax_weights(self.scores, self.head_dim, scaled, self.allowed(causal))


def softmax_weights(scores: Tensor, head_dim: int, scaled: bool, allowed: Tensor) -> Tensor:
    """softmax(mask(scale(scores))) as the page computes it: float64, -inf where blocked.  (H, T, T)"""
    s = torch.as_tensor(scores, dtype=torch.float64)  # (H, T, T)
    if scaled:
        s = s / math.sqrt(head_dim)
    return torch.softmax(s.masked_fill(~torch.as_tensor(allowed, dtype=torch.bool), -math.inf), dim=-1)


def _redone(run, scores: Tensor) -> bool:
    """Whether the run's weights are the page's softmax of these scores, with its own mask and scaling."""
    want = softmax_weights(scores, run.config.head_dim, run.config.scaled, run.allowed)  # (H, T, T)
    return bool(torch.allclose(want, run.weights.double(), rtol=0, atol=TOLERANCE))


def page_softmax(run, flipped: Callable[[], object]) -> PageSoftmax | None:
    """The page's inputs when `run` and `flipped()` (the same request with the causal mask flipped, run only when
    `run` itself passed) are both plain softmax over the same raw scores; None when either is not (the page then
    waits for the server's weights)."""
    tr = run.trace
    if tr.maps or tr.scores.shape != tr.weights.shape:
        return None
    scores = tr.scores[0].double()  # (H, T, T)
    if not torch.isfinite(scores).all() or not _redone(run, scores):
        return None
    other = flipped()
    tr2 = other.trace
    if tr2.maps or run.config.causal == other.config.causal or tr2.scores.shape != tr.scores.shape:
        return None
    if not torch.equal(scores, tr2.scores[0].double()) or not _redone(other, scores):
        return None
    causal, full = (run, other) if run.config.causal else (other, run)
    return PageSoftmax(scores, run.config.head_dim, causal.allowed.clone(), full.allowed.clone())
