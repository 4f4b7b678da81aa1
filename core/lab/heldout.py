"""Held-out sentences as one right-padded batch, and the loss of every next word in it.

A causal model never reads to the right, so padding the end of shorter sentences leaves every
real position's prediction exactly what it would be alone: one forward pass measures them all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from core.corpus import Tokenizer

HELDOUT_SEED = 777  # generator seed never used in training (training 0, validation 1, test 12345)


@dataclass(frozen=True)
class Batch:
    """Sentences as ids (N, T), right-padded; real (N, T) marks actual words."""

    words: list[list[str]]
    idx: Tensor  # (N, T) long
    real: Tensor  # (N, T) bool

    @property
    def targets(self) -> Tensor:
        """(N, T) bool: positions whose NEXT word is real, i.e. where a prediction is scored."""
        out = torch.zeros_like(self.real)
        out[:, :-1] = self.real[:, 1:]
        return out


def sentence_batch(sentences: Sequence[str] | Sequence[Sequence[str]], tokenizer: Tokenizer) -> Batch:
    """Word lists (or spaced sentences) -> one right-padded batch."""
    words = [s.split() if isinstance(s, str) else list(s) for s in sentences]
    T = max(len(w) for w in words)
    idx = torch.zeros(len(words), T, dtype=torch.long)
    real = torch.zeros(len(words), T, dtype=torch.bool)
    for n, w in enumerate(words):
        idx[n, : len(w)] = torch.tensor(tokenizer.encode_words(w))
        real[n, : len(w)] = True
    return Batch(words, idx, real)


def next_word_bits(logits: Tensor, batch: Batch) -> Tensor:
    """Bits to predict each next word: (N, T), entry t = -log2 p(word t+1 | words <= t); NaN where none."""
    N, T, V = logits.shape
    nxt = torch.zeros_like(batch.idx)
    nxt[:, :-1] = batch.idx[:, 1:]
    nats = F.cross_entropy(logits.reshape(N * T, V), nxt.reshape(-1), reduction="none").view(N, T)
    return torch.where(batch.targets, nats / math.log(2), torch.full_like(nats, float("nan")))


def noun_bits(bits: Tensor, batch: Batch, nouns: frozenset[str]) -> tuple[float, float]:
    """Mean bits to predict a noun named before in its sentence (a repeat), and one named for the first time."""
    repeat, first = [], []
    for n, words in enumerate(batch.words):
        for t in range(len(words) - 1):
            nxt = words[t + 1]
            if nxt in nouns:
                (repeat if nxt in words[: t + 1] else first).append(float(bits[n, t]))
    return sum(repeat) / max(1, len(repeat)), sum(first) / max(1, len(first))
