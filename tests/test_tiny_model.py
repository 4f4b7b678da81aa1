"""The shipped tiny model: loads offline, beats the unigram baseline on fresh text, retrains reproducibly."""

from __future__ import annotations

import socket
from importlib import resources

import pytest
import torch

from core.corpus import Tokenizer, generate
from core.lab.train import Trainer, TrainSettings, encode_corpus, fresh_text_report
from core.model import GPT, GPTConfig, load_tiny


@pytest.fixture(scope="module")
def tiny():
    return load_tiny()


def test_load_tiny_needs_no_network(monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("load_tiny tried to open a network connection")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    model, tokenizer = load_tiny()
    assert isinstance(model.config, GPTConfig) and not model.training
    assert model.config.vocab_size == len(tokenizer)


def test_shipped_assets_fit_in_5_mb():
    assets = resources.files("core") / "assets"
    assert sum((assets / name).stat().st_size for name in ("tiny.pt", "tiny.json")) <= 5 * 2**20


def test_tokenizer_round_trips_generator_text(tiny):
    _, tokenizer = tiny
    text = " ".join(generate(20, 31))
    assert tokenizer.decode(tokenizer.encode(text)) == text


def test_tiny_model_beats_the_unigram_baseline_on_fresh_text_by_a_wide_margin(tiny):
    model, tokenizer = tiny
    loss, unigram = fresh_text_report(model, tokenizer, seed=4242, n_sentences=400)  # a seed never trained on
    assert loss <= 0.5 * unigram, f"model {loss:.3f} bits/word vs unigram {unigram:.3f}"


@pytest.mark.floats
def test_the_tiny_model_is_causal(tiny):
    model, tokenizer = tiny
    idx = torch.tensor([tokenizer.encode("the fox that the child saw was hungry , so the fox slept .")])
    changed = idx.clone()
    changed[0, 8] = tokenizer.encode("cat")[0]
    with torch.no_grad():
        assert torch.equal(model(idx)[:, :8], model(changed)[:, :8])


@pytest.mark.floats
def test_training_is_seeded_and_reproducible():
    config = GPTConfig(vocab_size=len(Tokenizer.from_lexicon()), context_length=16, d_model=16, n_heads=2, n_layers=1)
    data = encode_corpus(200, 0)
    states = []
    for _ in range(2):
        torch.manual_seed(0)
        model = GPT(config)
        trainer = Trainer(model, data, TrainSettings(steps=3, batch_size=4))
        losses = [trainer.step().loss for _ in range(3)]
        states.append((losses, model.state_dict()))
    (l1, s1), (l2, s2) = states
    assert l1 == l2 and all(torch.equal(s1[k], s2[k]) for k in s1)


def test_train_command_writes_a_model_load_tiny_can_read(tmp_path, capsys):
    from core.cli import main

    assert main(["train", "--steps", "2", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "unigram entropy" in out and "zh: layer" in out and "en: layer" in out
    model, tokenizer = load_tiny(tmp_path)
    assert model.config.n_layers >= 1 and len(tokenizer) == model.config.vocab_size


def test_the_copy_head_still_predicts_a_repeated_noun(tiny):
    from core.corpus import NOUNS
    from core.lab.heldout import next_word_bits, noun_bits, sentence_batch
    from core.lab.pronoun import heldout_sentences

    model, tokenizer = tiny
    batch = sentence_batch(heldout_sentences(400), tokenizer)
    with torch.no_grad():
        repeat, first = noun_bits(next_word_bits(model(batch.idx), batch), batch, NOUNS)
    assert repeat < 0.2 * first, (repeat, first)  # README: 0.52 against 4.77 bits
