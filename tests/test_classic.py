"""The classic classes reproduce the textbook's printed numbers under the same seeds."""

import pytest
import torch

from attention_plugins.single_head import CausalAttention, SelfAttention_v1, SelfAttention_v2

# "Your journey starts with one step", the textbook's 3-d embeddings.  (6, 3)
INPUTS = torch.tensor(
    [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
     [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]
)


@pytest.mark.floats
def test_self_attention_v1_matches_published_output():
    torch.manual_seed(123)
    out = SelfAttention_v1(3, 2)(INPUTS)
    published = torch.tensor(
        [[0.2996, 0.8053], [0.3061, 0.8210], [0.3058, 0.8203],
         [0.2948, 0.7939], [0.2927, 0.7891], [0.2990, 0.8040]]
    )
    torch.testing.assert_close(out, published, atol=1e-4, rtol=0)


@pytest.mark.floats
def test_self_attention_v2_matches_published_output():
    torch.manual_seed(789)
    out = SelfAttention_v2(3, 2)(INPUTS)
    published = torch.tensor(
        [[-0.0739, 0.0713], [-0.0748, 0.0703], [-0.0749, 0.0702],
         [-0.0760, 0.0685], [-0.0763, 0.0679], [-0.0754, 0.0693]]
    )
    torch.testing.assert_close(out, published, atol=1e-4, rtol=0)


@pytest.mark.floats
def test_causal_attention_matches_published_output():
    torch.manual_seed(123)
    out = CausalAttention(3, 2)(torch.stack((INPUTS, INPUTS)))  # (2, 6, 2)
    row = torch.tensor(
        [[-0.4519, 0.2216], [-0.5874, 0.0058], [-0.6300, -0.0632],
         [-0.5675, -0.0843], [-0.5526, -0.0981], [-0.5299, -0.1081]]
    )
    torch.testing.assert_close(out, torch.stack((row, row)), atol=1e-4, rtol=0)


def test_parameters_are_created_in_textbook_order_and_layout():
    v1, v2 = SelfAttention_v1(3, 2), SelfAttention_v2(3, 2)
    assert [n for n, _ in v1.named_parameters()] == ["W_query", "W_key", "W_value"]
    assert all(isinstance(p, torch.nn.Parameter) and p.shape == (3, 2) for p in v1.parameters())
    assert [n for n, _ in v2.named_parameters()] == ["W_query.weight", "W_key.weight", "W_value.weight"]
    assert v2.W_query.weight.shape == (2, 3)  # nn.Linear stores (d_out, d_in)
    assert SelfAttention_v2(3, 2, qkv_bias=True).W_key.bias.shape == (2,)
