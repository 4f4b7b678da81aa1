"""Sliding-window attention in query blocks: memory O(T·window), never a (T, T) mask.

Queries are cut into blocks of BLOCK rows. Block b holds queries [b·BLOCK, (b+1)·BLOCK) and
reads only the keys its band can reach, [start - (window-1), end + right), plus the strided
global columns when stride > 0. All blocks go through one call of the module's formula (SDPA
for the stock one) as a batch, with a small bool mask per block (True = may attend). The result
equals the formula with the dense sliding_window_mask, which tests/test_banded.py checks.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor

from .attention import sdpa
from .masks import combine_masks, sliding_window_mask

Formula = Callable[[Tensor, Tensor, Tensor, Tensor], Tensor]  # (q, k, v, bool mask) -> context, e.g. module.formula

# Queries per block. On a 2-core CPU small blocks waste the least work (T·(BLOCK+window)
# scores instead of T·window) and stay in cache; measured with w = 4..1024 at T = 8192.
BLOCK = 32


def band_allowed(T: int, window: int, stride: int = 0, causal: bool = True, device=None) -> Tensor:
    """The dense (T, T) band, True = may attend; for short T and as the tests' reference."""
    band = sliding_window_mask(T, window, stride, device=device)  # (T, T)
    return band if causal else band | band.T


def banded_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    window: int,
    *,
    stride: int = 0,
    causal: bool = True,
    key_padding_mask: Tensor | None = None,
    formula: Formula = sdpa,
    block: int = BLOCK,
) -> Tensor:
    """q, k, v (B, H, T, hd) -> context (B, H, T, hd); padding query rows are finite (caller zeroes them).

    formula(q, k, v, mask) is the module's (AttentionModule.formula: its scaling, dropout and any own score or
    normalise); the default is the stock softmax, scaled.
    """
    B, H, T, hd = q.shape
    left, right = window - 1, 0 if causal else window - 1
    if block + left + right >= T:  # every block would read every key: the band is the square
        return _dense(q, k, v, window, stride, causal, key_padding_mask, formula)
    nb = -(-T // block)  # number of query blocks
    span = block + left + right  # keys one block can reach through the band
    tail = nb * block - T  # queries added to fill the last block (dropped at the end)
    kp = F.pad(k, (0, 0, left, tail + right))  # (B, H, left + nb·block + right, hd)
    vp = F.pad(v, (0, 0, left, tail + right))  # (B, H, left + nb·block + right, hd)
    kb = _windows(kp, span, block)  # (B·nb, H, span, hd); a view when B == 1
    vb = _windows(vp, span, block)  # (B·nb, H, span, hd)
    qb = F.pad(q, (0, 0, 0, tail)).reshape(B, H, nb, block, hd).transpose(1, 2).reshape(B * nb, H, block, hd)
    mask = _local_mask(T, window, causal, block, nb, q.device)  # (nb, block, span)
    if key_padding_mask is not None:
        real = F.pad(key_padding_mask, (left, tail + right), value=False)  # (B, left + nb·block + right)
        mask = mask & real.unfold(1, span, block)[:, :, None, :]  # (B, nb, block, span)
    if stride > 0:  # strided global columns, appended after each block's local keys
        kb, vb, mask = _with_globals(k, v, kb, vb, mask, window, stride, block, nb, key_padding_mask)
    mask = mask.expand(B, *mask.shape[-3:]) if mask.dim() == 3 else mask  # (B, nb, block, n_keys)
    mask = mask | ~mask.any(-1, keepdim=True)  # a row with nothing to see (padding) sees all: no NaN
    context = formula(qb, kb, vb, mask.reshape(B * nb, 1, block, -1))  # (B·nb, H, block, hd)
    context = context.view(B, nb, H, block, hd).transpose(1, 2).reshape(B, H, nb * block, hd)[:, :, :T]
    if stride > 0 and not causal:  # the symmetric band gives global *rows* too: they see far ahead
        context = _global_rows(q, k, v, context, window, stride, key_padding_mask, formula)
    return context  # (B, H, T, hd)


def score_entries(T: int, window: int, stride: int = 0, causal: bool = True, block: int = BLOCK) -> int:
    """Scores one head computes on the banded path (the dense square when the band covers it)."""
    span = block + (window - 1) * (1 if causal else 2)
    if span >= T:
        return T * T
    n_globals = -(-T // stride) if stride > 0 else 0
    rows = (-(-T // block)) * block
    extra = n_globals * T if stride > 0 and not causal else 0
    return rows * (span + n_globals) + extra


# ---- pieces ------------------------------------------------------------------------------


def _windows(x: Tensor, span: int, block: int) -> Tensor:
    """(B, H, Tp, hd) -> (B·nb, H, span, hd): overlapping key windows, one per query block."""
    B, H, _, hd = x.shape
    win = x.unfold(2, span, block)  # (B, H, nb, hd, span) strided view, no copy
    return win.permute(0, 2, 1, 4, 3).reshape(-1, H, span, hd)  # copies only when B > 1


def _local_mask(T: int, window: int, causal: bool, block: int, nb: int, device) -> Tensor:
    """Which of its span keys each query of each block may see: (nb, block, span), True = may attend."""
    left = window - 1
    span = block + left + (0 if causal else left)
    row = torch.arange(block, device=device)[:, None]  # (block, 1) query offset in the block
    col = torch.arange(span, device=device)[None, :]  # (1, span) key offset in the window
    gap = row - col + left  # (block, span) query index - key index
    band = (gap >= 0) & (gap < window) if causal else gap.abs() < window  # (block, span)
    key = torch.arange(nb, device=device)[:, None] * block - left + col  # (nb, span) key index
    return band & ((key >= 0) & (key < T))[:, None, :]  # (nb, block, span)


def _with_globals(
    k: Tensor, v: Tensor, kb: Tensor, vb: Tensor, mask: Tensor,
    window: int, stride: int, block: int, nb: int, key_padding_mask: Tensor | None,
) -> tuple[Tensor, Tensor, Tensor]:
    """Append keys 0, stride, 2·stride, … to every block; each query sees those left of its band."""
    B, H, T, hd = k.shape
    idx = torch.arange(0, T, stride, device=k.device)  # (G,) global key index
    G = idx.numel()
    kg = k[:, :, idx][:, None].expand(B, nb, H, G, hd).reshape(B * nb, H, G, hd)  # (B·nb, H, G, hd)
    vg = v[:, :, idx][:, None].expand(B, nb, H, G, hd).reshape(B * nb, H, G, hd)  # (B·nb, H, G, hd)
    query = torch.arange(nb * block, device=k.device).view(nb, block, 1)  # (nb, block, 1)
    far = query - idx >= window  # (nb, block, G) left of the band, so never counted twice
    if key_padding_mask is not None:
        far = far & key_padding_mask[:, idx][:, None, None, :]  # (B, nb, block, G)
        mask = mask.expand(B, *mask.shape[-3:]) if mask.dim() == 3 else mask  # (B, nb, block, span)
    return torch.cat([kb, kg], dim=2), torch.cat([vb, vg], dim=2), torch.cat([mask, far], dim=-1)


def _global_rows(
    q: Tensor, k: Tensor, v: Tensor, context: Tensor, window: int, stride: int,
    key_padding_mask: Tensor | None, formula: Formula,
) -> Tensor:
    """Non-causal + stride: query i (i % stride == 0) also sees every key j >= i; redo those rows."""
    T = q.shape[2]
    idx = torch.arange(0, T, stride, device=q.device)  # (G,) global query index
    i, j = idx[:, None], torch.arange(T, device=q.device)[None, :]  # (G, 1), (1, T)
    rows = ((i - j).abs() < window) | ((j <= i) & (j % stride == 0)) | (j >= i)  # (G, T)
    rows = rows[None, None]  # (1, 1, G, T)
    if key_padding_mask is not None:
        rows = rows & key_padding_mask[:, None, None, :]  # (B, 1, G, T)
    rows = rows | ~rows.any(-1, keepdim=True)
    out = formula(q[:, :, idx], k, v, rows)  # (B, H, G, hd)
    return context.index_copy(2, idx, out)  # (B, H, T, hd)


def _dense(
    q: Tensor, k: Tensor, v: Tensor, window: int, stride: int, causal: bool,
    key_padding_mask: Tensor | None, formula: Formula,
) -> Tensor:
    """Short sequences: the dense band is no bigger than the blocks would be; one call of the formula."""
    T = q.shape[2]
    mask = band_allowed(T, window, stride, causal, q.device)  # (T, T)
    mask = combine_masks(mask, key_padding_mask) if key_padding_mask is not None else mask[None, None]
    mask = mask | ~mask.any(-1, keepdim=True)  # padding rows see all, then get zeroed
    return formula(q, k, v, mask)  # (B, H, T, hd)
