"""GQA is multi-head with repeated K/V; the sliding window is a dense-mask SDPA: checked against both."""

import pytest
import torch
import torch.nn.functional as F

from core import AttentionConfig, load_registry
from core.masks import padding_mask

REGISTRY = load_registry(entry_points=False)


@pytest.mark.floats
@pytest.mark.parametrize("n_heads, n_kv", [(4, 1), (4, 2), (4, 4), (8, 2)])
def test_gqa_equals_multi_head_with_repeated_kv(n_heads, n_kv):
    torch.manual_seed(0)
    layer = REGISTRY.build("gqa", AttentionConfig(d_model=32, n_heads=n_heads, options={"n_kv_heads": n_kv}))
    x = torch.randn(2, 9, 32)
    q, k, v = layer.project(x)  # (B, H, T, hd), (B, Hkv, T, hd) x2
    assert k.shape[1] == v.shape[1] == n_kv
    group = n_heads // n_kv
    context = F.scaled_dot_product_attention(
        q, k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1), is_causal=True
    )  # plain multi-head on repeated K/V
    torch.testing.assert_close(layer(x), layer.merge(context))
    torch.testing.assert_close(layer.trace(x).output, layer.merge(context))


def test_query_head_h_reads_kv_head_h_over_group():
    torch.manual_seed(0)
    layer = REGISTRY.build("gqa", AttentionConfig(d_model=32, n_heads=4, options={"n_kv_heads": 2})).eval()
    with torch.no_grad():  # silence K/V head 1 (columns of the value block): only query heads 2 and 3 read it
        hd = layer.head_dim
        v_rows = slice(4 * hd + 2 * hd + hd, 4 * hd + 2 * hd + 2 * hd)
        layer.qkv.weight[v_rows] = 0
        layer.qkv.bias[v_rows] = 0
    context = layer.trace(torch.randn(1, 5, 32)).context  # (1, 4, 5, hd)
    assert [bool((context[0, h] == 0).all()) for h in range(4)] == [False, False, True, True]


def test_gqa_has_fewer_kv_parameters():
    mh = REGISTRY.build("multi-head", AttentionConfig(d_model=32, n_heads=4))
    gqa = REGISTRY.build("gqa", AttentionConfig(d_model=32, n_heads=4, options={"n_kv_heads": 1}))
    assert gqa.qkv.weight.shape == (32 + 2 * 8, 32) and mh.qkv.weight.shape == (96, 32)


@pytest.mark.floats
@pytest.mark.parametrize("window, stride, causal", [(1, 0, True), (3, 0, True), (2, 3, True), (3, 0, False)])
def test_sliding_window_equals_dense_mask_reference(window, stride, causal):
    torch.manual_seed(0)
    T = 11
    layer = REGISTRY.build(
        "sliding-window",
        AttentionConfig(d_model=16, n_heads=2, causal=causal, options={"window": window, "stride": stride}),
    )
    dense = torch.tensor(
        [[(0 <= i - j < window) or (stride > 0 and j <= i and j % stride == 0) for j in range(T)] for i in range(T)]
    )
    if not causal:
        dense = dense | dense.T
    x = torch.randn(2, T, 16)
    q, k, v = layer.project(x)
    reference = layer.merge(F.scaled_dot_product_attention(q, k, v, attn_mask=dense))
    torch.testing.assert_close(layer(x), reference)
    torch.testing.assert_close(layer.trace(x).output, reference)
    assert torch.equal(layer.trace(x).mask[0, 0], dense)


@pytest.mark.floats
def test_sliding_window_with_padding_has_no_nan_even_when_a_window_holds_only_padding():
    torch.manual_seed(0)
    layer = REGISTRY.build("sliding-window", AttentionConfig(d_model=16, n_heads=2, options={"window": 2}))
    x, kpm = torch.randn(1, 8, 16), padding_mask([3], 8)  # queries 5..7 see only padding keys
    out, t = layer(x, key_padding_mask=kpm), layer.trace(x, key_padding_mask=kpm)
    assert not out.isnan().any() and not t.weights.isnan().any()
    assert (out[0, 3:] == 0).all()
    torch.testing.assert_close(out, t.output)
