"""A real layer step by step, in every family: the states entering it, Q and K before and after RoPE, V, the scores,
scaled, capped, masked and the weights, each equal to what transformers' own modules compute for that layer."""

from __future__ import annotations

import pytest
import torch

from core.config import ConfigError
from core.gpt.lab_attention import attention_modules
from core.lab.broken_model import Breakage
from core.lab.real_steps import FIELDS, layer_steps, replacement
from core.lab.threads import one_thread
from core.model import architecture, load_pretrained
from tests.real_families import FAMILIES, save

TOL = 1e-5
SENTENCE = "the fox that the child saw was hungry, so the fox slept."


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    with one_thread():
        yield


@pytest.fixture(scope="module")
def families(tmp_path_factory):
    out = {}
    for family in FAMILIES:
        folder = tmp_path_factory.mktemp(family)
        reference = save(family, folder)
        model, tokenizer = load_pretrained(folder)
        out[family] = (model, tokenizer, reference, tokenizer.encode(SENTENCE))
    return out


def _inside(reference, ids: list[int], layer: int):
    """What transformers' attention module of `layer` receives (its normed states and, for RoPE, its cos and sin),
    and the model's attentions and hidden states."""
    seen = {}

    def grab(module, args, kwargs):
        seen["hidden"] = (args[0] if args else kwargs["hidden_states"]).detach().clone()
        seen["rope"] = kwargs.get("position_embeddings")

    hook = attention_modules(reference)[layer].register_forward_pre_hook(grab, with_kwargs=True)
    try:
        with torch.no_grad():
            out = reference(torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
    finally:
        hook.remove()
    return seen, out


def _qkv(reference, family: str, layer: int, hidden: torch.Tensor, arch):
    """Q, K, V (before RoPE) as transformers' own projections (and Qwen3's and Gemma 3's q_norm/k_norm) make them:
    (H, T, hd), (Hkv, T, hd) x2."""
    attn = attention_modules(reference)[layer]
    T, hd = hidden.shape[1], arch.head_dim
    if family == "gpt2":
        q, k, v = attn.c_attn(hidden)[0].split(arch.n_heads * hd, dim=-1)
        return (x.view(T, -1, hd).transpose(0, 1) for x in (q, k, v))
    q = attn.q_proj(hidden)[0].view(T, -1, hd)
    k = attn.k_proj(hidden)[0].view(T, -1, hd)
    if hasattr(attn, "q_norm"):
        q, k = attn.q_norm(q), attn.k_norm(k)
    return q.transpose(0, 1), k.transpose(0, 1), attn.v_proj(hidden)[0].view(T, -1, hd).transpose(0, 1)


@pytest.mark.floats
@pytest.mark.parametrize("family", FAMILIES)
def test_every_stage_of_every_head_equals_transformers_own_for_that_layer(families, family):
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    model, _, reference, ids = families[family]
    arch = architecture(model)
    layer = arch.n_layers - 1
    seen, out = _inside(reference, ids, layer)
    q, k, v = _qkv(reference, family, layer, seen["hidden"], arch)
    if arch.rope:
        cos, sin = seen["rope"]
        q_rot, k_rot = apply_rotary_pos_emb(q[None], k[None], cos, sin)
        q_rot, k_rot = q_rot[0], k_rot[0]
    else:
        q_rot, k_rot = q, k
    for head in range(arch.n_heads):
        steps = layer_steps(model, ids, layer, head)
        kv = head // arch.group
        st = steps.stages
        assert steps.kv_head == kv
        assert torch.allclose(steps.x, out.hidden_states[layer][0], atol=TOL)  # the states entering the layer
        if arch.rope:
            assert torch.allclose(st["q_pre"], q[head], atol=TOL) and torch.allclose(st["k_pre"], k[kv], atol=TOL)
            assert not torch.allclose(st["q"], st["q_pre"], atol=1e-3)  # the rotation is a real step
        assert torch.allclose(st["q"], q_rot[head], atol=TOL) and torch.allclose(st["k"], k_rot[kv], atol=TOL)
        assert torch.allclose(st["v"], v[kv], atol=TOL)
        assert torch.allclose(st["scores"], q_rot[head] @ k_rot[kv].T, atol=1e-4)
        assert torch.allclose(st["weights"], out.attentions[layer][0, head], atol=TOL)
        assert torch.allclose(st["context"], st["weights"] @ v[kv], atol=TOL)
        assert ("capped" in st) == (family == "gemma2")
    shown = steps.shown([str(i) for i in ids])
    assert [s.field for s in shown] == steps.fields() and set(steps.fields()) <= set(FIELDS)
    expected = 11 if family == "gemma2" else (8 if family == "gpt2" else 10)
    assert len(shown) == expected


def test_a_sliding_layers_masked_stage_is_its_band_and_the_formulas_say_so(families):
    model, tokenizer, _, ids = families["gemma2"]
    arch = architecture(model)
    band = layer_steps(model, ids, 0, 0)  # layer 0 slides, layer 1 is global
    masked = band.stages["masked"]
    seen = torch.isfinite(masked).sum(-1)  # (T,) keys each query may see
    assert seen.max() == arch.windows[0] and torch.isneginf(masked[-1, 0])
    assert "window of 3 tokens" in band.formula("masked") and "tanh" in band.formula("capped")
    assert "own scale" in band.formula("scaled")  # Gemma scales by query_pre_attn_scalar, not head_dim
    glob = layer_steps(model, ids, 1, 0)
    assert torch.isfinite(glob.stages["masked"]).sum(-1).tolist() == list(range(1, len(ids) + 1))


@pytest.mark.floats
def test_the_switches_reach_the_stages_and_a_wrong_layer_or_head_is_one_sentence(families):
    model, tokenizer, _, ids = families["qwen3"]
    off = layer_steps(model, ids, 1, 1, Breakage(causal=False, scaled=False))
    assert torch.allclose(off.stages["scaled"], off.stages["scores"]) and float(off.stages["weights"].triu(1).sum()) > 0
    assert not torch.isinf(off.stages["masked"]).any()
    assert "switched off" in off.formula("scaled") and "switched off" in off.formula("masked")
    zeroed = layer_steps(model, ids, 1, 1, Breakage(ablate=((1, 1),)))
    assert zeroed.zeroed and "zeroed" in zeroed.formula("context")
    for bad in ((2, 0), (0, 4), (-1, 0)):
        with pytest.raises(ConfigError, match="does not exist"):
            layer_steps(model, ids, *bad)


def test_a_replacement_is_one_token_and_the_position_a_later_one(families):
    _, tokenizer, _, ids = families["llama"]
    word = tokenizer.decode([ids[1]])
    assert replacement(tokenizer, word, ids, 3) == ids[1]
    with pytest.raises(ConfigError, match="already at position"):
        replacement(tokenizer, word, ids, 1)
    with pytest.raises(ConfigError, match="choose 1 to"):
        replacement(tokenizer, word, ids, 0)
    with pytest.raises(ConfigError, match="tokens for this model"):
        replacement(tokenizer, "the fox that", ids, 2)
