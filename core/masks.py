"""Masks as bool tensors where True means "may attend" (SDPA's convention), everywhere."""

from __future__ import annotations

import torch
from torch import Tensor


def causal_mask(T: int, device: torch.device | str | None = None) -> Tensor:
    """Query i may see keys j <= i: the lower triangle, diagonal included.  (T, T)"""
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def sliding_window_mask(
    T: int, window: int, stride: int = 0, device: torch.device | str | None = None
) -> Tensor:
    """Query i sees j when 0 <= i-j < window; with stride > 0 also every j <= i with j % stride == 0.  (T, T)"""
    if window < 1:
        raise ValueError(f"window={window} is too small; choose 1 or more")
    if stride < 0:
        raise ValueError(f"stride={stride} is negative; choose 0 (off) or more")
    positions = torch.arange(T, device=device)  # (T,)
    return sliding_window_mask_at(positions, positions, window, stride)


def sliding_window_mask_at(q_pos: Tensor, k_pos: Tensor, window: int, stride: int = 0) -> Tensor:
    """The same band on absolute positions q_pos (Tq,) and k_pos (Tk,), as a cached decoding step needs.  (Tq, Tk)"""
    i, j = q_pos[:, None], k_pos[None, :]  # (Tq, 1) queries, (1, Tk) keys
    gap = i - j
    allowed = (gap >= 0) & (gap < window)
    if stride > 0:
        allowed |= (gap >= 0) & (j % stride == 0)
    return allowed


def padding_mask(lengths: Tensor | list[int], T: int, device: torch.device | str | None = None) -> Tensor:
    """Key padding mask from sequence lengths: True = real token, padding on the right.  (B, T)"""
    lengths = torch.as_tensor(lengths, device=device)
    return torch.arange(T, device=device)[None, :] < lengths[:, None]


def combine_masks(attn_mask: Tensor | None, key_padding_mask: Tensor | None) -> Tensor:
    """Join a (T, T) or (B|1, 1|H, T, T) mask with a (B, T) key padding mask into (B, 1, T, T).

    Both use True = may attend / real token. Padding keys are hidden from every query.
    """
    if attn_mask is None and key_padding_mask is None:
        raise ValueError("combine_masks needs at least one mask")
    if attn_mask is None:
        T = key_padding_mask.shape[-1]
        attn_mask = torch.ones(T, T, dtype=torch.bool, device=key_padding_mask.device)
    if attn_mask.dtype != torch.bool:
        raise TypeError("attn_mask must be a bool tensor with True = may attend")
    if attn_mask.dim() == 2:
        attn_mask = attn_mask[None, None]  # (1, 1, T, T)
    if key_padding_mask is None:
        return attn_mask
    if key_padding_mask.dtype != torch.bool:
        raise TypeError("key_padding_mask must be a bool tensor with True = real token")
    return attn_mask & key_padding_mask[:, None, None, :]  # (B, 1|H, T, T)
