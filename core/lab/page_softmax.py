"""What the page needs to redo scale, mask and softmax itself (the causal and √d toggles paint without a round trip).

The page is sent the raw scores only when it can reproduce the variant exactly: a variant's weights must be
softmax(mask(scale(scores))), checked here on the run itself for both settings of the causal mask, never taken
from what a variant says about itself. Anything else (no softmax, several maps, a bias) keeps the server path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TOLERANCE = 1e-6  # the page's weights against torch's: float32 in, float64 softmax on the page


@dataclass(frozen=True)
class PageSoftmax:
    """Raw scores (H, T, T), the head width, and the allowed masks (T, T) with the causal mask on and off."""

    scores: np.ndarray  # (H, T, T) q @ k^T, before any scaling
    head_dim: int
    allowed_causal: np.ndarray  # (T, T) True = may attend, causal mask on
    allowed_full: np.ndarray  # (T, T) True = may attend, causal mask off


def softmax_weights(scores: np.ndarray, head_dim: int, scaled: bool, allowed: np.ndarray) -> np.ndarray:
    """softmax(mask(scale(scores))) as the page computes it: float64, max subtracted, -inf where blocked.  (H, T, T)"""
    s = np.asarray(scores, dtype=np.float64)  # (H, T, T)
    if scaled:
        s = s / np.sqrt(head_dim)
    s = np.where(np.asarray(allowed, dtype=bool), s, -np.inf)  # (H, T, T)
    top = s.max(axis=-1, keepdims=True)  # (H, T, 1) finite: every real row allows its own token
    e = np.exp(s - top)  # (H, T, T), 0 where blocked
    return e / e.sum(axis=-1, keepdims=True)


def page_softmax(run, other) -> PageSoftmax | None:
    """The page's inputs when `run` and `other` (the same request with the causal mask flipped) are both plain
    softmax over the same raw scores; None when either is not (the page then waits for the server's weights)."""
    tr, tr2 = run.trace, other.trace
    if tr.maps or tr2.maps or tr.scores.shape != tr.weights.shape or run.config.causal == other.config.causal:
        return None
    scores = tr.scores[0].double().numpy()  # (H, T, T)
    if not np.isfinite(scores).all() or not np.array_equal(scores, tr2.scores[0].double().numpy()):
        return None
    hd = run.config.head_dim
    for r in (run, other):
        want = softmax_weights(scores, hd, r.config.scaled, r.allowed.numpy())  # (H, T, T)
        if not np.allclose(want, r.weights.double().numpy(), rtol=0, atol=TOLERANCE):
            return None
    causal, full = (run, other) if run.config.causal else (other, run)
    return PageSoftmax(scores.astype(np.float32), hd, causal.allowed.numpy().copy(), full.allowed.numpy().copy())
