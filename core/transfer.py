"""Moving weights between equivalent layers, and checking that the outputs really agree."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from .config import ConfigError
from .i18n import mark, t
from .masks import causal_mask

MISTAKES = ("none", "no-transpose", "swap-query-key")
MISTAKE_LABELS = {  # what a lesson's control reads for each (the API and the Transfer tab keep the names)
    "none": mark("no mistake"), "no-transpose": mark("forgot the transpose"),
    "swap-query-key": mark("swapped query and key"),
}
_QKV = ("W_query", "W_key", "W_value")


@dataclass(frozen=True)
class Equivalence:
    """How far apart two layers' outputs are on the same input."""

    max_abs_diff: float
    equal: bool  # within atol: the same computation up to float rounding
    exact: bool  # bit for bit (torch.equal)
    atol: float

    @property
    def verdict(self) -> str:
        """One sentence a student can read."""
        if self.exact:
            return t("equivalent: the outputs are bit-for-bit identical")
        if self.equal:
            return t("equivalent: the outputs agree to within {atol} (float rounding)", atol=format(self.atol, "g"))
        return t("NOT equivalent: the outputs differ by up to {diff}", diff=format(self.max_abs_diff, ".4g"))


def transfer_v2_to_v1(v2: nn.Module, v1: nn.Module, mistake: str | None = None) -> None:
    """Copy SelfAttention_v2's nn.Linear weights (d_out, d_in) into v1's (d_in, d_out) parameters.

    mistake="no-transpose" copies weight as it is; "swap-query-key" crosses W_query and W_key.
    Nothing is copied unless every matrix fits.
    """
    mistake = None if mistake in (None, "", "none") else mistake
    if mistake not in (None, *MISTAKES):
        raise ConfigError(t("mistake={mistake} is not known; choose {known}", mistake=repr(mistake),
                            known=", ".join(MISTAKES)))
    if any(getattr(v2, name).bias is not None for name in _QKV):
        raise ConfigError(t("SelfAttention_v2 has qkv_bias=True, but SelfAttention_v1 has no bias to copy it into"))
    sources = {"W_query": "W_key", "W_key": "W_query"} if mistake == "swap-query-key" else {}
    planned = []
    for name in _QKV:
        weight = getattr(v2, sources.get(name, name)).weight  # (d_out, d_in)
        value = weight if mistake == "no-transpose" else weight.T  # (d_in, d_out)
        target = getattr(v1, name)  # nn.Parameter (d_in, d_out)
        if value.shape != target.shape:
            d_out, d_in = weight.shape
            raise ConfigError(t(
                "cannot copy {name}: nn.Linear stores its weight as (d_out, d_in) = ({d_out}, {d_in}) but "
                "SelfAttention_v1 holds (d_in, d_out) = {shape}; copy weight.T, not weight",
                name=name, d_out=d_out, d_in=d_in, shape=tuple(target.shape)))
        planned.append((target, value))
    with torch.no_grad():
        for target, value in planned:
            target.copy_(value)


def transfer_stacked_to_fused(stacked: nn.Module, fused: nn.Module) -> None:
    """Copy MultiHeadAttentionWrapper heads into CausalSelfAttention's one qkv matrix.

    Head h's W_query lands in rows h*hd:(h+1)*hd of the query block of qkv.weight, likewise K and V.
    """
    heads = list(stacked.heads)
    if fused.qkv.weight.shape[0] != 3 * sum(h.W_query.weight.shape[0] for h in heads):
        raise ConfigError(t("the stacked and fused layers have different sizes; build both from one config"))
    with torch.no_grad():
        fused.qkv.weight.copy_(torch.cat([getattr(h, n).weight for n in _QKV for h in heads]))  # (3d, d)
        if fused.qkv.bias is not None:
            fused.qkv.bias.copy_(torch.cat([getattr(h, n).bias for n in _QKV for h in heads]))  # (3d,)
        fused.proj.load_state_dict(stacked.proj.state_dict())


class TorchMultiheadAttention(nn.Module):
    """nn.MultiheadAttention behind our API; the one place mask polarity is flipped."""

    def __init__(self, mha: nn.MultiheadAttention, causal: bool = True) -> None:
        super().__init__()
        self.mha, self.causal = mha, causal

    def forward(self, x: Tensor, key_padding_mask: Tensor | None = None) -> Tensor:
        """x (B, T, d); our masks say True = may attend, nn.MultiheadAttention's say True = blocked."""
        T = x.shape[1]
        attn_mask = ~causal_mask(T, x.device) if self.causal else None  # (T, T) True = blocked
        pad = None if key_padding_mask is None else ~key_padding_mask  # (B, T) True = padding
        out, _ = self.mha(x, x, x, attn_mask=attn_mask, key_padding_mask=pad, need_weights=False)
        # a sequence that is all padding gives NaN rows on PyTorch's fast path, and NaN * 0 is NaN: fill, not multiply
        return out if key_padding_mask is None else out.masked_fill(~key_padding_mask[..., None], 0.0)


def fused_to_multihead_attention(fused: nn.Module) -> TorchMultiheadAttention:
    """Build PyTorch's own nn.MultiheadAttention holding CausalSelfAttention's weights."""
    cfg = fused.config
    mha = nn.MultiheadAttention(cfg.d_model, cfg.n_heads, bias=cfg.bias, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(fused.qkv.weight)  # (3d, d): q|k|v in the same order
        mha.out_proj.weight.copy_(fused.proj.weight)
        if cfg.bias:
            mha.in_proj_bias.copy_(fused.qkv.bias)
            mha.out_proj.bias.copy_(fused.proj.bias)
    return TorchMultiheadAttention(mha, causal=cfg.causal).eval()


def compare(a: nn.Module, b: nn.Module, x: Tensor, atol: float = 1e-5, **kwargs) -> Equivalence:
    """Run both layers on x (no grad) and measure the largest difference."""
    with torch.no_grad():
        out_a, out_b = a(x, **kwargs), b(x, **kwargs)
    if out_a.shape != out_b.shape:
        raise ConfigError(t("the outputs have different shapes, {a} and {b}", a=tuple(out_a.shape),
                            b=tuple(out_b.shape)))
    diff = float((out_a - out_b).abs().max()) if out_a.numel() else 0.0
    return Equivalence(max_abs_diff=diff, equal=diff <= atol, exact=torch.equal(out_a, out_b), atol=atol)
