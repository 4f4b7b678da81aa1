"""core.model.load_gpt2 by Hub id, from a local Hugging Face cache built here (offline), and Chinese GPT-2s."""

from __future__ import annotations

import huggingface_hub
import pytest
import torch

from core.config import ConfigError
from core.gpt import hub
from core.model import load_gpt2
from tests.hub_cache import cache_repo
from tests.test_gpt2_loader import _ids, checkpoint  # noqa: F401 - the random GPT-2 saved by transformers

transformers = pytest.importorskip("transformers")
CHAPTER = "合同违约金过高，它可能存在风险"


@pytest.fixture
def hf_cache(tmp_path, monkeypatch):
    """An empty Hugging Face cache that huggingface_hub reads; downloads off, as the app runs."""
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "hub"


@pytest.mark.floats
def test_a_hub_id_loads_from_the_cache_offline_and_equals_transformers(checkpoint, hf_cache):  # noqa: F811
    folder, hf = checkpoint
    cache_repo(hf_cache, "openai-community/gpt2", folder)
    model, tokenizer = load_gpt2("openai-community/gpt2")
    idx = _ids(tokenizer)
    with torch.no_grad():
        ours, ref = model(idx), hf(idx, output_attentions=True)
        assert torch.allclose(ours, ref.logits, atol=1e-5)
        by_folder, _ = load_gpt2(folder)
        assert torch.equal(by_folder(idx), ours)  # the same files, the same code: the same numbers


def test_a_hub_id_fetches_only_what_a_gpt2_needs(checkpoint, hf_cache, monkeypatch):  # noqa: F811
    folder, _ = checkpoint
    cache_repo(hf_cache, "distilbert/distilgpt2", folder)
    asked = []
    real = huggingface_hub.snapshot_download
    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda *a, **k: asked.append(k) or real(*a, **k))
    load_gpt2("distilbert/distilgpt2")
    assert len(asked) == 1 and asked[0]["local_files_only"] is True  # downloads off: the cache only
    patterns = asked[0]["allow_patterns"]
    assert "config.json" in patterns and "model.safetensors" in patterns and "tokenizer.json" in patterns
    assert not any(p.endswith((".bin", ".msgpack", ".h5", ".onnx")) or p == "*" for p in patterns)


@pytest.mark.floats
def test_pytorch_model_bin_is_fetched_only_for_a_repository_without_safetensors(checkpoint, hf_cache, tmp_path):  # noqa: F811
    folder, hf = checkpoint
    old = tmp_path / "old"
    old.mkdir()
    for f in folder.iterdir():
        if f.suffix != ".safetensors":
            (old / f.name).write_bytes(f.read_bytes())
    torch.save(hf.state_dict(), old / "pytorch_model.bin")
    cache_repo(hf_cache, "someone/old-gpt2", old)
    model, tokenizer = load_gpt2("someone/old-gpt2")
    with torch.no_grad():
        assert torch.allclose(model(_ids(tokenizer)), hf(_ids(tokenizer)).logits, atol=1e-5)


def test_an_id_missing_from_the_cache_offline_is_one_sentence_naming_it_and_how_to_get_it(hf_cache):
    with pytest.raises(ConfigError) as err:
        load_gpt2("openai-community/gpt2-medium")
    message = str(err.value)
    assert "openai-community/gpt2-medium" in message and "hf download openai-community/gpt2-medium" in message
    assert "HF_HUB_OFFLINE" in message and "\n" not in message
    for wrong in ("not a/valid id!", "../escape"):
        with pytest.raises(ConfigError, match="neither a folder nor a Hugging Face model id"):
            hub.checkpoint_path(wrong)


@pytest.mark.floats
def test_a_chinese_gpt2_with_a_bert_style_vocab_reads_the_chapters_sentence_like_transformers(tmp_path):
    folder = tmp_path / "gpt2-chinese"
    folder.mkdir()
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *dict.fromkeys(CHAPTER)]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=len(vocab), n_positions=32, n_embd=32, n_layer=2, n_head=2)
    hf = transformers.GPT2LMHeadModel(config).eval()
    hf.save_pretrained(folder)
    model, tokenizer = load_gpt2(folder)
    reference = transformers.BertTokenizer(str(folder / "vocab.txt"))
    ids = tokenizer.encode(CHAPTER)
    assert ids == reference.encode(CHAPTER, add_special_tokens=False) and len(ids) == len(CHAPTER)
    assert reference.unk_token_id not in ids  # every character of the sentence is in the vocabulary
    with torch.no_grad():
        idx = torch.tensor([ids])
        assert torch.allclose(model(idx), hf(idx).logits, atol=1e-5)
