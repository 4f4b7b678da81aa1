"""Sliding-window attention: each token sees only the last `window` tokens (plus strided columns)."""

from __future__ import annotations

import torch
from torch import Tensor

from core import AttentionModule, Option, Variant, hookimpl
from core.fast_paths import band_allowed, banded_attention
from core.i18n import mark
from core.masks import sliding_window_mask_at


class SlidingWindowAttention(AttentionModule):
    """Multi-head attention whose mask is a band of width `window` (plus every stride-th column)."""

    def allowed(self, T: int, device: torch.device | str | None = None) -> Tensor | None:
        """The band (plus strided columns); with causal=False, the control, it reaches both ways.  (T, T)"""
        options = self.config.options
        return band_allowed(T, int(options["window"]), int(options["stride"]), self.config.causal, device)

    def allowed_at(self, q_pos: Tensor, k_pos: Tensor, device: torch.device | str | None = None) -> Tensor:
        """The band on absolute positions, for cached decoding: (Tq, Tk), never the whole square."""
        options = self.config.options
        return sliding_window_mask_at(q_pos, k_pos, int(options["window"]), int(options["stride"]))

    def reachable(self, k_pos: Tensor, next_pos: int) -> Tensor:
        """A rolling cache: keep the last window-1 keys and the strided columns; no later query sees the rest.  (S,)"""
        window, stride = int(self.config.options["window"]), int(self.config.options["stride"])
        keep = next_pos - k_pos < window  # still inside the band of the next query
        return keep | (k_pos % stride == 0) if stride > 0 else keep

    def fast_attention(self, q: Tensor, k: Tensor, v: Tensor, key_padding_mask: Tensor | None = None) -> Tensor:
        """Banded kernel: memory O(T·window), no (T, T) mask; trace() keeps the dense allowed()."""
        return banded_attention(
            q, k, v,
            int(self.config.options["window"]),
            stride=int(self.config.options["stride"]),
            causal=self.config.causal,
            key_padding_mask=key_padding_mask,
            formula=self.formula,
        )  # (B, H, T, hd)


@hookimpl
def register_attention_variants(register) -> None:
    """Offer sliding-window attention."""
    register(
        Variant(
            name="sliding-window",
            title=mark("Sliding window (local) attention"),
            summary=mark("Each token attends to the previous `window` tokens only (Longformer, Mistral)."),
            build=SlidingWindowAttention,
            formulas={"mask": mark("mask: True where a query may attend to a key")},  # the band is drawn beside it
            options=(
                Option("window", 4, minimum=1, maximum=65536, help=mark("how many recent tokens (itself included) each token sees")),
                Option("stride", 0, minimum=0, maximum=65536, help=mark("also see every stride-th earlier token (0 = off)")),
            ),
            notes=mark(
                "Same projections as multi-head; only the mask differs: a band of width `window` "
                "below the diagonal. Cost and memory grow as T·window instead of T², and the KV "
                "cache never holds more than `window` tokens (without stride)."
            ),
        )
    )
