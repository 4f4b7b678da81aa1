"""Every registered variant is causal, normalised, NaN-free and fast == traced; causal=False sees the future."""

import pytest
import torch
from torch import Tensor

from core import AttentionConfig, AttentionModule, load_registry
from core.masks import padding_mask

REGISTRY = load_registry(entry_points=False)
NAMES = sorted(REGISTRY.variants)
T, D = 7, 16


def build(name: str, **kwargs) -> AttentionModule:
    torch.manual_seed(0)
    options = {"n_kv_heads": 2} if name == "gqa" else {}
    return REGISTRY.build(name, AttentionConfig(d_model=D, n_heads=4, options=options, **kwargs)).eval()


def causality_failures(layer: AttentionModule, x: Tensor) -> list[str]:
    """What an honest causal layer must satisfy, measured from outside (used on good and bad layers)."""
    failures = []
    x = x.clone().requires_grad_(True)
    out = layer(x)  # (1, T, D)
    for i in range(T):  # autograd: output row i must not depend on inputs j > i
        (grad,) = torch.autograd.grad(out[0, i].sum(), x, retain_graph=True)
        if grad[0, i + 1:].abs().sum() != 0:
            failures.append(f"row {i} depends on a later input")
    for p in range(1, T):  # change a later token: earlier rows byte-identical
        changed = x.detach().clone()
        changed[0, p] += 1.0
        with torch.no_grad():
            before, after = layer(x.detach()), layer(changed)
        if not torch.equal(before[0, :p], after[0, :p]):
            failures.append(f"changing token {p} changed an earlier row")
    w = layer.trace(x.detach()).weights
    if w.triu(1).abs().sum() != 0:
        failures.append("weight above the diagonal")
    return failures


@pytest.fixture(params=NAMES)
def name(request) -> str:
    return request.param


def test_built_in_variants_are_registered():
    assert set(NAMES) == {"single-head", "multi-head", "multi-head-stacked", "gqa", "sliding-window"}
    for v in REGISTRY.variants.values():
        assert v.title and v.summary and len(v.notes) > 40 and v.plugin.startswith("attention_plugins.")


@pytest.mark.floats
def test_no_output_depends_on_a_later_input(name):
    assert causality_failures(build(name), torch.randn(1, T, D)) == []


@pytest.mark.floats
def test_weights_rows_sum_to_one_and_upper_triangle_is_exactly_zero(name):
    w = build(name).trace(torch.randn(2, T, D)).weights  # (2, H, T, T)
    torch.testing.assert_close(w.sum(-1), torch.ones_like(w.sum(-1)))
    assert torch.equal(w.triu(1), torch.zeros_like(w))


@pytest.mark.floats
@pytest.mark.parametrize("causal", [True, False])
def test_forward_equals_trace_output(name, causal):
    layer, x = build(name, causal=causal), torch.randn(2, T, D)
    torch.testing.assert_close(layer(x), layer.trace(x).output)
    kpm = padding_mask([T, 3], T)
    torch.testing.assert_close(layer(x, key_padding_mask=kpm), layer.trace(x, key_padding_mask=kpm).output)


@pytest.mark.parametrize("causal", [True, False])
def test_no_nan_with_padding(name, causal):
    layer = build(name, causal=causal)
    x = torch.randn(3, T, D, requires_grad=True)
    kpm = padding_mask([T, 1, 4], T)
    out = layer(x, key_padding_mask=kpm)
    t = layer.trace(x, key_padding_mask=kpm)
    assert not out.isnan().any() and not t.weights.isnan().any() and not t.output.isnan().any()
    assert (out[1, 1:] == 0).all() and (out[2, 4:] == 0).all()
    assert (t.weights[2, :, :4, 4:] == 0).all()
    out.sum().backward()
    assert not x.grad.isnan().any()


@pytest.mark.floats
def test_causal_false_sees_the_future(name):
    layer = build(name, causal=False)
    x = torch.randn(1, T, D)
    changed = x.clone()
    changed[0, 1] += 1.0  # the next token: inside every window
    with torch.no_grad():
        assert not torch.equal(layer(x)[0, 0], layer(changed)[0, 0])
    assert causality_failures(layer, x) != []


class ZeroFillAttention(AttentionModule):
    """The classic mistake: masked scores filled with 0 instead of -inf, so exp(0) leaks weight."""

    def forward(self, x: Tensor, key_padding_mask: Tensor | None = None) -> Tensor:
        return self.trace(x).output

    def trace(self, x, key_padding_mask=None):
        t = super().trace(x)
        keep = t.mask.expand_as(t.scaled)
        t.masked = t.scaled.masked_fill(~keep, 0.0)
        t.weights = torch.softmax(t.masked, dim=-1)
        t.context = t.weights @ t.v
        t.output = self.merge(t.context)
        return t


@pytest.mark.floats
def test_the_zero_fill_mistake_is_caught_by_the_same_check():
    torch.manual_seed(0)
    wrong = ZeroFillAttention(AttentionConfig(d_model=D, n_heads=4))
    failures = causality_failures(wrong, torch.randn(1, T, D))
    assert "weight above the diagonal" in failures
    assert any("depends on a later input" in f for f in failures)


def test_single_head_ignores_n_heads():
    layer = build("single-head")
    assert layer.n_heads == 1 and layer.head_dim == D
    assert layer.trace(torch.randn(1, 3, D)).weights.shape == (1, 1, 3, 3)
