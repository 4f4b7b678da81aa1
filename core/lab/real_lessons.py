"""Two lesson steps on a real model, measured on the sentence: where 它 looks in every layer and head (and what the
head that looks hardest at its noun does to the next word), and the attention sink (each head's weight on the first
token, and what barring every later token from it costs the loss)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from ..config import ConfigError
from ..gpt.lab_attention import Switches, lab_forward
from ..i18n import mark, t

MESSAGES = {
    "missing": mark("'{word}' is not in the sentence as this model reads it; the step needs it"),
    "short": mark("the sentence needs at least two tokens: the loss is each token predicted from the ones before it"),
}


def spans(tokenizer: Any, text: str, ids: list[int]) -> list[tuple[int, int]]:
    """Each token's (start, end) characters in text: the fast tokenizer's offsets, else one word per token."""
    hf = getattr(tokenizer, "hf", None)
    if hf is not None and getattr(hf, "is_fast", False):
        enc = hf(text, add_special_tokens=True, return_offsets_mapping=True)
        if list(enc["input_ids"]) == list(ids):
            return [tuple(o) for o in enc["offset_mapping"]]
    out, at = [], 0
    for i in ids:  # a word-level tokenizer (the tiny model's): each token a word of the text, in order
        word = tokenizer.decode([i]).strip()
        start = text.find(word, at) if word else -1
        out.append((start, start + len(word)) if start >= 0 else (at, at))
        at = out[-1][1]
    return out


def positions(tokenizer: Any, text: str, ids: list[int], word: str, after: int = -1) -> list[int]:
    """The tokens that carry `word` (its first occurrence after token `after`); ConfigError when none does."""
    token_spans = spans(tokenizer, text, ids)
    start = text.find(word, token_spans[after][1] if after >= 0 else 0)
    found = [k for k, (a, b) in enumerate(token_spans) if start >= 0 and a < start + len(word) and b > start and b > a]
    if not found:
        raise ConfigError(t(MESSAGES["missing"], word=word))
    return found


@dataclass(frozen=True)
class PronounHeads:
    """Where the pronoun's row looks in every layer and head, and the head that looks hardest at its noun, zeroed."""

    tokens: list[str]
    pronoun: int  # the pronoun's token
    noun: list[int]  # the noun's tokens
    on_noun: Tensor  # (L, H) the pronoun's row's weight on the noun's tokens
    best: tuple[int, int]  # (layer, head) with the most
    next_intact: tuple[str, float]  # the likeliest next word after the sentence, and its probability
    next_zeroed: tuple[str, float]  # the same with the best head zeroed
    intact_word_zeroed: float  # the intact likeliest word's probability with the head zeroed


def _top(logits: Tensor, tokenizer: Any) -> tuple[str, float, Tensor]:
    probs = torch.softmax(logits[-1].float(), -1)  # (V,)
    i = int(probs.argmax())
    return tokenizer.decode([i]), float(probs[i]), probs


def pronoun_heads(model: Any, tokenizer: Any, sentence: str, pronoun: str = "它", noun: str = "违约金") -> PronounHeads:
    """The chapter's sentence through a real model: the pronoun's row in every layer and head, the noun's share."""
    ids = tokenizer.encode(sentence)
    noun_at = positions(tokenizer, sentence, ids, noun)
    pron = positions(tokenizer, sentence, ids, pronoun, after=noun_at[-1])[0]
    intact = lab_forward(model, ids)
    on_noun = intact.weights[:, :, pron][..., noun_at].sum(-1)  # (L, H)
    flat = int(on_noun.argmax())
    best = (flat // on_noun.shape[1], flat % on_noun.shape[1])
    zeroed = lab_forward(model, ids, Switches(ablate=frozenset({best})))
    word, p, _ = _top(intact.logits, tokenizer)
    word_z, p_z, probs_z = _top(zeroed.logits, tokenizer)
    kept = float(probs_z[int(torch.softmax(intact.logits[-1].float(), -1).argmax())])
    return PronounHeads([tokenizer.decode([i]) for i in ids], pron, noun_at, on_noun, best, (word, p),
                        (word_z, p_z), kept)


@dataclass(frozen=True)
class Sink:
    """Each head's mean weight on the first token, and the loss with every later token barred from it."""

    tokens: list[str]
    on_first: Tensor  # (L, H) mean over query rows 1..T-1 of the weight on token 0
    loss_intact: float  # bits per token
    loss_without: float  # every later query in every layer barred from token 0


def _loss(logits: Tensor, ids: list[int]) -> float:
    logp = torch.log_softmax(logits.float(), -1)  # (T, V)
    return float(-logp[:-1].gather(1, torch.tensor(ids[1:])[:, None]).mean()) / math.log(2)


def attention_sink(model: Any, tokenizer: Any, sentence: str) -> Sink:
    """The sentence through the model: every head's weight on its first token; then token 0 hidden from the rest."""
    ids = tokenizer.encode(sentence)
    if len(ids) < 3:
        raise ConfigError(t(MESSAGES["short"]))
    intact = lab_forward(model, ids)
    without = lab_forward(model, ids, Switches(hidden=frozenset({0})))
    on_first = intact.weights[:, :, 1:, 0].mean(-1)  # (L, H): rows 1..T-1 (row 0 can only see itself)
    return Sink([tokenizer.decode([i]) for i in ids], on_first, _loss(intact.logits, ids),
                _loss(without.logits, ids))
