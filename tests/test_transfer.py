"""Weight transfer: the transpose nn.Linear needs, its classic mistakes, and PyTorch's own layer as judge."""

import pytest
import torch

from attention_plugins.multi_head import CausalSelfAttention, MultiHeadAttentionWrapper
from attention_plugins.single_head import SelfAttention_v1, SelfAttention_v2
from core import AttentionConfig, ConfigError
from core.masks import padding_mask
from core.transfer import compare, fused_to_multihead_attention, transfer_stacked_to_fused, transfer_v2_to_v1


def pair(seed: int, d_in: int, d_out: int):
    torch.manual_seed(seed)
    return SelfAttention_v2(d_in, d_out), SelfAttention_v1(d_in, d_out), torch.rand(1, 6, d_in)


@pytest.mark.floats
@pytest.mark.parametrize("d_in, d_out", [(3, 2), (4, 4), (2, 5)])
def test_v2_to_v1_gives_equal_outputs(d_in, d_out):
    v2, v1, x = pair(123, d_in, d_out)
    assert not compare(v2, v1, x).equal  # independent random weights differ before the copy
    transfer_v2_to_v1(v2, v1)
    result = compare(v2, v1, x)
    assert result.equal and result.max_abs_diff < 1e-6
    assert result.verdict.startswith("equivalent")
    torch.testing.assert_close(v1.W_query.data, v2.W_query.weight.data.T)


@pytest.mark.floats
def test_no_transpose_with_different_sizes_is_a_shape_error_that_explains_the_transpose():
    v2, v1, _ = pair(123, 3, 2)
    before = v1.W_query.detach().clone()
    with pytest.raises(ConfigError, match=r"\(d_out, d_in\) = \(2, 3\).*\(d_in, d_out\) = \(3, 2\); copy weight.T"):
        transfer_v2_to_v1(v2, v1, mistake="no-transpose")
    assert torch.equal(v1.W_query, before)  # nothing half-copied


@pytest.mark.floats
def test_no_transpose_with_square_weights_is_silently_wrong():
    v2, v1, x = pair(123, 4, 4)
    transfer_v2_to_v1(v2, v1, mistake="no-transpose")
    result = compare(v2, v1, x)
    assert not result.equal and result.max_abs_diff > 1e-3
    assert result.verdict.startswith("NOT equivalent")


def test_swapping_query_and_key_gives_a_different_answer():
    v2, v1, x = pair(123, 3, 2)
    transfer_v2_to_v1(v2, v1, mistake="swap-query-key")
    assert not compare(v2, v1, x).equal


def test_unknown_mistake_and_bias_are_refused():
    v2, v1, _ = pair(0, 3, 2)
    with pytest.raises(ConfigError, match="mistake='typo' is not known"):
        transfer_v2_to_v1(v2, v1, mistake="typo")
    with pytest.raises(ConfigError, match="no bias"):
        transfer_v2_to_v1(SelfAttention_v2(3, 2, qkv_bias=True), v1)


@pytest.mark.parametrize("n_heads, causal, bias", [(1, True, True), (2, True, False), (4, False, True)])
def test_stacked_heads_copy_into_the_fused_layer(n_heads, causal, bias):
    torch.manual_seed(0)
    config = AttentionConfig(d_model=16, n_heads=n_heads, causal=causal, bias=bias)
    stacked, fused = MultiHeadAttentionWrapper(config), CausalSelfAttention.from_config(config)
    x = torch.randn(2, 5, 16)
    assert not compare(stacked, fused, x).equal
    transfer_stacked_to_fused(stacked, fused)
    assert compare(stacked, fused, x).equal


@pytest.mark.floats
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("bias", [True, False])
def test_fused_layer_copied_into_nn_multihead_attention(causal, bias):
    torch.manual_seed(0)
    fused = CausalSelfAttention.from_config(AttentionConfig(d_model=16, n_heads=4, causal=causal, bias=bias))
    torch_layer = fused_to_multihead_attention(fused)
    assert isinstance(torch_layer.mha, torch.nn.MultiheadAttention)
    x = torch.randn(2, 6, 16)
    assert compare(fused, torch_layer, x).equal
    kpm = padding_mask([6, 3], 6)  # True = real token; nn.MultiheadAttention gets the opposite
    result = compare(fused, torch_layer, x, key_padding_mask=kpm)
    assert result.equal, result.max_abs_diff


@pytest.mark.floats
@pytest.mark.parametrize("causal", [True, False])
def test_a_fully_padded_sequence_gives_zero_rows_not_nan_through_nn_multihead_attention(causal):
    torch.manual_seed(0)
    fused = CausalSelfAttention.from_config(AttentionConfig(d_model=16, n_heads=4, causal=causal)).eval()
    torch_layer = fused_to_multihead_attention(fused)
    x = torch.randn(2, 5, 16)
    kpm = padding_mask([5, 0], 5)  # the second sequence is all padding
    with torch.no_grad():  # PyTorch's fast path, which writes NaN rows for it
        out = torch_layer(x, key_padding_mask=kpm)
    assert not out.isnan().any() and torch.equal(out[1], torch.zeros(5, 16))
    result = compare(fused, torch_layer, x, key_padding_mask=kpm)
    assert result.equal, result.max_abs_diff


def test_compare_refuses_different_shapes():
    with pytest.raises(ConfigError, match="different shapes"):
        compare(SelfAttention_v1(3, 2), SelfAttention_v1(3, 4), torch.rand(1, 4, 3))
