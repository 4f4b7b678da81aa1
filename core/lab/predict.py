"""From attention to the next word: what the model predicts, and one seeded word at a time.

Pure functions of a GPT, its tokenizer and a prompt (a sentence or token ids); each returns a
frozen dataclass whose dataclasses.asdict() is the JSON payload of an API endpoint:

    /next_words(sentence, position, temperature, top_k, seed)            -> NextWords
    /generate(sentence, n_words, temperature, top_k, seed, use_cache)    -> Generation
    "generate one word" (the step button)                                -> WordStep

A "word" is one token, shown as the tokenizer decodes it alone (a whole word for the tiny model,
a piece with its leading space for GPT-2's BPE). Seeded: the draw for the token at absolute
position p uses torch.Generator().manual_seed(step_seed(seed, p)), so a class with the same seed
sees the same words, and n single steps give exactly what generate(n_words) gives.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import torch
from torch import Tensor

from ..config import ConfigError
from ..gpt.decode import Decoder, next_token_distribution, sample_next
from ..i18n import mark, t
from ..model import GPT

TOP_N = 10
MESSAGES = {  # msgids (core.i18n)
    "empty": mark("the sentence has no tokens; type at least one word"),
    "position": mark("position={position} is outside the sentence; choose 0 to {last} (or -1 for the last token)"),
    "temperature": mark("temperature={value!r} must be a number, 0 (always the likeliest word) or more"),
    "n_words": mark("n_words={value!r} must be a whole number from 1 to {most}"),
}
MAX_WORDS = 256


class TextTokenizer(Protocol):
    """What the views need of a tokenizer: the tiny model's word-level one and GPT-2's BPE both fit."""

    def encode(self, text: str) -> list[int]: ...
    def decode(self, ids: Sequence[int]) -> str: ...


@dataclass(frozen=True)
class Candidate:
    """One possible next word and how likely it is after temperature and top-k."""

    word: str  # the token's text, decoded alone
    token: int  # its id
    probability: float  # the distribution over the whole vocabulary sums to 1


@dataclass(frozen=True)
class NextWords:
    """The likeliest words after tokens[position], and the word that does follow there (if any)."""

    tokens: list[str]  # the prompt's tokens, as text
    position: int  # the prediction is for the token after tokens[position]
    temperature: float
    top_k: int | None
    candidates: list[Candidate]  # at most TOP_N, likeliest first, only words with probability > 0
    actual: Candidate | None  # tokens[position + 1] with its probability; None after the last token


@dataclass(frozen=True)
class WordStep:
    """One generated word: what was drawn, and how the new token looks back at every token before it."""

    tokens: list[str]  # the prompt's tokens and then the new word
    word: str
    token: int
    probability: float  # of the drawn word, after temperature and top-k
    attention: list[list[list[float]]]  # (n_layers, n_heads, n_seen): the new token's row, each sums to 1
    attention_start: int  # tokens[attention_start:] are the n_seen keys of the row (a model reads its context only)
    cache_length: int  # keys each layer's cache holds once the new token is in it (0 without a cache)
    seconds: float


@dataclass(frozen=True)
class Generation:
    """n_words drawn one at a time; per step, what the model had to compute and how long it took."""

    prompt: list[str]  # the prompt's tokens, as text
    words: list[str]
    tokens: list[int]
    probabilities: list[float]  # of each drawn word
    cache_lengths: list[int]  # per step: keys each layer held to predict it (0 without a cache)
    computed: list[int]  # per step: tokens run through the model (1 with a warm cache, the whole context without)
    seconds: list[float]  # per step: model and draw, wall time
    text: str  # prompt and words, decoded together
    use_cache: bool


def step_seed(seed: int, position: int) -> int:
    """The seed of the draw for the token at absolute position `position`: one stream per (seed, position)."""
    return (int(seed) * 1_000_003 + int(position)) % (2**63 - 1)


@torch.no_grad()
def next_words(
    model: GPT, tokenizer: TextTokenizer, prompt: str | Sequence[int], position: int = -1,
    temperature: float = 1.0, top_k: int | None = None, n: int = TOP_N,
) -> NextWords:
    """The top-n next words after tokens[position] (default: the last), from the tokens up to it."""
    ids = _ids(tokenizer, prompt)
    position = _position(position, len(ids))
    probs = _distribution(model, ids[: position + 1], temperature, top_k)  # (V,)
    top = torch.topk(probs, min(n, probs.numel()))
    candidates = [_candidate(tokenizer, int(t), float(p)) for p, t in zip(top.values, top.indices, strict=True) if p > 0]
    actual = _candidate(tokenizer, ids[position + 1], float(probs[ids[position + 1]])) if position + 1 < len(ids) else None
    return NextWords(tokens=_texts(tokenizer, ids), position=position, temperature=float(temperature), top_k=top_k,
                     candidates=candidates, actual=actual)


@torch.no_grad()
def generate_word(
    model: GPT, tokenizer: TextTokenizer, prompt: str | Sequence[int], temperature: float = 1.0,
    top_k: int | None = None, seed: int = 0, use_cache: bool = True,
) -> WordStep:
    """Draw the next word (seeded), append it, and show its attention row in every layer and head."""
    ids = _ids(tokenizer, prompt)
    t0 = time.perf_counter()
    decoder = Decoder(model, torch.tensor([ids]), use_cache=use_cache)
    token, probability = _draw(decoder.logits, temperature, top_k, seed, len(ids))
    decoder.push(torch.tensor([[token]]))  # the cache now holds the new token too
    seconds = time.perf_counter() - t0
    window = decoder.window()  # (1, n_seen) what the model reads: the new token is last
    rows = model.trace(window)[:, 0, :, -1, :]  # (n_layers, H, n_seen)
    return WordStep(
        tokens=_texts(tokenizer, [*ids, token]), word=tokenizer.decode([token]), token=token, probability=probability,
        attention=rows.tolist(), attention_start=len(ids) + 1 - window.shape[1],
        cache_length=decoder.cache_length, seconds=seconds,
    )


@torch.no_grad()
def generate(
    model: GPT, tokenizer: TextTokenizer, prompt: str | Sequence[int], n_words: int = 10,
    temperature: float = 1.0, top_k: int | None = None, seed: int = 0, use_cache: bool = True,
) -> Generation:
    """n_words seeded words, one forward step each: with the cache a step runs one token, without it the context."""
    ids = _ids(tokenizer, prompt)
    if not isinstance(n_words, int) or isinstance(n_words, bool) or not 1 <= n_words <= MAX_WORDS:
        raise ConfigError(t(MESSAGES["n_words"], value=n_words, most=MAX_WORDS))
    tokens, probabilities, cache_lengths, computed, seconds = [], [], [], [], []
    t0 = time.perf_counter()
    decoder = Decoder(model, torch.tensor([ids]), use_cache=use_cache, reserve=len(ids) + n_words)
    for i in range(n_words):
        if i:
            decoder.push(torch.tensor([[tokens[-1]]]))
        token, probability = _draw(decoder.logits, temperature, top_k, seed, len(ids) + i)
        tokens.append(token)
        probabilities.append(probability)
        cache_lengths.append(decoder.cache_length)
        computed.append(decoder.computed)
        seconds.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
    return Generation(
        prompt=_texts(tokenizer, ids), words=[tokenizer.decode([t]) for t in tokens], tokens=tokens,
        probabilities=probabilities, cache_lengths=cache_lengths, computed=computed, seconds=seconds,
        text=tokenizer.decode([*ids, *tokens]), use_cache=use_cache,
    )


# ---- pieces ------------------------------------------------------------------------------


def _ids(tokenizer: TextTokenizer, prompt: str | Sequence[int]) -> list[int]:
    ids = tokenizer.encode(prompt) if isinstance(prompt, str) else [int(i) for i in prompt]
    if not ids:
        raise ConfigError(t(MESSAGES["empty"]))
    return ids


def _position(position: int, n: int) -> int:
    if not isinstance(position, int) or isinstance(position, bool) or not -n <= position < n:
        raise ConfigError(t(MESSAGES["position"], position=position, last=n - 1))
    return position % n


def _check_temperature(temperature: float) -> None:
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not math.isfinite(temperature) \
            or temperature < 0:
        raise ConfigError(t(MESSAGES["temperature"], value=temperature))


def _distribution(model: GPT, ids: list[int], temperature: float, top_k: int | None) -> Tensor:
    """Next-token probabilities (V,) after ids, read as generation reads them (the last context_length tokens)."""
    _check_temperature(temperature)
    logits = Decoder(model, torch.tensor([ids]), use_cache=False).logits  # (1, V)
    return next_token_distribution(logits, temperature, top_k)[0]


def _draw(logits: Tensor, temperature: float, top_k: int | None, seed: int, position: int) -> tuple[int, float]:
    """The seeded draw for the token at `position`, and its probability."""
    _check_temperature(temperature)
    generator = torch.Generator().manual_seed(step_seed(seed, position))
    token = int(sample_next(logits, temperature, top_k, generator)[0, 0])
    return token, float(next_token_distribution(logits, temperature, top_k)[0, token])


def _candidate(tokenizer: TextTokenizer, token: int, probability: float) -> Candidate:
    return Candidate(word=tokenizer.decode([token]), token=token, probability=probability)


def _texts(tokenizer: TextTokenizer, ids: Sequence[int]) -> list[str]:
    return [tokenizer.decode([i]) for i in ids]
