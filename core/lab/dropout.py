"""Dropout on the attention weights, as a training step applies it: what the v1/v2 chapter's dropout step shows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from .threads import GLOBAL_RNG


@dataclass(frozen=True)
class Dropped:
    """The weights after dropout (training mode) and what a student checks on them."""

    weights: np.ndarray  # (T, T) after dropout: zeros, or the weight times 1/(1-p)
    zeroed: int  # links that had weight and lost it
    links: int  # links that had weight (the mask's allowed cells)
    row_sums: np.ndarray  # (T,) no longer 1: dropout rescales the survivors, it does not renormalise


def dropped(weights: np.ndarray, p: float, seed: int) -> Dropped:
    """F.dropout(weights, p, training=True) under its own seed (the global RNG is left as it was)."""
    w = torch.as_tensor(np.asarray(weights, dtype=np.float32))  # (T, T)
    with GLOBAL_RNG, torch.random.fork_rng(devices=[]):  # (F.dropout takes no generator)
        torch.manual_seed(seed)
        out = F.dropout(w, p=p, training=True)  # (T, T)
    had = w > 0
    return Dropped(out.numpy(), int((had & (out == 0)).sum()), int(had.sum()), out.sum(dim=-1).numpy())
