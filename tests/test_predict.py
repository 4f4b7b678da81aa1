"""Next-word predictions and seeded generation on the shipped tiny model: honest probabilities, same seed same words."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest
import torch

from core.config import ConfigError
from core.corpus import Tokenizer
from core.lab import predict
from core.lab.threads import one_thread
from core.model import GPT, GPTConfig, load_tiny

SENTENCE = "the fox that the child saw was hungry , so the fox"


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    with one_thread():
        yield


@pytest.fixture(scope="module")
def tiny():
    return load_tiny()


def _logits(model, ids):
    with torch.no_grad():
        return model(torch.tensor([ids]))[0, -1]  # (V,)


@pytest.mark.floats
def test_probabilities_cover_the_vocabulary_and_match_the_model(tiny):
    model, tok = tiny
    V = len(tok)
    out = predict.next_words(model, tok, SENTENCE, n=V)
    assert len(out.candidates) == V
    assert sum(c.probability for c in out.candidates) == pytest.approx(1.0, abs=1e-5)
    reference = torch.softmax(_logits(model, tok.encode(SENTENCE)), -1)  # (V,)
    assert [c.token for c in out.candidates[:10]] == torch.topk(reference, 10).indices.tolist()
    assert out.candidates[0].probability == pytest.approx(reference.max().item(), abs=1e-6)


def test_top_ten_by_default_likeliest_first(tiny):
    model, tok = tiny
    out = predict.next_words(model, tok, SENTENCE)
    probs = [c.probability for c in out.candidates]
    assert len(probs) == 10 and probs == sorted(probs, reverse=True)
    assert out.tokens == SENTENCE.split() and out.position == len(out.tokens) - 1 and out.actual is None


@pytest.mark.floats
def test_top_k_keeps_only_k_words_renormalised(tiny):
    model, tok = tiny
    full = predict.next_words(model, tok, SENTENCE)
    cut = predict.next_words(model, tok, SENTENCE, top_k=3)
    assert [c.token for c in cut.candidates] == [c.token for c in full.candidates[:3]]
    assert sum(c.probability for c in cut.candidates) == pytest.approx(1.0, abs=1e-6)
    top3 = sum(c.probability for c in full.candidates[:3])
    assert cut.candidates[0].probability == pytest.approx(full.candidates[0].probability / top3, rel=1e-5)


def test_temperature_zero_is_greedy_and_higher_temperature_is_flatter(tiny):
    model, tok = tiny
    greedy = predict.next_words(model, tok, SENTENCE, temperature=0)
    assert len(greedy.candidates) == 1 and greedy.candidates[0].probability == 1.0
    assert greedy.candidates[0].token == int(_logits(model, tok.encode(SENTENCE)).argmax())
    cold, hot = (predict.next_words(model, tok, SENTENCE, temperature=t, n=len(tok)) for t in (0.5, 2.0))
    entropy = [-sum(c.probability * torch.log(torch.tensor(c.probability)).item() for c in o.candidates) for o in (cold, hot)]
    assert entropy[0] < entropy[1]
    words = predict.generate(model, tok, "the", n_words=12, temperature=0)
    assert words.tokens == model.generate(torch.tensor([tok.encode("the")]), 12, temperature=0)[0, 1:].tolist()


@pytest.mark.floats
def test_any_position_reads_only_the_words_up_to_it(tiny):
    model, tok = tiny
    ids = tok.encode(SENTENCE)
    at = predict.next_words(model, tok, ids, position=3)
    alone = predict.next_words(model, tok, ids[:4])  # the same prefix, nothing after it
    assert at.candidates == alone.candidates
    assert at.actual.token == ids[4] and at.actual.word == "child"
    reference = torch.softmax(_logits(model, ids[:4]), -1)
    assert at.actual.probability == pytest.approx(reference[ids[4]].item(), abs=1e-6)
    assert predict.next_words(model, tok, ids, position=-1).position == len(ids) - 1


def test_the_same_seed_gives_the_same_words_and_another_seed_other_words(tiny):
    model, tok = tiny
    runs = [predict.generate(model, tok, "the", n_words=15, temperature=1.5, seed=s) for s in (3, 3, 4, 5)]
    assert runs[0].words == runs[1].words
    assert runs[0].words != runs[2].words or runs[0].words != runs[3].words


@pytest.mark.floats
def test_one_word_at_a_time_equals_generating_them_all(tiny):
    model, tok = tiny
    whole = predict.generate(model, tok, "the cat", n_words=6, temperature=1.0, top_k=8, seed=11)
    ids = tok.encode("the cat")
    for expected, p in zip(whole.tokens, whole.probabilities, strict=True):
        step = predict.generate_word(model, tok, ids, temperature=1.0, top_k=8, seed=11)
        assert (step.token, step.probability) == (expected, pytest.approx(p, abs=1e-6))
        ids.append(step.token)
    assert step.tokens == tok.decode(ids).split()


@pytest.mark.floats
def test_the_new_tokens_attention_rows_are_probability_rows_over_what_came_before(tiny):
    model, tok = tiny
    ids = tok.encode(SENTENCE)
    step = predict.generate_word(model, tok, ids, seed=1)
    rows = torch.tensor(step.attention)  # (layers, heads, T+1)
    assert rows.shape == (2, 4, len(ids) + 1) and step.attention_start == 0
    assert torch.allclose(rows.sum(-1), torch.ones(2, 4), atol=1e-5)
    assert torch.allclose(rows, model.trace(torch.tensor([[*ids, step.token]]))[:, 0, :, -1, :], atol=1e-6)
    assert step.cache_length == len(ids) + 1


def test_a_sliding_windows_row_is_zero_outside_its_band():
    tok = Tokenizer.from_lexicon()
    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=len(tok), context_length=32, d_model=16, n_heads=2, n_layers=2,
                          variant="sliding-window", options={"window": 3, "stride": 0})).eval()
    step = predict.generate_word(model, tok, SENTENCE, seed=0)
    rows = torch.tensor(step.attention)  # (2, 2, T+1)
    assert torch.all(rows[..., :-3] == 0) and torch.all(rows[..., -3:] > 0)  # only the last 3 tokens, itself included
    assert step.cache_length == 2  # a rolling cache: the window-1 keys the next token can still reach


def test_the_cache_runs_one_token_a_step_and_gives_the_same_words(tiny):
    model, tok = tiny
    ids = tok.encode(SENTENCE)
    cached = predict.generate(model, tok, ids, n_words=8, seed=2)
    full = predict.generate(model, tok, ids, n_words=8, seed=2, use_cache=False)
    assert cached.words == full.words and cached.use_cache and not full.use_cache
    n = len(ids)
    assert cached.cache_lengths == list(range(n, n + 8)) and cached.computed == [n] + [1] * 7
    assert full.cache_lengths == [0] * 8 and full.computed == list(range(n, n + 8))
    assert len(cached.seconds) == 8 and all(s >= 0 for s in cached.seconds)
    assert cached.text == tok.decode(ids + cached.tokens)


def test_past_the_context_the_learned_positions_limit_what_is_kept(tiny):
    model, tok = tiny
    ids = (tok.encode(SENTENCE) * 6)[:60]  # context_length is 64
    out = predict.generate(model, tok, ids, n_words=8, seed=0)
    assert out.cache_lengths == [60, 61, 62, 63, 64, 64, 64, 64]
    assert out.computed == [60, 1, 1, 1, 1, 64, 64, 64]  # the cache is rebuilt once positions must shift
    assert out.words == predict.generate(model, tok, ids, n_words=8, seed=0, use_cache=False).words
    step = predict.generate_word(model, tok, ids + out.tokens, seed=0)
    assert len(step.attention[0][0]) == 64 and step.attention_start == 69 - 64


def test_every_payload_is_json(tiny):
    model, tok = tiny
    for result in (predict.next_words(model, tok, SENTENCE, position=2), predict.generate_word(model, tok, "the"),
                   predict.generate(model, tok, "the", n_words=3)):
        assert json.loads(json.dumps(asdict(result))) == asdict(result)


@pytest.mark.parametrize("call, message", [
    (lambda m, t: predict.next_words(m, t, ""), "has no tokens"),
    (lambda m, t: predict.next_words(m, t, "the fox", position=2), r"position=2 is outside the sentence; choose 0 to 1"),
    (lambda m, t: predict.next_words(m, t, "the fox", temperature=-1), "temperature=-1"),
    (lambda m, t: predict.next_words(m, t, "the fox", top_k=0), "top_k=0"),
    (lambda m, t: predict.generate(m, t, "the fox", n_words=0), "n_words=0"),
])
def test_a_bad_request_is_one_sentence(tiny, call, message):
    with pytest.raises(ConfigError, match=message):
        call(*tiny)
