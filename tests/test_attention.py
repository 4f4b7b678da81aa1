"""The one formula: checked against F.scaled_dot_product_attention and the textbook's seed example."""

import math

import pytest
import torch
import torch.nn.functional as F

from attention_plugins.multi_head import CausalSelfAttention
from core import AttentionConfig
from core.attention import attend
from core.masks import causal_mask, padding_mask


@pytest.mark.floats
def test_seed_example_equal_scores_give_uniform_weights_over_the_past():
    q = torch.zeros(3, 4)  # all scores q @ k^T are equal (0)
    k, v = torch.randn(3, 4), torch.randn(3, 4)
    w = attend(q, k, v, mask=causal_mask(3))["weights"]
    expected = torch.tensor([[1, 0, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]])
    torch.testing.assert_close(w, expected)


@pytest.mark.floats
def test_softmax_runs_over_keys_not_queries():
    torch.manual_seed(0)
    q, k, v = torch.randn(5, 4) * 3, torch.randn(5, 4) * 3, torch.randn(5, 4)
    w = attend(q, k, v)["weights"]
    torch.testing.assert_close(w.sum(-1), torch.ones(5))  # each query's row
    assert not torch.allclose(w.sum(-2), torch.ones(5))  # columns are not distributions


@pytest.mark.floats
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("scaled", [True, False])
def test_trace_stages_match_sdpa(causal, scaled):
    torch.manual_seed(1)
    layer = CausalSelfAttention.from_config(AttentionConfig(d_model=16, n_heads=4, causal=causal, scaled=scaled))
    x = torch.randn(2, 6, 16)
    t = layer.trace(x)
    assert t.q.shape == t.k.shape == t.v.shape == (2, 4, 6, 4)
    assert t.scores.shape == t.weights.shape == (2, 4, 6, 6)
    torch.testing.assert_close(t.scores, t.q @ t.k.transpose(-2, -1))
    torch.testing.assert_close(t.scaled, t.scores / (math.sqrt(4) if scaled else 1.0))
    reference = F.scaled_dot_product_attention(t.q, t.k, t.v, is_causal=causal, scale=None if scaled else 1.0)
    torch.testing.assert_close(t.context, reference)
    torch.testing.assert_close(t.output, layer(x))
    if causal:
        assert torch.isinf(t.masked[..., 0, 1:]).all() and (t.masked[..., 0, 1:] < 0).all()


@pytest.mark.floats
def test_padding_query_rows_are_zero_and_nothing_is_nan():
    torch.manual_seed(2)
    layer = CausalSelfAttention(16, 2)
    x = torch.randn(2, 5, 16, requires_grad=True)
    kpm = padding_mask([5, 2], 5)
    out, t = layer(x, key_padding_mask=kpm), layer.trace(x, key_padding_mask=kpm)
    assert not out.isnan().any() and not t.weights.isnan().any()
    assert (out[1, 2:] == 0).all() and (t.weights[1, :, 2:] == 0).all()
    assert (t.weights[1, :, :2, 2:] == 0).all()  # real queries put no weight on padding keys
    torch.testing.assert_close(out, t.output)
    # the real rows are what the unpadded sequence gives
    torch.testing.assert_close(out[1, :2], layer(x[1:, :2])[0])
    out.sum().backward()
    assert not x.grad.isnan().any()


@pytest.mark.floats
def test_dropout_acts_on_weights_in_training_only():
    torch.manual_seed(3)
    layer = CausalSelfAttention.from_config(AttentionConfig(d_model=16, n_heads=2, dropout=0.5))
    x = torch.randn(1, 8, 16)
    layer.eval()
    assert torch.equal(layer(x), layer(x))
    assert torch.allclose(layer.trace(x).weights.sum(-1), torch.ones(1, 2, 8))
    layer.train()
    assert not torch.equal(layer(x), layer(x))
    w = layer.trace(x).weights
    kept = w[w > 0]
    assert (w == 0).any() and kept.numel() > 0  # some weights dropped, the rest rescaled by 1/(1-p)
    assert not torch.allclose(w.sum(-1), torch.ones(1, 2, 8))


def test_wrong_input_shape_is_one_sentence():
    with pytest.raises(ValueError, match=r"expects \(batch, tokens, d_model=16\)"):
        CausalSelfAttention(16, 2)(torch.randn(5, 16))
    with pytest.raises(ValueError, match="True = real token"):
        CausalSelfAttention(16, 2)(torch.randn(1, 5, 16), key_padding_mask=torch.ones(1, 4, dtype=torch.bool))


class DistanceBias(CausalSelfAttention):
    """A float bias on the scores (ALiBi-like), through the bias() extension point only."""

    def bias(self, T, device=None):
        i = torch.arange(T, device=device)
        return -0.7 * (i[:, None] - i[None, :]).abs().float()[None]  # (1, T, T)


@pytest.mark.floats
@pytest.mark.parametrize("causal", [True, False])
def test_bias_is_added_to_the_scaled_scores_on_both_paths(causal):
    torch.manual_seed(4)
    layer = DistanceBias.from_config(AttentionConfig(d_model=16, n_heads=2, causal=causal))
    x, kpm = torch.randn(2, 6, 16), padding_mask([6, 4], 6)
    t = layer.trace(x, key_padding_mask=kpm)
    torch.testing.assert_close(t.scaled, t.scores / 8**0.5 + layer.bias(6))
    allowed = torch.ones(6, 6, dtype=torch.bool).tril() if causal else torch.ones(6, 6, dtype=torch.bool)
    float_mask = layer.bias(6).masked_fill(~allowed, float("-inf"))  # SDPA adds a float mask
    reference = layer.merge(F.scaled_dot_product_attention(t.q, t.k, t.v, attn_mask=float_mask))
    torch.testing.assert_close(layer(x)[0], reference[0])
    torch.testing.assert_close(layer(x, key_padding_mask=kpm), t.output)
    assert not layer(x, key_padding_mask=kpm).isnan().any()
