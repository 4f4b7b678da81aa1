"""Interventions: the edited forward pass is the model's own, ablations do what they say, the view is data."""

from __future__ import annotations

import copy
import json

import pytest
import torch

from core.lab.ablate import Ablation, edited_logits
from core.model import GPT, GPTConfig


def small(variant="multi-head", **options):
    torch.manual_seed(0)
    return GPT(GPTConfig(vocab_size=30, context_length=16, d_model=16, n_heads=4, n_layers=2, variant=variant,
                         options=options)).eval()


@pytest.mark.floats
@pytest.mark.parametrize("variant,options", [("multi-head", {}), ("gqa", {"n_kv_heads": 2})])
def test_nothing_edited_is_the_models_own_forward(variant, options):
    model = small(variant, **options)
    idx = torch.randint(0, 30, (3, 12), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        assert torch.allclose(edited_logits(model, idx), model(idx), atol=1e-5)


def _with_head_replaced(model, layer, head, replace):
    """An independent reference: hooks on a copy's output projection replace the head's columns."""
    ref = copy.deepcopy(model)
    attn = ref.blocks[layer].attn
    hd = attn.head_dim
    seen = {}

    def keep_v(_, __, out):
        seen["v"] = out[..., 2 * attn.n_heads * hd + head * hd: 2 * attn.n_heads * hd + (head + 1) * hd]  # (B, T, hd)

    def pre(_, args):
        (x,) = args
        x = x.clone()
        x[..., head * hd:(head + 1) * hd] = replace(seen["v"])
        return (x,)

    attn.qkv.register_forward_hook(keep_v)
    attn.proj.register_forward_pre_hook(pre)
    return ref


@pytest.mark.floats
def test_zero_ablation_zeroes_the_heads_columns_before_the_output_projection():
    model = small()
    idx = torch.randint(0, 30, (2, 10), generator=torch.Generator().manual_seed(2))
    ref = _with_head_replaced(model, 1, 2, torch.zeros_like)
    with torch.no_grad():
        assert torch.allclose(edited_logits(model, idx, Ablation(1, 2, "zero")), ref(idx), atol=1e-5)
        assert not torch.allclose(edited_logits(model, idx, Ablation(1, 2, "zero")), model(idx), atol=1e-3)


@pytest.mark.floats
def test_uniform_ablation_is_the_running_mean_of_the_values():
    model = small()
    idx = torch.randint(0, 30, (2, 10), generator=torch.Generator().manual_seed(3))

    def running_mean(v):  # uniform weights over keys 0..t: the mean of the first t+1 values
        return v.cumsum(-2) / torch.arange(1, v.shape[-2] + 1)[:, None]

    ref = _with_head_replaced(model, 0, 1, running_mean)
    with torch.no_grad():
        assert torch.allclose(edited_logits(model, idx, Ablation(0, 1, "uniform")), ref(idx), atol=1e-5)


@pytest.mark.floats
def test_a_hidden_key_reaches_no_later_position():
    model = small()
    idx = torch.randint(0, 30, (1, 10), generator=torch.Generator().manual_seed(4))
    other = idx.clone()
    other[0, 3] = (idx[0, 3] + 1) % 30
    hide = torch.zeros(1, 10, dtype=torch.bool)
    hide[0, 3] = True
    a, b = edited_logits(model, idx, hide=hide), edited_logits(model, other, hide=hide)
    assert torch.equal(a[:, :3], b[:, :3]) and torch.allclose(a[:, 4:], b[:, 4:], atol=1e-6)
    assert not torch.allclose(a[:, 3], b[:, 3])  # the token itself still reads itself
    assert not torch.allclose(edited_logits(model, idx)[:, 4:], edited_logits(model, other)[:, 4:])


def test_bad_ablations_are_one_sentence():
    model = small()
    idx = torch.zeros(1, 4, dtype=torch.long)
    with pytest.raises(ValueError, match="layers 0-1"):
        edited_logits(model, idx, Ablation(5, 0))
    with pytest.raises(ValueError, match="heads 0-3"):
        edited_logits(model, idx, Ablation(0, 7))
    with pytest.raises(ValueError, match="zero, uniform"):
        edited_logits(model, idx, Ablation(0, 0, "mean"))  # type: ignore[arg-type]


def test_heldout_table_sets_each_heads_pattern_beside_what_ablating_it_costs():
    from core.lab.interventions import heldout_effects
    from core.lab.pronoun import shipped_report
    from core.model import tiny_config

    table = heldout_effects()
    config = tiny_config()
    assert [(h.layer, h.head) for h in table.heads] == [(la, h) for la in range(config.n_layers)
                                                         for h in range(config.n_heads)]
    assert table.n_words > 5000 and table.n_after_may > 80
    for h in table.heads:
        assert 0 <= h.pattern_weight <= 1 and set(h.loss_increase) == set(h.after_may_increase) == {"zero", "uniform"}
    layer, head = shipped_report().head
    pronoun = next(h for h in table.heads if (h.layer, h.head) == (layer, head))
    assert pronoun.role == "pronoun → its noun" and pronoun.pattern_weight > 0.7
    # it matters: without it the word after 它 可能 / it may costs more than 0.2 bits more (from ~0.005)
    assert table.base_after_may < 0.05 and pronoun.after_may_increase["zero"] > 0.2
    # ... but weights are not importance: a head with no pattern above the threshold costs the held-out loss
    # more than the most striking head does, and the most striking head is not the one the word after may needs most
    spread = [h for h in table.heads if h.role == "spread out"]
    assert max(h.loss_increase["zero"] for h in spread) > pronoun.loss_increase["zero"]
    assert max(h.after_may_increase["zero"] for h in table.heads) > pronoun.after_may_increase["zero"]
    assert heldout_effects() is table  # cached: computed once per process


def test_sentence_effects_show_the_prediction_with_and_without_each_head():
    from core.lab.interventions import interventions_payload, sentence_effects

    s = sentence_effects("合同 违约金 过高 ， 它 可能")
    assert s["tokens"][-1] == "可能" and s["intact"][0]["word"] == "存在"
    assert len(s["heads"]) == 8 and all(0 <= h["total_variation"] <= 1 for h in s["heads"])
    assert abs(sum(x["p"] for x in s["intact"]) - 1) < 0.1 or s["intact"][0]["p"] > 0.5
    json.dumps(interventions_payload("the report 's figure was too high , so it may", "uniform"), allow_nan=False)
    with pytest.raises(ValueError, match="type a sentence"):
        sentence_effects("  ")
