"""ALiBi for Attention Lab: a linear distance penalty on the scores instead of position embeddings."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import Tensor

from core import AttentionModule, Option, Variant, hookimpl

__version__ = "0.1.0"


class ALiBiAttention(AttentionModule):
    """Multi-head attention plus a bias -slope_h * |i - j|: only bias() is overridden; the formula is core's."""

    def slopes(self, device: torch.device | str | None = None) -> Tensor:
        """Head h penalises distance by slope / 2**h: head 0 looks closest, the last head furthest."""
        heads = torch.arange(self.n_heads, dtype=torch.float32, device=device)
        return float(self.config.options["slope"]) * 2.0**-heads  # (H,)

    def bias(self, T: int, device: torch.device | str | None = None) -> Tensor:
        """What ALiBi adds to the scaled scores: 0 on the diagonal, more negative with distance.  (H, T, T)"""
        i = torch.arange(T, device=device)
        distance = (i[:, None] - i[None, :]).abs().float()  # (T, T)
        return -self.slopes(device)[:, None, None] * distance  # (H, T, T)


ALIBI = Variant(
    name="alibi",
    title="ALiBi (linear biases)",
    summary="Scores minus slope × distance: nearby tokens win, no position embeddings (BLOOM, MPT).",
    build=ALiBiAttention,
    options=(
        Option("slope", 0.5, minimum=0.0, maximum=8.0, help="score penalty per token of distance for head 0; head h uses slope / 2**h"),
    ),
    formulas={"scaled": "scaled = scores {scale} - slope_h · |i - j|, slope_h = {slope} / 2^{head}"},
    notes=(
        "Same projections and mask as multi-head; only the scores change: -slope_h × |i - j| is added "
        "before the softmax. With slope 0 it is plain multi-head attention."
    ),
)


@hookimpl
def register_attention_variants(register) -> None:
    """Offer ALiBi to the lab."""
    register(ALIBI)


@hookimpl
def register_lessons(register) -> None:
    """Ship a short lesson about the bias (the lab lists it beside its own; docs/lessons.md has the format)."""
    register(str(Path(__file__).resolve().parent / "lessons"))


__all__ = ["ALIBI", "ALiBiAttention", "register_attention_variants", "register_lessons"]
