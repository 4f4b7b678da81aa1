"""GPT-2 step by step and under the causality test: our stages equal transformers' own, layer by layer."""

from __future__ import annotations

import pytest
import torch

from core.config import ConfigError
from core.lab.real_steps import FIELDS, causality, layer_steps, replacement
from core.model import load_gpt2
from tests.test_gpt2_loader import _ids, checkpoint  # noqa: F401 - the random GPT-2 saved by transformers

TOL = 1e-5
SENTENCE = "the fox that the child saw was hungry, so the fox slept."


@pytest.fixture(scope="module")
def gpt2(checkpoint):  # noqa: F811
    folder, hf = checkpoint
    model, tokenizer = load_gpt2(folder)
    return model, tokenizer, hf, _ids(tokenizer, SENTENCE)[0].tolist()


def _hf_inside(hf, ids: list[int], layer: int):
    """What transformers' GPT2Attention of `layer` receives (its hidden states, after ln_1) and its weights."""
    seen = {}

    def grab(module, args, kwargs):
        seen["hidden"] = (args[0] if args else kwargs["hidden_states"]).detach().clone()

    hook = hf.transformer.h[layer].attn.register_forward_pre_hook(grab, with_kwargs=True)
    try:
        with torch.no_grad():
            out = hf(torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
    finally:
        hook.remove()
    return seen["hidden"][0], out  # (T, d)


@pytest.mark.floats
@pytest.mark.parametrize("layer", [0, 1, 2])
def test_every_stage_equals_transformers_internals_for_the_layer(gpt2, layer):
    model, _, hf, ids = gpt2
    hidden, out = _hf_inside(hf, ids, layer)
    H, hd = model.config.n_heads, model.config.d_model // model.config.n_heads
    q, k, v = hf.transformer.h[layer].attn.c_attn(hidden).split(model.config.d_model, dim=-1)  # (T, d) x3
    for head in range(H):
        steps = layer_steps(model, ids, layer, head)
        cols = slice(head * hd, (head + 1) * hd)
        assert torch.allclose(steps.x, out.hidden_states[layer][0], atol=TOL)  # the states entering the layer
        assert torch.allclose(steps.stages["q"], q[:, cols], atol=TOL)
        assert torch.allclose(steps.stages["k"], k[:, cols], atol=TOL)
        assert torch.allclose(steps.stages["v"], v[:, cols], atol=TOL)
        assert torch.allclose(steps.stages["scores"], q[:, cols] @ k[:, cols].T, atol=1e-4)
        assert torch.allclose(steps.stages["scaled"], q[:, cols] @ k[:, cols].T / hd ** 0.5, atol=TOL)
        assert torch.allclose(steps.stages["weights"], out.attentions[layer][0, head], atol=TOL)
        assert torch.isneginf(steps.stages["masked"].triu(1)[torch.ones_like(steps.stages["masked"]).triu(1).bool()]).all()
        ref = torch.nn.functional.scaled_dot_product_attention(q[None, :, cols], k[None, :, cols], v[None, :, cols],
                                                               is_causal=True)[0]  # (T, hd)
        assert torch.allclose(steps.stages["context"], ref, atol=TOL)


@pytest.mark.floats
def test_the_toggles_reach_the_stages_and_the_shown_stages_are_labelled(gpt2):
    model, tokenizer, _, ids = gpt2
    off = layer_steps(model, ids, 2, 1, causal=False, scaled=False)
    assert torch.allclose(off.stages["scaled"], off.stages["scores"]) and float(off.stages["weights"].triu(1).sum()) > 0
    assert not torch.isinf(off.stages["masked"]).any()
    shown = off.shown([tokenizer.decode([i]) for i in ids])
    assert [s.name for s in shown] == ["Q", "K", "V", "scores", "scaled", "masked", "weights", "context"]
    assert "switched off" in shown[4].formula and "switched off" in shown[5].formula
    assert len(FIELDS) == len(shown)
    for bad in ((3, 0), (0, 4), (-1, 0)):
        with pytest.raises(ConfigError, match="does not exist"):
            layer_steps(model, ids, *bad)


@pytest.mark.floats
def test_changing_a_later_token_leaves_every_earlier_row_of_every_layer_identical(gpt2):
    model, tokenizer, _, ids = gpt2
    position = len(ids) // 2
    new = next(i for i in range(50) if i != ids[position])
    result = causality(model, ids, position, new)
    assert result.earlier == 0.0 and result.logits_earlier == 0.0  # exactly: nothing reaches back
    assert result.later > 1e-3  # and the rows from the change on do move
    assert all(m == 0.0 for m in result.layer_max(earlier=True)) and max(result.layer_max(earlier=False)) > 1e-3
    lifted = causality(model, ids, position, new, causal=False)  # without the mask the future leaks back
    assert lifted.earlier > 1e-3 and lifted.logits_earlier > 1e-3


def test_a_replacement_is_one_token_and_the_position_a_later_one(gpt2):
    _, tokenizer, _, ids = gpt2
    word = tokenizer.decode([ids[1]])
    assert replacement(tokenizer, word, ids, 3) == ids[1]
    with pytest.raises(ConfigError, match="already at position"):
        replacement(tokenizer, word, ids, 1)
    with pytest.raises(ConfigError, match="choose 1 to"):
        replacement(tokenizer, word, ids, 0)
    with pytest.raises(ConfigError, match="tokens for this model"):
        replacement(tokenizer, "the fox that", ids, 2)
