"""Dropout on the weights: what the lesson shows is torch's own training-mode dropout."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core.lab.dropout import dropped

pytestmark = pytest.mark.floats  # every test here compares floats torch computed


def _weights(T: int = 32) -> np.ndarray:
    w = np.tril(np.random.default_rng(0).random((T, T))) + np.eye(T)
    return w / w.sum(axis=-1, keepdims=True)  # (T, T) causal rows summing to 1


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_survivors_are_scaled_by_one_over_one_minus_p_and_the_rest_are_zero(p):
    w = _weights()
    d = dropped(w, p, seed=123)
    kept = d.weights != 0
    np.testing.assert_allclose(d.weights[kept], (w / (1 - p))[kept], rtol=1e-6)
    assert d.links == int((w > 0).sum()) and d.zeroed == int(((w > 0) & ~kept).sum())
    assert abs(d.zeroed / d.links - p) < 0.08  # about p of the links dropped (528 of them)
    assert not np.allclose(d.row_sums, 1.0)  # rows no longer sum to 1: dropout rescales, it does not renormalise


def test_it_is_torchs_dropout_under_the_seed_and_leaves_the_global_rng_alone():
    w = _weights(8)
    torch.manual_seed(7)
    before = torch.rand(3)
    torch.manual_seed(7)
    d = dropped(w, 0.5, seed=123)
    assert torch.equal(torch.rand(3), before)  # the caller's random stream is untouched
    torch.manual_seed(123)
    ref = torch.nn.Dropout(0.5).train()(torch.as_tensor(w, dtype=torch.float32))
    np.testing.assert_allclose(d.weights, ref.numpy(), rtol=1e-6)
    assert np.array_equal(dropped(w, 0.5, seed=123).weights, d.weights)  # the same seed, the same links
