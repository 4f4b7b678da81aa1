"""The ALiBi plugin, tested the way any plugin author would: with the lab's pytest kit."""

from __future__ import annotations

from importlib import metadata

import attention_lab_alibi
import pytest
import torch
from attention_lab_alibi import ALiBiAttention

from core import AttentionConfig, AttentionModule, ConfigError, load_registry
from core.testing import assert_variant_conforms

pytest_plugins = ["core.testing"]


@pytest.fixture
def lab(plugin_registry):
    """The lab's registry with this plugin and no other third-party plugin around."""
    return plugin_registry(attention_lab_alibi)


@pytest.fixture
def alibi(lab):
    """The variant as the lab registers it."""
    return lab.variants["alibi"]


@pytest.mark.parametrize(
    "config",
    [
        AttentionConfig(),
        AttentionConfig(d_model=32, n_heads=4, options={"slope": 2.0}),
        AttentionConfig(d_model=8, n_heads=1, scaled=False, options={"slope": 0.0}),
    ],
)
def test_alibi_conforms(alibi, config):
    assert_variant_conforms(alibi, config)


@pytest.mark.floats
def test_zero_slope_is_plain_multi_head(lab):
    config = AttentionConfig(options={"slope": 0.0})
    layer, plain = lab.build("alibi", config), AttentionModule(config)
    plain.load_state_dict(layer.state_dict())  # same projections, so the same weights fit
    x = torch.randn(2, 5, 16)
    torch.testing.assert_close(layer(x), plain(x))


def test_identical_tokens_attend_more_to_nearer_ones(lab):
    layer = lab.build("alibi", AttentionConfig(options={"slope": 1.0}))
    x = torch.randn(1, 1, 16).expand(1, 6, 16)  # six copies of one token: only distance differs
    weights = layer.trace(x).weights[0, :, -1]  # (H, T): the last token's row, per head
    assert (weights.diff(dim=-1) > 0).all()  # each step closer earns more attention
    assert weights[0, -1] > weights[1, -1]  # head 0 (steepest slope) looks closest


def test_heads_halve_the_slope():
    layer = ALiBiAttention(AttentionConfig(d_model=16, n_heads=4, options={"slope": 1.0}))
    assert layer.slopes().tolist() == [1.0, 0.5, 0.25, 0.125]
    assert layer.bias(3)[0].tolist() == [[0.0, -1.0, -2.0], [-1.0, 0.0, -1.0], [-2.0, -1.0, 0.0]]


def test_slope_option_is_validated(plugin_registry):
    registry = plugin_registry(attention_lab_alibi)
    with pytest.raises(ConfigError, match="option slope=-1.0 is too small; choose a value from 0 to 8"):
        registry.build("alibi", AttentionConfig(options={"slope": -1.0}))


def test_the_installed_entry_point_reaches_the_registry():
    try:
        dist = metadata.distribution("attention-lab-alibi")
    except metadata.PackageNotFoundError:
        pytest.skip("install the plugin first: pip install -e examples/alibi_plugin")
    assert [ep.value for ep in dist.entry_points if ep.group == "attention_lab"] == ["attention_lab_alibi"]
    registry = load_registry()
    assert registry.variants["alibi"].plugin == "alibi"
    assert registry.plugins["alibi"].label == f"attention-lab-alibi {dist.version}"
