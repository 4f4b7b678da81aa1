"""The banded sliding-window fast path equals the dense reference and never builds a (T, T) mask."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import core.fast_paths as fast_paths
from core import AttentionConfig, load_registry
from core.attention import sdpa
from core.fast_paths import banded_attention, score_entries
from core.masks import padding_mask, sliding_window_mask

ATOL = 1e-5


def dense_reference(q, k, v, window, stride, causal, kpm=None, scale=None):
    """SDPA with the dense band built straight from core.masks (not from the banded path)."""
    T = q.shape[2]
    band = sliding_window_mask(T, window, stride)  # (T, T)
    band = band if causal else band | band.T
    mask = band[None, None]
    if kpm is not None:
        mask = mask & kpm[:, None, None, :] | ~kpm[:, None, :, None]  # padding rows see all
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)


def qkv(B=2, H=3, T=50, hd=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(B, H, T, hd, generator=g) for _ in range(3)]


@pytest.mark.floats
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("window,stride,block", [(1, 0, 4), (3, 0, 4), (5, 0, 7), (4, 6, 4), (2, 1, 3), (7, 5, 16)])
def test_banded_equals_dense_band(window, stride, block, causal):
    q, k, v = qkv(T=50)
    got = banded_attention(q, k, v, window, stride=stride, causal=causal, block=block)
    want = dense_reference(q, k, v, window, stride, causal)
    assert got.shape == want.shape
    assert torch.allclose(got, want, atol=ATOL)


@pytest.mark.floats
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("stride", [0, 4])
def test_banded_with_key_padding_matches_on_real_rows_and_stays_finite(causal, stride):
    q, k, v = qkv(B=3, T=40)
    kpm = padding_mask([40, 23, 1], 40)  # (3, 40) True = real token
    got = banded_attention(q, k, v, 6, stride=stride, causal=causal, key_padding_mask=kpm, block=5)
    want = dense_reference(q, k, v, 6, stride, causal, kpm)
    real = kpm[:, None, :, None]  # (B, 1, T, 1)
    assert torch.isfinite(got).all()
    assert torch.allclose(got * real, want * real, atol=ATOL)


@pytest.mark.floats
def test_unscaled_and_short_sequence_fallback_agree_with_reference():
    q, k, v = qkv(T=9)
    for block in (2, 32):  # 32: the band covers the square, so the dense fallback runs
        unscaled = lambda q, k, v, mask: sdpa(q, k, v, mask, scaled=False)  # noqa: E731
        got = banded_attention(q, k, v, 3, stride=2, formula=unscaled, block=block)
        assert torch.allclose(got, dense_reference(q, k, v, 3, 2, True, scale=1.0), atol=ATOL)


@pytest.mark.floats
def test_gradients_match_the_dense_reference():
    q, k, v = (t.requires_grad_() for t in qkv(B=1, T=30))
    banded_attention(q, k, v, 4, stride=3, block=4).square().sum().backward()
    got = [t.grad.clone() for t in (q, k, v)]
    for t in (q, k, v):
        t.grad = None
    dense_reference(q, k, v, 4, 3, True).square().sum().backward()
    assert all(torch.allclose(a, t.grad, atol=1e-4) for a, t in zip(got, (q, k, v), strict=True))


def test_no_mask_is_t_by_t(monkeypatch):
    """Every mask SDPA sees on the banded path has far fewer key columns than T."""
    seen, sdpa = [], F.scaled_dot_product_attention

    def spy(q, k, v, attn_mask=None, **kw):
        seen.append(tuple(attn_mask.shape))
        return sdpa(q, k, v, attn_mask=attn_mask, **kw)

    monkeypatch.setattr(fast_paths.F, "scaled_dot_product_attention", spy)
    T, window = 1024, 16
    q, k, v = qkv(B=1, H=2, T=T)
    banded_attention(q, k, v, window)
    assert seen and all(shape[-1] <= fast_paths.BLOCK + window and shape[-2] <= fast_paths.BLOCK for shape in seen)


def test_score_entries_grow_as_t_times_window():
    assert score_entries(8192, 256) == 8192 * (fast_paths.BLOCK + 255)
    assert score_entries(8192, 256) < 8192 * 8192 / 25
    assert score_entries(16, 8) == 16 * 16  # short: the band is the square


# ---- the module: forward is the banded path, trace the dense one, and they agree -------------


def build(window=4, stride=0, causal=True, scaled=True, dropout=0.0, d_model=16, n_heads=2):
    config = AttentionConfig(d_model=d_model, n_heads=n_heads, causal=causal, scaled=scaled,
                             dropout=dropout, options={"window": window, "stride": stride})
    torch.manual_seed(0)
    return load_registry(entry_points=False).build("sliding-window", config).eval()


@pytest.mark.floats
@pytest.mark.parametrize("T", [64, 90])  # a whole number of blocks, and a ragged last block
@pytest.mark.parametrize("causal,stride,scaled", [(True, 0, True), (True, 5, False), (False, 0, True), (False, 7, True)])
def test_forward_equals_trace_output_on_the_banded_path(causal, stride, scaled, T):
    layer = build(window=6, stride=stride, causal=causal, scaled=scaled)
    x = torch.randn(2, T, 16)  # T > BLOCK + window - 1: the banded path runs
    kpm = padding_mask([T, 61], T)
    with torch.no_grad():
        for mask in (None, kpm):
            out = layer(x, key_padding_mask=mask)
            assert torch.isfinite(out).all()
            assert torch.allclose(out, layer.trace(x, key_padding_mask=mask).output, atol=ATOL)
    assert (out[1, 61:] == 0).all()  # padding query rows are zeros, never NaN


@pytest.mark.floats
def test_forward_stays_causal():
    layer = build(window=8, stride=10)
    x = torch.randn(1, 120, 16)
    y = x.clone()
    y[:, 70:] = torch.randn(1, 50, 16)  # change only the future of position 69
    with torch.no_grad():
        assert torch.allclose(layer(x)[:, :70], layer(y)[:, :70], atol=ATOL)
        assert not torch.allclose(layer(x)[:, 70:], layer(y)[:, 70:], atol=ATOL)


@pytest.mark.floats
def test_dropout_only_in_training():
    layer = build(window=5, dropout=0.5)
    x = torch.randn(1, 80, 16)
    with torch.no_grad():
        eval_out = layer(x)
        assert torch.allclose(eval_out, layer.trace(x).output, atol=ATOL)
        layer.train()
        train_out = layer(x)
    assert torch.isfinite(train_out).all()
    assert not torch.allclose(train_out, eval_out, atol=1e-3)
