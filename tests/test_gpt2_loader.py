"""load_gpt2 reproduces transformers' GPT-2 exactly, from a folder built here: nothing is downloaded."""

from __future__ import annotations

import json
import os

import pytest
import torch

from core.config import ConfigError
from core.lab.threads import one_thread
from core.model import GPT, load_gpt2

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the folder is made here; nothing may reach for the Hub
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
import tokenizers  # noqa: E402
import transformers  # noqa: E402  (a dev dependency: the reference nobody here wrote)

SENTENCES = [
    "the fox that the child saw was hungry, so the fox slept.",
    "attention lets every token look back at the tokens before it.",
    "a small model can still learn which word comes next.",
    "keys and values are cached; queries are new at every step.",
] * 5
TOL = 1e-5


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    with one_thread():
        yield


def _bpe() -> tokenizers.ByteLevelBPETokenizer:
    """A byte-level BPE trained on four sentences, as GPT-2's is (with its <|endoftext|>)."""
    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator(SENTENCES, vocab_size=300, min_frequency=1, special_tokens=["<|endoftext|>"], show_progress=False)
    return bpe


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """A random GPT-2 (eager attention, so it returns its weights) saved by transformers with its tokenizer."""
    folder = tmp_path_factory.mktemp("gpt2")
    bpe = _bpe()
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=bpe.get_vocab_size(), n_positions=48, n_embd=64, n_layer=3, n_head=4,
                                     bos_token_id=None, eos_token_id=None,  # no stop token: n steps exactly
                                     attn_implementation="eager")  # eager returns the attention weights
    hf = transformers.GPT2LMHeadModel(config).eval()
    with torch.no_grad():  # wider than GPT-2's 0.02 init, so attention is peaked and generation is not flat
        for p in hf.parameters():
            if p.dim() > 1:
                p.normal_(0.0, 0.15)
    hf.save_pretrained(folder)
    transformers.PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer).save_pretrained(folder)
    return folder, hf


def _ids(tokenizer, text="the fox that the child saw was") -> torch.Tensor:
    return torch.tensor([tokenizer.encode(text)])


@pytest.mark.floats
def test_logits_and_every_heads_attention_equal_transformers(checkpoint):
    folder, hf = checkpoint
    model, tokenizer = load_gpt2(folder)
    assert isinstance(model, GPT) and model.config.variant == "multi-head" and not model.training
    assert model.lm_head.weight is model.wte.weight  # the head is tied again after loading
    idx = _ids(tokenizer)
    assert idx.shape[1] > 5
    with torch.no_grad():
        ref = hf(idx, output_attentions=True)
        logits = model(idx)
        weights = model.trace(idx)  # (layers, B, H, T, T)
    assert (logits - ref.logits).abs().max().item() <= TOL
    assert weights.shape == (3, 1, 4, idx.shape[1], idx.shape[1])
    for layer, hf_weights in enumerate(ref.attentions):  # (B, H, T, T) per layer
        assert (weights[layer] - hf_weights).abs().max().item() <= TOL


@pytest.mark.floats
def test_greedy_generation_equals_transformers_with_and_without_the_cache(checkpoint):
    folder, hf = checkpoint
    model, tokenizer = load_gpt2(folder)
    idx = _ids(tokenizer, "keys and values")
    n = 30
    with torch.no_grad():
        ref = hf.generate(idx, max_new_tokens=n, do_sample=False, pad_token_id=0)  # its own KV cache
    assert ref.shape[1] == idx.shape[1] + n
    assert torch.equal(model.generate(idx, n, temperature=0), ref)
    assert torch.equal(model.generate(idx, n, temperature=0, use_cache=False), ref)


def test_the_tokenizer_round_trips_text_like_transformers(checkpoint):
    folder, _ = checkpoint
    _, tokenizer = load_gpt2(folder)
    hf_tok = transformers.PreTrainedTokenizerFast.from_pretrained(folder)
    text = "the child saw a fox, and the fox saw the child."
    assert tokenizer.encode(text) == hf_tok.encode(text)
    assert tokenizer.decode(tokenizer.encode(text)) == text
    assert len(tokenizer) == hf_tok.vocab_size


@pytest.mark.floats
def test_pytorch_model_bin_and_vocab_merges_files_load_the_same(checkpoint, tmp_path):
    folder, hf = checkpoint
    (tmp_path / "config.json").write_text((folder / "config.json").read_text())
    torch.save(hf.state_dict(), tmp_path / "pytorch_model.bin")
    _bpe().save_model(str(tmp_path))  # vocab.json + merges.txt, GPT-2's original tokenizer files
    model, tokenizer = load_gpt2(tmp_path)
    reference, ref_tokenizer = load_gpt2(folder)
    text = "the fox that the child saw"
    assert tokenizer.encode(text) == ref_tokenizer.encode(text)
    idx = _ids(tokenizer, text)
    with torch.no_grad():
        assert torch.equal(model(idx), reference(idx))


def _copy(folder, tmp_path, skip=()):
    for f in folder.iterdir():
        if f.name not in skip:
            (tmp_path / f.name).write_bytes(f.read_bytes())
    return tmp_path


@pytest.mark.parametrize("skip, message", [
    (("config.json",), "has no config.json"),
    (("model.safetensors",), "has neither model.safetensors nor pytorch_model.bin"),
    (("tokenizer.json",), "has no tokenizer files; it needs tokenizer.json, vocab.json together with merges.txt, "
                         "or a BERT-style vocab.txt"),
])
def test_a_missing_file_is_named_in_one_sentence(checkpoint, tmp_path, skip, message):
    folder = _copy(checkpoint[0], tmp_path, skip)
    with pytest.raises(ConfigError, match=message):
        load_gpt2(folder)


def test_not_a_folder_incomplete_weights_and_other_models_are_clear_errors(checkpoint, tmp_path):
    with pytest.raises(ConfigError, match="is not a folder"):
        load_gpt2(tmp_path / "nowhere")
    folder = _copy(checkpoint[0], tmp_path)
    from safetensors.torch import load_file, save_file

    weights = load_file(folder / "model.safetensors")
    del weights["transformer.h.1.mlp.c_fc.weight"]
    save_file(weights, folder / "model.safetensors")
    with pytest.raises(ConfigError, match=r"lack 'blocks.1.mlp.c_fc.weight' \(and 0 more\)"):
        load_gpt2(folder)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "activation_function": "relu"}))
    with pytest.raises(ConfigError, match="activation_function='relu'.*tanh"):
        load_gpt2(folder)
    (folder / "config.json").write_text(json.dumps({**config, "model_type": "llama"}))
    with pytest.raises(ConfigError, match="holds a 'llama' model, not GPT-2"):
        load_gpt2(folder)


def test_importing_core_model_loads_no_hugging_face_package():
    import subprocess
    import sys

    code = "import sys, core.model; print(sorted(m for m in ('safetensors', 'tokenizers', 'transformers') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
