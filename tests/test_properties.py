"""Property tests: random sizes, configs and paddings never give NaN or a non-causal weight."""

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import AttentionConfig, load_registry
from core.config import divisors
from core.masks import padding_mask

pytestmark = pytest.mark.floats  # every test here compares floats torch computed

REGISTRY = load_registry(entry_points=False)


@st.composite
def cases(draw):
    name = draw(st.sampled_from(sorted(REGISTRY.variants)))
    d_model = draw(st.sampled_from([1, 2, 4, 6, 8, 12, 16, 32]))
    n_heads = draw(st.sampled_from(divisors(d_model)))
    options = {}
    if name == "gqa":
        options["n_kv_heads"] = draw(st.sampled_from(divisors(n_heads)))
    if name == "sliding-window":
        options = {"window": draw(st.integers(1, 6)), "stride": draw(st.integers(0, 4))}
    config = AttentionConfig(
        d_model=d_model, n_heads=n_heads, causal=draw(st.booleans()), scaled=draw(st.booleans()),
        bias=draw(st.booleans()), options=options,
    )
    B, T = draw(st.integers(1, 3)), draw(st.integers(1, 12))
    lengths = draw(st.lists(st.integers(1, T), min_size=B, max_size=B))
    scale = draw(st.sampled_from([0.01, 1.0, 30.0]))  # large inputs push softmax to its limits
    return name, config, B, T, lengths, scale, draw(st.integers(0, 2**16))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_never_nan_never_a_non_causal_weight(case):
    name, config, B, T, lengths, scale, seed = case
    torch.manual_seed(seed)
    layer = REGISTRY.build(name, config).eval()
    x = torch.randn(B, T, config.d_model) * scale
    kpm = padding_mask(lengths, T)
    with torch.no_grad():
        out, t = layer(x, key_padding_mask=kpm), layer.trace(x, key_padding_mask=kpm)
    assert not out.isnan().any() and not t.weights.isnan().any() and not t.output.isnan().any()
    real_rows = t.weights.sum(-1)[kpm[:, None, :].expand_as(t.weights.sum(-1))]
    torch.testing.assert_close(real_rows, torch.ones_like(real_rows))
    assert (t.weights[~t.mask.expand_as(t.weights)] == 0).all()  # nothing outside the mask
    if config.causal:
        assert torch.equal(t.weights.triu(1), torch.zeros_like(t.weights))
    torch.testing.assert_close(out, t.output, atol=1e-4 * max(scale, 1.0) ** 2, rtol=1e-4)
