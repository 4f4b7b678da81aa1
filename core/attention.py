"""The one attention formula, owned once: a fast path (forward) and a traced path (trace)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .config import AttentionConfig
from .kv_cache import CachedDecoding
from .masks import causal_mask, combine_masks


@dataclass
class AttentionTrace:
    """Every stage of one pass, so a student can look at each (B, H, T, ·) tensor."""

    q: Tensor  # (B, H, T, hd)
    k: Tensor  # (B, Hkv, T, hd)
    v: Tensor  # (B, Hkv, T, hd)
    scores: Tensor  # (B, H, T, T)   q @ k^T
    scaled: Tensor  # (B, H, T, T)   scores / sqrt(hd), or scores when unscaled
    mask: Tensor  # (B|1, 1, T, T) bool, True = may attend
    masked: Tensor  # (B, H, T, T)   -inf where the mask is False
    weights: Tensor  # (B, H, T, T)  softmax over keys; padding query rows are 0
    context: Tensor  # (B, H, T, hd) weights @ v
    output: Tensor  # (B, T, d_out) merged heads after the output projection


def attend(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    scaled: bool = True,
    dropout: float = 0.0,
    training: bool = False,
    bias: Tensor | None = None,
) -> dict[str, Tensor]:
    """The formula written out stage by stage; works on (T, hd) or (B, H, T, hd) inputs."""
    if q.dim() == 4 and k.shape[1] != q.shape[1]:
        group = q.shape[1] // k.shape[1]  # query head h reads K/V head h // group
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1)  # (..., T, T)
    scaled_scores = scores / math.sqrt(q.shape[-1]) if scaled else scores
    scaled_scores = scaled_scores if bias is None else scaled_scores + bias  # (..., T, T) e.g. ALiBi
    masked = scaled_scores if mask is None else scaled_scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(masked, dim=-1)  # over keys: each query row sums to 1
    weights = F.dropout(weights, p=dropout, training=training) if dropout else weights
    context = weights @ v  # (..., T, hd)
    return {"scores": scores, "scaled": scaled_scores, "masked": masked, "weights": weights, "context": context}


class AttentionModule(CachedDecoding, nn.Module):
    """One formula; a variant overrides only build_projections/project, allowed, bias, merge (or fast_attention).

    Cached decoding (forward_cached) reuses the same pieces on absolute positions: allowed_at and
    bias_at default to allowed() and bias(), and reachable() lets a rolling cache drop old keys.
    """

    def __init__(
        self,
        config: AttentionConfig,
        *,
        n_heads: int | None = None,
        n_kv_heads: int | None = None,
        head_dim: int | None = None,
    ) -> None:
        super().__init__()
        self.config = config
        self.n_heads = n_heads or config.n_heads
        self.n_kv_heads = n_kv_heads or self.n_heads
        self.head_dim = head_dim or config.d_model // self.n_heads
        self.build_projections()

    # ---- what a variant may override -------------------------------------------------

    def build_projections(self) -> None:
        """Default layout: one fused q|k|v projection and an output projection."""
        d, hd = self.config.d_model, self.head_dim
        self.qkv = nn.Linear(d, (self.n_heads + 2 * self.n_kv_heads) * hd, bias=self.config.bias)
        self.proj = nn.Linear(self.n_heads * hd, d, bias=self.config.bias)

    def project(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """x (B, T, d) -> q (B, H, T, hd), k and v (B, Hkv, T, hd)."""
        H, Hkv, hd = self.n_heads, self.n_kv_heads, self.head_dim
        q, k, v = self.qkv(x).split([H * hd, Hkv * hd, Hkv * hd], dim=-1)
        return split_heads(q, H), split_heads(k, Hkv), split_heads(v, Hkv)

    def allowed(self, T: int, device: torch.device | str | None = None) -> Tensor | None:
        """Which keys each query may see, (T, T) with True = may attend; None = all."""
        return causal_mask(T, device) if self.config.causal else None

    def bias(self, T: int, device: torch.device | str | None = None) -> Tensor | None:
        """A float (H|1, T, T) added to the scaled scores before masking (ALiBi, relative positions); None = none."""
        return None

    def merge(self, context: Tensor) -> Tensor:
        """context (B, H, T, hd) -> (B, T, d_model): concatenate heads, then project."""
        return self.proj(merge_heads(context))

    # ---- the formula -----------------------------------------------------------------

    def forward(self, x: Tensor, key_padding_mask: Tensor | None = None) -> Tensor:
        """Fast path through F.scaled_dot_product_attention; x (B, T, d) -> (B, T, d_out)."""
        self._check_input(x, key_padding_mask)
        q, k, v = self.project(x)  # (B, H, T, hd), (B, Hkv, T, hd) x2
        context = self.fast_attention(q, k, v, key_padding_mask)  # (B, H, T, hd)
        return self._zero_padding(self.merge(context), key_padding_mask)

    def fast_attention(self, q: Tensor, k: Tensor, v: Tensor, key_padding_mask: Tensor | None = None) -> Tensor:
        """The forward kernel, q (B, H, T, hd) -> context (B, H, T, hd).

        A variant whose mask has structure (a band) overrides this, never forward, so input
        checks, projections, merge and padding stay shared.
        """
        T = q.shape[2]
        bias = self.bias(T, q.device)  # (H|1, T, T) float or None
        # plain causal attention lets SDPA build the triangle itself (no (T, T) mask in memory)
        plain_causal = (
            key_padding_mask is None and self.config.causal and self._uses_default_mask() and bias is None
        )
        mask = None if plain_causal else self._mask(T, key_padding_mask, q.device)
        attn_mask = None if mask is None else self._no_empty_rows(mask, key_padding_mask)
        if bias is not None:  # SDPA adds a float mask to the scaled scores: bias where allowed, -inf elsewhere
            attn_mask = bias if attn_mask is None else bias.masked_fill(~attn_mask, float("-inf"))
        return F.scaled_dot_product_attention(
            q, k, v,
            attn_mask=attn_mask,
            is_causal=plain_causal,
            dropout_p=self.config.dropout if self.training else 0.0,
            scale=None if self.config.scaled else 1.0,
            enable_gqa=self.n_kv_heads != self.n_heads,
        )  # (B, H, T, hd)

    def trace(self, x: Tensor, key_padding_mask: Tensor | None = None) -> AttentionTrace:
        """Explicit path: the same result as forward, with every stage kept."""
        self._check_input(x, key_padding_mask)
        B, T, _ = x.shape
        q, k, v = self.project(x)
        mask = self._mask(T, key_padding_mask, x.device)
        if mask is None:
            mask = torch.ones(1, 1, T, T, dtype=torch.bool, device=x.device)
        stages = attend(
            q, k, v,
            mask=self._no_empty_rows(mask, key_padding_mask),
            scaled=self.config.scaled,
            dropout=self.config.dropout,
            training=self.training,
            bias=self.bias(T, x.device),
        )
        if key_padding_mask is not None:  # padding queries: computed, then zeroed
            query_real = key_padding_mask[:, None, :, None]  # (B, 1, T, 1)
            mask = mask & query_real
            stages["weights"] = stages["weights"] * query_real
            stages["context"] = stages["context"] * query_real
        output = self._zero_padding(self.merge(stages["context"]), key_padding_mask)
        return AttentionTrace(q=q, k=k, v=v, mask=mask, output=output, **stages)

    # ---- helpers ---------------------------------------------------------------------

    def _uses_default_mask(self) -> bool:
        """True when allowed() is the stock causal/full mask, so SDPA's is_causal can stand in."""
        return type(self).allowed is AttentionModule.allowed

    def _mask(self, T: int, key_padding_mask: Tensor | None, device: torch.device) -> Tensor | None:
        """allowed(T) joined with padding: (B|1, 1, T, T), or None when every key is visible."""
        allowed = self.allowed(T, device)
        if key_padding_mask is not None:
            return combine_masks(allowed, key_padding_mask)  # (B, 1, T, T)
        return None if allowed is None else allowed[None, None]  # (1, 1, T, T)

    @staticmethod
    def _no_empty_rows(mask: Tensor, key_padding_mask: Tensor | None) -> Tensor:
        """Padding query rows may see everything (then get zeroed), so softmax never meets a row of -inf."""
        if key_padding_mask is None:
            return mask
        return mask | ~key_padding_mask[:, None, :, None]  # (B, 1, T, T)

    @staticmethod
    def _zero_padding(out: Tensor, key_padding_mask: Tensor | None) -> Tensor:
        if key_padding_mask is None:
            return out
        return out * key_padding_mask[..., None]  # (B, T, d) zero rows for padding queries

    def _check_input(self, x: Tensor, key_padding_mask: Tensor | None) -> None:
        if x.dim() != 3 or x.shape[-1] != self.config.d_model:
            raise ValueError(
                f"input has shape {tuple(x.shape)}; attention expects (batch, tokens, d_model={self.config.d_model})"
            )
        if key_padding_mask is not None:
            if key_padding_mask.dtype != torch.bool or key_padding_mask.shape != x.shape[:2]:
                raise ValueError(
                    f"key_padding_mask must be a bool tensor of shape {tuple(x.shape[:2])} with True = real token"
                )


def split_heads(t: Tensor, n_heads: int) -> Tensor:
    """(B, T, n_heads*hd) -> (B, n_heads, T, hd)."""
    B, T, C = t.shape
    return t.view(B, T, n_heads, C // n_heads).transpose(1, 2)


def merge_heads(t: Tensor) -> Tensor:
    """(B, H, T, hd) -> (B, T, H*hd): heads side by side, head h in columns h*hd:(h+1)*hd."""
    B, H, T, hd = t.shape
    return t.transpose(1, 2).reshape(B, T, H * hd)
