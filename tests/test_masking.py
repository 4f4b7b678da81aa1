"""core.lab.masking: the three ways to mask, and the sqrt(d) experiment, against known facts."""

import math

import pytest
import torch

from core.lab.masking import entropy, sqrt_d_experiment, three_ways

pytestmark = pytest.mark.floats  # every test here compares floats torch computed


def test_neg_inf_and_renormalise_agree_and_zero_fill_leaks():
    scores = torch.randn(6, 6, generator=torch.Generator().manual_seed(0))
    w = three_ways(scores)
    assert w.agree_max_diff < 1e-6
    future = torch.ones(6, 6, dtype=torch.bool).triu(1)
    ref = torch.softmax(scores.masked_fill(future, float("-inf")), -1)  # the textbook way, written out
    assert torch.equal(w.neg_inf, ref)
    assert torch.all(w.neg_inf[future] == 0) and torch.allclose(w.neg_inf.sum(-1), torch.ones(6))
    assert torch.all(w.zero_fill[future] > 0)  # 0 is not "nothing": exp(0) = 1
    leak = w.leak_per_row
    assert leak[-1] == 0 and all(v > 0 for v in leak[:-1])
    assert "leaks" in w.summary


def test_zero_fill_leak_has_the_closed_form():
    # all scores 0: row i keeps i+1 allowed keys but the 0-fill spreads weight over all T
    w = three_ways(torch.zeros(4, 4))
    assert w.leak_per_row == pytest.approx([3 / 4, 2 / 4, 1 / 4, 0.0])
    assert torch.allclose(w.neg_inf[1], torch.tensor([0.5, 0.5, 0, 0]))


def test_entropy_of_uniform_and_one_hot():
    assert entropy(torch.full((8,), 1 / 8)).item() == pytest.approx(math.log(8))
    assert entropy(torch.tensor([1.0, 0, 0])).item() == 0


def test_sqrt_d_unscaled_saturates_scaled_does_not():
    exp = sqrt_d_experiment()
    un, sc = exp.max_weight["unscaled"], exp.max_weight["scaled"]
    assert un[-1] > 0.85 and un[-1] > un[0]  # nearly one-hot at d = 512
    assert max(sc) - min(sc) < 0.1  # flat with scaling
    assert exp.entropy["unscaled"][-1] < 0.5 * exp.entropy["scaled"][-1]
    for d, s_un, s_sc in zip(exp.dims, exp.score_std["unscaled"], exp.score_std["scaled"], strict=True):
        assert s_un == pytest.approx(math.sqrt(d), rel=0.15)  # Var(q·k) = d for unit-variance q, k
        assert s_sc == pytest.approx(1.0, rel=0.15)
    assert exp.uniform_entropy == pytest.approx(math.log(16))
