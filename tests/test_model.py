"""The GPT over any variant: exact GPT-2 sizes, causality end to end, clear errors."""

from __future__ import annotations

import pytest
import torch

from core import AttentionModule, Variant, hookimpl, load_registry
from core.config import ConfigError
from core.model import GPT, PRESETS, GPTConfig, count_params

PUBLISHED = {
    "gpt2-small": 124_439_808,
    "gpt2-medium": 354_823_168,
    "gpt2-large": 774_030_080,
    "gpt2-xl": 1_557_611_200,
}


@pytest.mark.parametrize("name", PUBLISHED)
def test_presets_match_the_published_gpt2_parameter_counts(name):
    assert count_params(PRESETS[name]) == PUBLISHED[name]  # built on the meta device: no memory


def test_tied_head_counts_once_and_untying_adds_one_vocab_by_d_matrix():
    tied = GPTConfig(vocab_size=50, context_length=8, d_model=16, n_heads=2, n_layers=1)
    untied = GPTConfig(**{**tied.to_dict(), "tie_weights": False})
    model = GPT(tied)
    assert model.lm_head.weight is model.wte.weight
    assert count_params(untied) - count_params(tied) == 50 * 16


def _small(variant: str, **kw) -> GPTConfig:
    return GPTConfig(vocab_size=30, context_length=10, d_model=16, n_heads=4, n_layers=2, variant=variant, **kw)


@pytest.mark.floats
@pytest.mark.parametrize("variant", sorted(load_registry().variants))
def test_whole_gpt_is_causal_with_every_variant(variant):
    torch.manual_seed(0)
    model = GPT(_small(variant)).eval()
    idx = torch.randint(0, 30, (2, 10))
    for k in (3, 9):  # change the token at position k: logits before k must not move at all
        changed = idx.clone()
        changed[:, k] = (changed[:, k] + 1) % 30
        with torch.no_grad():
            a, b = model(idx), model(changed)
        assert torch.equal(a[:, :k], b[:, :k]), f"{variant}: position {k} leaked into earlier logits"
        assert not torch.equal(a[:, k:], b[:, k:])


@pytest.mark.floats
def test_a_mask_free_model_does_leak_the_future():
    torch.manual_seed(0)
    model = GPT(_small("multi-head", causal=False)).eval()
    idx = torch.randint(0, 30, (1, 10))
    changed = idx.clone()
    changed[0, 9] = (changed[0, 9] + 1) % 30
    with torch.no_grad():
        assert not torch.equal(model(idx)[:, :9], model(changed)[:, :9])


def test_input_longer_than_the_context_names_the_limit():
    model = GPT(_small("multi-head"))
    with pytest.raises(ValueError, match="context_length is 10"):
        model(torch.zeros(1, 11, dtype=torch.long))


def test_bad_config_is_one_clear_error():
    with pytest.raises(ConfigError, match="n_layers"):
        GPTConfig(vocab_size=30, context_length=10, d_model=16, n_heads=4, n_layers=0)
    with pytest.raises(ConfigError, match="n_heads=3"):
        GPT(GPTConfig(vocab_size=30, context_length=10, d_model=16, n_heads=3, n_layers=1))
    with pytest.raises(ConfigError, match="not registered"):
        GPT(_small("no-such-variant"))


@pytest.mark.floats
def test_trace_gives_every_layer_and_head_as_causal_probability_rows():
    torch.manual_seed(0)
    model = GPT(_small("gqa", options={"n_kv_heads": 2})).eval()
    w = model.trace(torch.randint(0, 30, (2, 7)))
    assert w.shape == (2, 2, 4, 7, 7)  # (layers, B, H, T, T)
    assert torch.allclose(w.sum(-1), torch.ones(2, 2, 4, 7))
    assert torch.all(w.triu(1) == 0)


class _HalfWidthHeads(AttentionModule):
    """A third-party variant: heads half as wide as usual."""

    def __init__(self, config):
        super().__init__(config, head_dim=config.head_dim // 2)


class _Plugin:
    @hookimpl
    def register_attention_variants(self, register):
        register(Variant(name="half-width", title="Half width", summary="narrow heads", build=_HalfWidthHeads))


@pytest.mark.floats
def test_a_third_party_variant_builds_a_whole_causal_gpt():
    registry = load_registry(entry_points=False, plugins=[_Plugin()])
    torch.manual_seed(0)
    model = GPT(_small("half-width"), registry=registry).eval()
    assert isinstance(model.blocks[0].attn, _HalfWidthHeads)
    idx = torch.randint(0, 30, (1, 10))
    changed = idx.clone()
    changed[0, 5] = (changed[0, 5] + 1) % 30
    with torch.no_grad():
        assert torch.equal(model(idx)[:, :5], model(changed)[:, :5])


@pytest.mark.kernel_free
def test_model_tab_breaks_the_count_down_and_shows_what_gqa_saves(client):
    chart, parts, compare, summary, payload = client.predict("gpt2-small", "gqa", 4, 256, api_name="/model_size")
    cache = chart["panels"][1]["series"][0]["y"]
    assert cache[0] == pytest.approx(3 * cache[1])  # the chart draws what GQA saves: 12 K/V heads -> 4
    assert payload["total"] == 124_439_808 - 12 * 2 * (12 - 4) * 64 * (768 + 1)  # K and V lose 8 heads per layer
    assert payload["total"] == sum(payload[p] for p in ("embeddings", "attention", "mlp", "norms"))
    assert payload["kv_bytes_per_token"] * 3 == payload["reference_multi_head"]["kv_bytes_per_token"]
    assert "gpt2-small" in summary and "gqa" in summary
