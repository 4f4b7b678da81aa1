"""Every family the lab runs (GPT-2, Llama, Qwen2, Qwen3, Mistral, Gemma 2, Gemma 3 text), loaded by
core.model.load_pretrained with the lab's attention inside, held to transformers' own eager attention: the weights
of every head, a zeroed head against a pre-hook on the output projection, the mask lifted, causality, a variant in
the model's place against the same formula written out by hand. Tiny random checkpoints, built here (offline)."""

from __future__ import annotations

import math

import pytest
import torch

from core.config import ConfigError
from core.gpt.lab_attention import Switches, attention_modules, lab_forward
from core.gpt.pretrained import Architecture
from core.lab.broken_model import Breakage, intact_and_broken
from core.lab.real_steps import causality
from core.lab.threads import one_thread
from core.model import architecture, load_pretrained
from tests.real_families import FAMILIES, WINDOW, save

SENTENCE = "the fox that the child saw was hungry, so it slept."
TOL = 1e-4


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    with one_thread():
        yield


@pytest.fixture(scope="module")
def families(tmp_path_factory):
    """family -> (the lab's model, its tokenizer, transformers' own eager model, the sentence's ids)."""
    out = {}
    for family in FAMILIES:
        folder = tmp_path_factory.mktemp(family)
        reference = save(family, folder)
        model, tokenizer = load_pretrained(folder)
        out[family] = (model, tokenizer, reference, tokenizer.encode(SENTENCE))
    return out


def _reference(reference, ids, **kwargs):
    with torch.no_grad():
        return reference(torch.tensor([ids]), output_attentions=True, **kwargs)


@pytest.mark.floats
@pytest.mark.parametrize("family", FAMILIES)
def test_every_heads_weights_and_the_logits_equal_transformers_eager_attention(families, family):
    model, _, reference, ids = families[family]
    run = lab_forward(model, ids)
    ref = _reference(reference, ids)
    expected = torch.stack([a[0] for a in ref.attentions])  # (L, H, T, T)
    assert run.weights.shape == expected.shape and len(ids) >= 10
    assert (run.weights - expected).abs().max() <= TOL
    assert (run.logits - ref.logits[0]).abs().max() <= TOL


def test_each_familys_architecture_is_read_from_its_config(families):
    got = {f: architecture(families[f][0]).as_json() for f in FAMILIES}
    assert got["gpt2"] == {"family": "gpt2", "n_layers": 2, "n_heads": 4, "n_kv_heads": 4, "windows": [None, None]}
    assert got["llama"]["n_kv_heads"] == 2 and got["llama"]["windows"] == [None, None]
    assert got["mistral"]["windows"] == [WINDOW, WINDOW]
    assert got["gemma2"]["windows"] == [WINDOW, None]  # sliding and global layers alternate
    assert got["gemma3_text"]["windows"] == [WINDOW, WINDOW, None]
    run = lab_forward(families["gemma2"][0], families["gemma2"][3])
    T = run.allowed.shape[-1]
    assert run.allowed[0].sum(-1).max() == WINDOW and run.allowed[1].sum(-1).tolist() == list(range(1, T + 1))


def _output_projection(reference, layer):
    attn = attention_modules(reference)[layer]
    return getattr(attn, "o_proj", None) or attn.c_proj


@pytest.mark.floats
@pytest.mark.parametrize("family", FAMILIES)
def test_a_zeroed_head_equals_transformers_with_that_heads_slice_of_the_output_projection_input_zeroed(families,
                                                                                                     family):
    model, _, reference, ids = families[family]
    arch = architecture(model)
    layer, head, hd = arch.n_layers - 1, 1, arch.head_dim

    def zero(module, args):
        x = args[0].clone()
        x[..., head * hd:(head + 1) * hd] = 0  # (B, T, H*hd): head h's context is columns h*hd:(h+1)*hd
        return (x,)

    hook = _output_projection(reference, layer).register_forward_pre_hook(zero)
    try:
        ref = _reference(reference, ids)
    finally:
        hook.remove()
    run = lab_forward(model, ids, Switches(ablate=frozenset({(layer, head)})))
    assert (run.logits - ref.logits[0]).abs().max() <= TOL
    assert (run.logits - lab_forward(model, ids).logits).abs().max() > 1e-3  # and it did change the prediction


@pytest.mark.floats
@pytest.mark.parametrize("family", ["llama", "gemma2"])
def test_a_whole_kv_group_zeroed_is_its_query_heads_zeroed(families, family):
    model, _, _, ids = families[family]
    arch = architecture(model)
    heads = frozenset((0, h) for h in range(arch.group, 2 * arch.group))  # the query heads of KV head 1
    by_group = lab_forward(model, ids, Switches(ablate_groups=frozenset({(0, 1)})))
    by_heads = lab_forward(model, ids, Switches(ablate=heads))
    assert torch.equal(by_group.logits, by_heads.logits)


@pytest.mark.floats
@pytest.mark.parametrize("family", FAMILIES)
def test_the_mask_lifted_gives_rows_over_every_key_in_every_layer(families, family):
    model, tokenizer, _, ids = families[family]
    intact, broken = intact_and_broken(model, tokenizer, ids, Breakage(causal=False))
    assert bool((broken.weights > 0).all())  # every query row spreads over every key, the future and the band too
    assert torch.allclose(broken.weights.sum(-1), torch.ones(broken.weights.shape[:-1]), atol=1e-5)
    future = torch.ones(len(ids), len(ids), dtype=torch.bool).triu(1)
    assert float(intact.weights[..., future].abs().max()) == 0.0
    assert broken.loss_bits != pytest.approx(intact.loss_bits, abs=1e-4)


@pytest.mark.floats
@pytest.mark.parametrize("family", FAMILIES)
def test_the_loss_equals_transformers_and_dropping_the_scale_sharpens(families, family):
    model, tokenizer, reference, ids = families[family]
    intact, unscaled = intact_and_broken(model, tokenizer, ids, Breakage(scaled=False))
    ref = _reference(reference, ids, labels=torch.tensor([ids]))
    assert intact.loss_bits == pytest.approx(float(ref.loss) / math.log(2), abs=1e-4)  # transformers' is in nats

    def entropy(w):
        return float(-(w * torch.log(w.clamp_min(1e-12))).sum(-1).mean())

    assert entropy(unscaled.weights[0]) < entropy(intact.weights[0])  # the scale divides the scores


@pytest.mark.floats
@pytest.mark.parametrize("family", FAMILIES)
def test_changing_a_later_token_leaves_every_earlier_row_identical_and_without_the_mask_it_leaks(families, family):
    model, _, _, ids = families[family]
    position = len(ids) // 2
    new = next(i for i in range(5, 60) if i != ids[position])
    kept = causality(model, ids, position, new)
    assert kept.earlier == 0.0 and kept.logits_earlier == 0.0 and kept.later > 1e-4
    leaked = causality(model, ids, position, new, Breakage(causal=False))
    assert leaked.earlier > 1e-4 and leaked.logits_earlier > 1e-4


def _by_hand(window: int | None = None, kv_groups: int | None = None):
    """The formula written out: scores/√d, a band of `window` keys (itself included) or the causal triangle,
    softmax, weights · V; kv_groups: the model's key/value heads averaged into that many."""

    def attention(module, q, k, v, mask, scaling=None, **_):
        H, Hkv, T, hd = q.shape[1], k.shape[1], q.shape[2], q.shape[-1]
        if kv_groups is not None:
            k = k.view(1, kv_groups, Hkv // kv_groups, T, hd).mean(2)
            v = v.view(1, kv_groups, Hkv // kv_groups, T, hd).mean(2)
        k, v = k.repeat_interleave(H // k.shape[1], 1), v.repeat_interleave(H // v.shape[1], 1)
        i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
        allowed = (j <= i) & ((i - j < window) if window else True)
        w = torch.softmax((q @ k.transpose(-2, -1) / math.sqrt(hd)).masked_fill(~allowed, float("-inf")), -1)
        return (w @ v).transpose(1, 2), w

    return attention


@pytest.mark.floats
@pytest.mark.parametrize("family, variant, options, hand", [
    ("llama", "sliding-window", {"window": 2}, {"window": 2}),
    ("qwen3", "gqa", {"n_kv_heads": 1}, {"kv_groups": 1}),
    ("mistral", "multi-head", {}, {}),  # the plain formula, its own window lifted
])
def test_a_variant_in_the_models_place_equals_the_same_formula_written_by_hand(families, family, variant, options,
                                                                               hand):
    from transformers import AttentionInterface

    from core.lab import real_variant
    from core.registry import load_registry

    model, tokenizer, reference, ids = families[family]
    arch = architecture(model)
    module = real_variant.fitted(load_registry().get(variant), options, arch, family)
    formula = real_variant.formula(module, arch, variant, family)
    swapped = lab_forward(model, ids, Switches(variant=formula, variant_key=variant))
    AttentionInterface.register("by_hand_for_test", _by_hand(**hand))
    reference.set_attn_implementation("by_hand_for_test")
    try:
        with torch.no_grad():
            ref = reference(torch.tensor([ids])).logits[0]
    finally:
        reference.set_attn_implementation("eager")
    assert (swapped.logits - ref).abs().max() <= TOL
    assert (swapped.logits - lab_forward(model, ids).logits).abs().max() > 1e-3  # not the model's own formula
    one = lab_forward(model, ids, Switches(variant=formula, variant_key=variant, variant_layers=frozenset({1})))
    assert torch.equal(one.weights[0], lab_forward(model, ids).weights[0])  # layer 0 kept the model's own formula


def test_a_variant_that_cannot_fit_is_refused_in_one_sentence(families):
    from core.lab import real_variant
    from core.registry import load_registry

    arch = architecture(families["llama"][0])  # 4 query heads over 2 key/value heads
    registry = load_registry()
    for name, options, words in (("gqa", {"n_kv_heads": 4}, None),  # the model's KV heads repeated: fits
                                 ("single-head", {}, "builds 1 query head"),
                                 ("gqa", {"n_kv_heads": 3}, "does not divide")):
        if words is None:
            real_variant.fitted(registry.get(name), options, arch, "llama")
            continue
        with pytest.raises(ConfigError, match=words) as err:
            real_variant.fitted(registry.get(name), options, arch, "llama")
        assert "\n" not in str(err.value)
    wide = Architecture("llama", 2, 8, 2, 8, (None, None), rope=True)  # 8 query heads over 2 key/value heads
    with pytest.raises(ConfigError, match="averaged into fewer groups"):
        real_variant.fitted(registry.get("gqa"), {"n_kv_heads": 4}, wide, "wide")  # 2 KV heads cannot become 4
