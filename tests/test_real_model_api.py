"""/model_attention: a real model broken live through the app's API — the tiny model, GPT-2 by ATTENTION_LAB_GPT2,
and every family by ATTENTION_LAB_MODELS, whose weights equal transformers' own eager attention."""

from __future__ import annotations

import pytest
import torch
from gradio_client.exceptions import AppError

from tests.real_families import FAMILIES, save
from tests.test_gpt2_loader import _ids, checkpoint  # noqa: F401 - the random GPT-2 saved by transformers

SENTENCE = "the fox that the child saw was"


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Every family saved under its own folder name, with transformers' eager model as the reference."""
    root = tmp_path_factory.mktemp("models")
    return {family: (root / family, save(family, root / family)) for family in FAMILIES}


@pytest.mark.floats
def test_the_tiny_model_intact_then_with_its_mask_lifted(client):
    _, intact = client.predict(SENTENCE, "tiny", True, True, "[]", api_name="/model_attention")
    T = len(intact["tokens"])
    assert set(intact) >= {"tokens", "weights", "next_words", "loss_bits", "architecture"} and T == 7
    assert intact["architecture"] == {"family": "gpt2", "n_layers": 2, "n_heads": 4, "n_kv_heads": 4,
                                      "windows": [None, None]}
    w = torch.tensor(intact["weights"])  # (L, H, T, T)
    assert float(w.triu(1).abs().max()) == 0.0 and intact["loss_bits"] == intact["intact"]["loss_bits"]
    summary, broken = client.predict(SENTENCE, "tiny", False, True, "[[0, 1]]", api_name="/model_attention")
    assert float(torch.tensor(broken["weights"]).triu(1).sum()) > 0  # every word now sees the future
    assert broken["loss_bits"] != intact["loss_bits"] and broken["intact"]["loss_bits"] == intact["loss_bits"]
    assert "causal mask lifted" in summary and "1 head zeroed" in summary


@pytest.mark.floats
def test_gpt2_by_the_apps_variable_equals_transformers(client, checkpoint, monkeypatch):  # noqa: F811
    folder, hf = checkpoint
    monkeypatch.setenv("ATTENTION_LAB_GPT2", str(folder))
    _, out = client.predict(SENTENCE, "gpt2", True, True, "[]", api_name="/model_attention")
    with torch.no_grad():
        from core.model import load_gpt2

        ids = _ids(load_gpt2(folder)[1], SENTENCE)
        ref = hf(ids, labels=ids, output_attentions=True)
    ours = torch.tensor(out["weights"])
    assert torch.allclose(ours, torch.stack([a[0] for a in ref.attentions]), atol=1e-4)  # sent to 4 decimals
    assert out["loss_bits"] == pytest.approx(float(ref.loss) / 0.6931471805599453, abs=1e-3)


@pytest.mark.floats
def test_every_family_named_by_the_apps_variable_equals_transformers_eager_attention(client, folders, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_MODELS", ",".join(str(folder) for folder, _ in folders.values()))
    for family, (folder, reference) in folders.items():
        _, out = client.predict(SENTENCE, family, True, True, "[]", api_name="/model_attention")
        from core.model import load_pretrained

        ids = load_pretrained(folder)[1].encode(SENTENCE)
        with torch.no_grad():
            ref = reference(torch.tensor([ids]), output_attentions=True)
        expected = torch.stack([a[0] for a in ref.attentions])  # (L, H, T, T)
        assert torch.allclose(torch.tensor(out["weights"]), expected, atol=1e-4), family
        assert out["architecture"]["family"] == family
    _, zeroed = client.predict(SENTENCE, "llama", True, True, "[[1, 3]]", "gqa", '{"n_kv_heads": 1}',
                               api_name="/model_attention")
    assert zeroed["loss_bits"] != zeroed["intact"]["loss_bits"]


def test_mistakes_are_one_sentence(client, monkeypatch):
    monkeypatch.delenv("ATTENTION_LAB_GPT2", raising=False)
    monkeypatch.delenv("ATTENTION_LAB_MODELS", raising=False)
    for args, words in (((SENTENCE, "gpt2", True, True, "[]"), "ATTENTION_LAB_GPT2"),
                        ((SENTENCE, "tiny", True, True, "[[99, 0]]"), "ablate names layer 99"),
                        ((SENTENCE, "tiny", True, True, "nope"), "JSON list"),
                        ((SENTENCE, "tiny", True, True, "[]", "gqa", '{"n_kv_heads": 3}'), "n_kv_heads=3"),
                        ((SENTENCE, "tiny", True, True, "[]", "", "[1]"), "options must be a JSON object"),
                        (("fox", "tiny", True, True, "[]"), "at least two tokens")):
        with pytest.raises(AppError) as err:
            client.predict(*args, api_name="/model_attention")
        assert words in str(err.value) and "Traceback" not in str(err.value)
