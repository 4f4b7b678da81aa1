"""core.lab.broken_model: a real GPT-2 in the lab's runtime, intact, equals transformers'; its mask, √d and heads
broken as they should; the JSON names its architecture. (Every family: tests/test_real_families.py.)"""

from __future__ import annotations

import math

import pytest
import torch

from core.config import ConfigError
from core.lab.broken_model import Breakage, intact_and_broken, parse_ablate, payload
from core.model import architecture, load_pretrained
from tests.test_gpt2_loader import _ids, checkpoint  # noqa: F401 - the random GPT-2 saved by transformers


@pytest.fixture(scope="module")
def gpt2(checkpoint):  # noqa: F811
    folder, hf = checkpoint
    model, tokenizer = load_pretrained(folder)
    return model, tokenizer, hf, tokenizer.encode("the fox that the child saw was")


def entropy(w: torch.Tensor) -> float:
    return float(-(w * torch.log(w.clamp_min(1e-12))).sum(-1).mean())


@pytest.mark.floats
def test_intact_equals_transformers_weights_and_loss(gpt2):
    model, tokenizer, hf, ids = gpt2
    intact, same = intact_and_broken(model, tokenizer, ids, Breakage())
    assert same is intact
    with torch.no_grad():
        ref = hf(torch.tensor([ids]), labels=torch.tensor([ids]), output_attentions=True)
    assert torch.allclose(intact.weights, torch.stack([a[0] for a in ref.attentions]), atol=1e-5)
    assert intact.loss_bits == pytest.approx(float(ref.loss) / math.log(2), abs=1e-4)  # HF's loss is in nats
    probs = torch.softmax(ref.logits[0, -1], -1)
    assert [round(p, 5) for _, p in intact.next_words] == [round(float(p), 5) for p in torch.topk(probs, 5).values]


def test_dropping_the_sqrt_d_scaling_sharpens_every_layer(gpt2):
    model, tokenizer, _, ids = gpt2
    intact, broken = intact_and_broken(model, tokenizer, ids, Breakage(scaled=False))
    for la in range(intact.weights.shape[0]):
        assert entropy(broken.weights[la]) < entropy(intact.weights[la])  # scores sqrt(hd) times larger


@pytest.mark.floats
def test_zeroing_heads_changes_the_prediction_and_a_json_list_names_them(gpt2):
    model, tokenizer, _, ids = gpt2
    arch = architecture(model)
    L, H = arch.n_layers, arch.n_heads
    pairs = parse_ablate("[[0, 1], [2, 3], [0, 1]]", L, H)
    assert pairs == ((0, 1), (2, 3))
    intact, broken = intact_and_broken(model, tokenizer, ids, Breakage(ablate=pairs))
    assert broken.loss_bits != pytest.approx(intact.loss_bits, abs=1e-4)
    assert torch.equal(broken.weights[0], intact.weights[0])  # layer 0's weights come before any head is zeroed
    out = payload([tokenizer.decode([i]) for i in ids], intact, broken, arch.as_json())
    assert set(out) == {"tokens", "weights", "next_words", "loss_bits", "intact", "architecture"}
    assert out["architecture"] == {"family": "gpt2", "n_layers": 3, "n_heads": 4, "n_kv_heads": 4,
                                   "windows": [None, None, None]}
    assert len(out["weights"]) == L and len(out["weights"][0]) == H and len(out["next_words"]) == 5
    for wrong in ("[[0]]", "not json", "[[9, 0]]", "[[0, 1.5]]", {"a": 1}, "[[true, 0]]", "[[\"0\", 1]]"):
        with pytest.raises(ConfigError, match="ablate"):
            parse_ablate(wrong, L, H)
    with pytest.raises(ConfigError, match="at least two tokens"):
        intact_and_broken(model, tokenizer, ids[:1], Breakage())
