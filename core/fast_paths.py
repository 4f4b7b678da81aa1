"""The formula's fast paths: torch's fused kernel (sdpa), the sliding window in blocks, and the cached step.

core.attention holds the module and the explicit formula; AttentionModule mixes in CachedDecoding and sends
every path through its one formula(), so the kernels here compute what trace() shows (the tests check it).

Banded: queries in blocks of BLOCK rows, each reading only the keys its band can reach (plus the strided
global columns), all blocks in one call of the formula with a small bool mask each (True = may attend):
memory O(T·window), never a (T, T) mask; equal to the dense sliding_window_mask (tests/test_banded.py).

Cached: one layer's KV cache grows in place (storage doubles when full) and remembers each kept key's
absolute position: a mask or a bias (ALiBi) needs real distances, and a rolling cache (the sliding window)
drops keys no later query can reach, so slot != position. A new token costs one row, not the square.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from .config import ConfigError
from .masks import combine_masks, sliding_window_mask

NEG_INF = float("-inf")  # what a forbidden score becomes before softmax; softmax turns it into weight 0


def sdpa(
    q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None, bias: Tensor | None = None,
    *, scaled: bool = True, dropout: float = 0.0, is_causal: bool = False,
) -> Tensor:
    """The stock formula in torch's fused kernel; the one place a bias and a bool mask become SDPA's float mask."""
    attn_mask = mask
    if bias is not None:  # SDPA adds a float mask to the scaled scores: bias where allowed, -inf elsewhere
        attn_mask = bias if mask is None else bias.masked_fill(~mask, NEG_INF)
    return F.scaled_dot_product_attention(
        q, k, v,
        attn_mask=attn_mask,
        is_causal=is_causal,
        dropout_p=dropout,
        scale=None if scaled else 1.0,
        enable_gqa=k.shape[1] != q.shape[1],
    )  # (B, H, Tq, hd)


# ---- banded: the sliding window in query blocks ---------------------------------------------

Formula = Callable[[Tensor, Tensor, Tensor, Tensor], Tensor]  # (q, k, v, bool mask) -> context, e.g. module.formula

# Block b holds queries [b·BLOCK, (b+1)·BLOCK) and reads keys [start - (window-1), end + right), right = 0 when
# causal, window-1 when not. Queries per block: on a 2-core CPU small blocks waste the least work (T·(BLOCK+window)
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


# ---- the banded path's pieces -------------------------------------------------------------


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


# ---- cached: one layer's KV cache and the cached step ------------------------------------------


@dataclass(eq=False)
class KVCache:
    """Keys and values of the kept tokens, their absolute positions, and how many tokens were seen."""

    k: Tensor | None = None  # (B, Hkv, capacity, hd) storage; slots [:size] hold the kept keys
    v: Tensor | None = None  # (B, Hkv, capacity, hd)
    slot_positions: Tensor | None = None  # (capacity,) long: absolute position of each slot's token
    size: int = 0  # slots in use
    length: int = 0  # tokens seen so far = the absolute position of the next token
    reserve: int = 0  # growth stops doubling here (generate knows its final length); 0 = just double

    @property
    def keys(self) -> Tensor:
        """The kept keys, (B, Hkv, size, hd): a view, no copy."""
        return self.k[:, :, : self.size]

    @property
    def values(self) -> Tensor:
        """The kept values, (B, Hkv, size, hd)."""
        return self.v[:, :, : self.size]

    @property
    def positions(self) -> Tensor:
        """Absolute positions of the kept keys, (size,) long, oldest first."""
        return self.slot_positions[: self.size]

    @property
    def nbytes(self) -> int:
        """Bytes the kept keys and values occupy (not the spare capacity)."""
        if self.k is None:
            return 0
        return 2 * self.keys.numel() * self.k.element_size()

    def append(self, k: Tensor, v: Tensor) -> None:
        """Add the next tokens' keys and values, k and v (B, Hkv, Tn, hd), at positions length .. length+Tn-1."""
        n = k.shape[2]
        if self.k is None or self.size + n > self.k.shape[2]:
            self._grow(k, self.size + n)
        self.k[:, :, self.size : self.size + n] = k
        self.v[:, :, self.size : self.size + n] = v
        self.slot_positions[self.size : self.size + n] = torch.arange(
            self.length, self.length + n, device=self.slot_positions.device
        )
        self.size += n
        self.length += n

    def keep(self, kept: Tensor | None) -> None:
        """Drop the keys whose entry in kept (size,) bool is False; order is preserved. None keeps all."""
        if kept is None or bool(kept.all()):
            return
        idx = kept.nonzero().squeeze(1)  # (n_kept,)
        n = idx.numel()
        self.k[:, :, :n] = self.k[:, :, idx]  # advanced indexing copies first: no overlap hazard
        self.v[:, :, :n] = self.v[:, :, idx]
        self.slot_positions[:n] = self.slot_positions[idx]
        self.size = n

    def _grow(self, like: Tensor, needed: int) -> None:
        """New storage of at least `needed` slots (double the old, capped by the reserve); kept rows copied over."""
        B, H, _, hd = like.shape
        old = 0 if self.k is None else self.k.shape[2]
        capacity = max(needed, min(2 * old, self.reserve) if self.reserve else 2 * old)
        k = like.new_empty(B, H, capacity, hd)
        v = like.new_empty(B, H, capacity, hd)
        pos = torch.zeros(capacity, dtype=torch.long, device=like.device)
        if self.k is not None:
            k[:, :, : self.size] = self.keys
            v[:, :, : self.size] = self.values
            pos[: self.size] = self.positions
        self.k, self.v, self.slot_positions = k, v, pos


# Why a KV cache cannot stand in for the full recompute; each completes "<class> cannot use a KV cache: ...".
UNCACHEABLE = {
    "causal": "it attends to later tokens (causal=False), so every new token changes what the earlier ones computed",
    "override": "it overrides {method}(), so the cache cannot know what it computes; "
                "declare its cached path with allowed_at() or cached_attention()",
    "kernel": "it overrides fast_attention(), and the cached steps (formula() on its score, bias, fill and "
              "normalise) differ from it by {diff:.2g}; make fast_attention compute that formula, or declare "
              "the cached path with cached_attention()",
    "grows": "its {method}() for earlier tokens changes as T grows ({method}({n})[:{m}, :{m}] != {method}({m})), "
             "so the rows already cached would change with every new token",
    "probe": "its output with a cache differs from its full recompute by {diff:.2g} "
             "(does project() read positions, or reachable() drop a key still in view?)",
}
OWN_CACHED_PATH = ("forward_cached", "cached_attention", "allowed_at")  # overriding one declares a cached path
HIDES_FORMULA = ("forward", "trace")  # overriding one (alone) hides what the layer computes; fast_attention is probed


class CachedDecoding:
    """AttentionModule's cached path: the same formula, one new row at a time, on absolute positions.

    A variant overrides allowed_at/bias_at only to make them cheaper than cutting allowed()/bias(),
    and reachable() to let the cache roll (forget keys no later query can see).
    """

    # ---- what a variant may override ----------------------------------------------------

    def allowed_at(self, q_pos: Tensor, k_pos: Tensor, device: torch.device | str | None = None) -> Tensor | None:
        """allowed() on absolute positions q_pos (Tq,), k_pos (Tk,): (Tq, Tk) bool, True = may attend; None = all."""
        if self._uses_default_mask():
            return k_pos[None, :] <= q_pos[:, None] if self.config.causal else None
        allowed = self.allowed(_span(q_pos, k_pos), device)  # (n, n): the variant's own mask, cut to the pairs asked
        return None if allowed is None else allowed[q_pos[:, None], k_pos[None, :]]

    def bias_at(self, q_pos: Tensor, k_pos: Tensor, device: torch.device | str | None = None) -> Tensor | None:
        """bias() on absolute positions: (H|1, Tq, Tk) float or None; distances stay true in a rolling cache."""
        if not _overrides(self, "bias"):
            return None
        bias = self.bias(_span(q_pos, k_pos), device)  # (H|1, n, n)
        return None if bias is None else bias[:, q_pos[:, None], k_pos[None, :]]

    def reachable(self, k_pos: Tensor, next_pos: int) -> Tensor | None:
        """Which cached keys (positions k_pos (S,)) a query at next_pos or later may still see; None = all."""
        return None

    def cached_attention(self, q: Tensor, k: Tensor, v: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tensor:
        """One cached step's kernel: q (B, H, Tq, hd) at q_pos over kept k, v (B, Hkv, S, hd) at k_pos -> (B, H, Tq, hd)."""
        mask = self.allowed_at(q_pos, k_pos, q.device)  # (Tq, S) bool or None
        if mask is not None and q.shape[2] == 1 and bool(mask.all()):
            mask = None  # one new token that may see every kept key: no mask at all
        bias = self.bias_at(q_pos, k_pos, q.device)  # (H|1, Tq, S) float or None
        return self.formula(q, k, v, mask, bias)  # (B, H, Tq, hd)

    # ---- the cached path ----------------------------------------------------------------

    def forward_cached(self, x: Tensor, cache: KVCache) -> Tensor:
        """The next Tn tokens x (B, Tn, d), after the cache's tokens -> (B, Tn, d_out); the cache grows in place.

        Row for row equal to forward() on the whole sequence. The first call (empty cache) runs the
        prompt through fast_attention exactly as forward does; later calls attend over the kept keys.
        """
        reason = self.cache_blocker()
        if reason is not None:
            raise ConfigError(f"{type(self).__name__} cannot use a KV cache: {reason}")
        self._check_input(x, None)
        q, k, v = self.project(x)  # (B, H, Tn, hd), (B, Hkv, Tn, hd) x2
        start = cache.length
        cache.append(k, v)
        if start == 0:
            context = self.fast_attention(q, k, v)  # (B, H, Tn, hd)
        else:
            q_pos = torch.arange(start, cache.length, device=x.device)  # (Tn,)
            context = self.cached_attention(q, cache.keys, cache.values, q_pos, cache.positions)  # (B, H, Tn, hd)
        cache.keep(self.reachable(cache.positions, cache.length))  # a rolling cache forgets what nobody can see
        return self.merge(context)

    def cache_blocker(self) -> str | None:
        """Why a KV cache cannot reproduce this layer, as one sentence; None when it can (probed once per module)."""
        if not self.config.causal:
            return UNCACHEABLE["causal"]
        if not any(_overrides(self, m) for m in OWN_CACHED_PATH):
            for method in HIDES_FORMULA:
                if _overrides(self, method):
                    return UNCACHEABLE["override"].format(method=method)
        if "_cache_probe_result" not in self.__dict__:
            self._cache_probe_result = None  # the probe itself runs the cached path
            self._cache_probe_result = self._past_changes() or self._cache_probe()
        return self._cache_probe_result

    @torch.no_grad()
    def _past_changes(self, n: int = 6) -> str | None:
        """Why earlier rows would change as T grows (a bias like -log T): allowed() or bias() not prefix-stable."""
        for method, own in (("allowed", "allowed_at"), ("bias", "bias_at")):
            if not _overrides(self, method) or _overrides(self, own):
                continue
            whole = getattr(self, method)(n)  # (n, n) bool or (H|1, n, n) float, or None
            for m in range(1, n):
                part = getattr(self, method)(m)
                if (whole is None) != (part is None):
                    return UNCACHEABLE["grows"].format(method=method, m=m, n=n)
                if whole is not None and not _same(whole[..., :m, :m], part):
                    return UNCACHEABLE["grows"].format(method=method, m=m, n=n)
        return None

    @torch.no_grad()
    def _cache_probe(self) -> str | None:
        """Trust nothing: six random tokens, whole and in cached pieces; a projection that reads positions differs."""
        weight = next(self.parameters(), None)
        if weight is not None and weight.is_meta:
            return None  # built for its shapes only (model_stats): nothing is computed
        dtype = weight.dtype if weight is not None else torch.float32
        x = torch.randn(1, 6, self.config.d_model, generator=torch.Generator().manual_seed(0))
        x = x.to(device=None if weight is None else weight.device, dtype=dtype)  # (1, 6, d)
        was_training = self.training
        try:
            self.eval()
            full = self(x)  # (1, 6, d_out)
            cache = KVCache()
            pieces = [self.forward_cached(x[:, a:b], cache) for a, b in ((0, 2), (2, 3), (3, 5), (5, 6))]
        finally:
            self.train(was_training)
        diff = (torch.cat(pieces, dim=1) - full).abs().max().item()
        tolerance = torch.finfo(dtype).eps ** 0.5 * max(1.0, full.abs().max().item())
        if diff <= tolerance:
            return None
        own_kernel = _overrides(self, "fast_attention") and not any(_overrides(self, m) for m in OWN_CACHED_PATH)
        return UNCACHEABLE["kernel" if own_kernel else "probe"].format(diff=diff)


def _overrides(module: object, method: str) -> bool:
    """True when the module's class replaces the stock `method` of AttentionModule (the class that mixes us in)."""
    stock = next(c for c in type(module).__mro__ if CachedDecoding in c.__bases__)  # AttentionModule
    return getattr(type(module), method) is not getattr(stock, method)


def _same(a: Tensor, b: Tensor) -> bool:
    """Equal masks, or biases equal to float rounding (a bias computed for more tokens may round differently)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return torch.equal(a, b) if a.dtype == torch.bool else torch.allclose(a, b, atol=1e-6, rtol=1e-5)


def _span(q_pos: Tensor, k_pos: Tensor) -> int:
    """How many positions a square allowed()/bias() must cover to hold every (query, key) pair asked."""
    return int(max(q_pos.max(), k_pos.max() if k_pos.numel() else 0)) + 1
