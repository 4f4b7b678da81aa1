"""Causal linear attention, tested as a plugin author would: the lab's kit, and the paper's RNN view written as a loop."""

from __future__ import annotations

from importlib import metadata

import attention_lab_linear
import pytest
import torch
from attention_lab_linear import LinearAttention, feature

from core import AttentionConfig, load_registry
from core.lab.steps import stage_texts
from core.masks import padding_mask
from core.testing import assert_variant_conforms

pytest_plugins = ["core.testing"]


@pytest.fixture
def lab(plugin_registry):
    """The lab's registry with this plugin and no other third-party plugin around."""
    return plugin_registry(attention_lab_linear)


@pytest.mark.parametrize("config", [AttentionConfig(), AttentionConfig(d_model=32, n_heads=4, scaled=False)])
def test_linear_attention_conforms(lab, config):
    assert_variant_conforms(lab.variants["causal-linear"], config)


def rnn_reference(q, k, v):
    """Eq. 18-20 of Katharopoulos et al. (2020), one token at a time: S += φ(k_i) v_iᵀ, z += φ(k_i)."""
    B, H, T, hd = q.shape
    S, z, out = torch.zeros(B, H, hd, hd), torch.zeros(B, H, hd), []
    for i in range(T):
        fk, fq = feature(k[:, :, i]), feature(q[:, :, i])  # (B, H, hd)
        S = S + fk[..., :, None] * v[:, :, i, None, :]
        z = z + fk
        out.append((fq[..., None, :] @ S)[..., 0, :] / (fq * z).sum(-1, keepdim=True))
    return torch.stack(out, dim=2)  # (B, H, T, hd)


@pytest.mark.floats
def test_forward_is_the_papers_recurrent_form(lab):
    layer = lab.build("causal-linear", AttentionConfig(d_model=16, n_heads=2))
    q, k, v = layer.project(torch.randn(3, 11, 16))
    torch.testing.assert_close(layer.fast_attention(q, k, v), rnn_reference(q, k, v))


@pytest.mark.floats
def test_weights_are_the_normalised_kernel_not_a_softmax(lab):
    layer = lab.build("causal-linear", AttentionConfig())
    tr = layer.trace(torch.randn(2, 6, 16))
    kernel = (feature(tr.q) @ feature(tr.k).transpose(-2, -1)).tril()  # (B, H, T, T) causal
    torch.testing.assert_close(tr.weights, kernel / kernel.sum(-1, keepdim=True))
    assert (tr.weights[tr.mask.expand_as(tr.weights)] > 0).all()  # positive on every allowed key
    assert not torch.allclose(tr.weights, torch.softmax(tr.masked.masked_fill(~tr.mask, float("-inf")), -1))


@pytest.mark.floats
def test_padding_keys_add_nothing_to_the_running_sums(lab):
    layer = lab.build("causal-linear", AttentionConfig())
    x, kpm = torch.randn(2, 7, 16), padding_mask([7, 4], 7)
    out = layer(x, key_padding_mask=kpm)
    torch.testing.assert_close(out[1, :4], layer(x[1:, :4])[0])
    assert (out[1, 4:] == 0).all()


@pytest.mark.floats
def test_the_scaled_setting_changes_nothing_and_the_step_through_says_so(lab):
    variant = lab.variants["causal-linear"]
    assert variant.uses_scaling is False and variant.normalised is True
    x = torch.randn(1, 5, 16)
    on, off = (lab.build("causal-linear", AttentionConfig(scaled=s)) for s in (True, False))
    off.load_state_dict(on.state_dict())
    assert torch.equal(on(x), off(x))
    texts = stage_texts(variant, AttentionConfig())
    assert texts["scores"] == ("kernel", "kernel = φ(Q) · φ(K)ᵀ, φ(x) = elu(x) + 1")
    assert "no softmax" in texts["weights"][1] and texts["q"][1] == "Q = x · W_q  (head 0)"


def test_the_module_is_linear_attention_whatever_the_config_says():
    assert LinearAttention(AttentionConfig(scaled=True)).config.scaled is False


def test_the_installed_entry_point_reaches_the_registry():
    try:
        dist = metadata.distribution("attention-lab-linear")
    except metadata.PackageNotFoundError:
        pytest.skip("install the plugin first: attention-lab install -e examples/linear_plugin")
    assert [ep.value for ep in dist.entry_points if ep.group == "attention_lab"] == ["attention_lab_linear"]
    registry = load_registry()
    assert registry.variants["causal-linear"].plugin == "linear"
