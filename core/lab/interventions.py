"""Do not mythologise attention weights: each head's measured pattern beside what the model loses without it.

For every layer and head of the trained tiny model: its mean weight on the pattern it is named
after (held-out text, core.lab.trained_view), and how much the held-out next-word loss rises when the
head is ablated (core.lab.ablate: its output zeroed, or its weights made uniform over the keys it
may see), overall and on the word after 它 可能 / it may. Then the same ablations on a typed
sentence: what the model predicts next with and without each head. A head can look striking and
matter little; these numbers say which.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import torch

from core.corpus import Tokenizer
from core.i18n import t
from core.lab.threads import one_thread
from core.lab.tiny import tiny
from core.lab.trained_view import HeadRole, reference_roles
from core.model import GPT

from .ablate import MODES, Ablation, Mode, edited_logits
from .heldout import next_word_bits, sentence_batch
from .pronoun import cases, heldout_sentences

TOP_K = 5
EFFECT_SENTENCES = 600  # held-out sentences the loss increases are measured on


@dataclass(frozen=True)
class HeadEffect:
    """One head: what its weights look like, and what taking it out costs."""

    layer: int
    head: int
    role: str  # its name from held-out text ("spread out" when no pattern reaches the threshold)
    pattern: str  # the pattern it puts most weight on (even when below the naming threshold)
    pattern_weight: float  # its mean weight on that pattern, 0..1
    loss_increase: dict[str, float]  # mode -> bits per word added to the held-out loss
    after_may_increase: dict[str, float]  # mode -> bits added on the word after 它 可能 / it may


@dataclass(frozen=True)
class HeldOutEffects:
    """The held-out half of the view: every head, side by side, and what it was measured on."""

    base_loss: float  # bits per word, nothing ablated
    base_after_may: float  # bits on the word after 它 可能 / it may, nothing ablated
    n_words: int
    n_after_may: int
    heads: list[HeadEffect]
    seconds: float  # how long the measurement took (it is cached per process)


def measure_effects(model: GPT, tokenizer: Tokenizer, roles: list[list[HeadRole]],
                    sentences: list[list[str]]) -> HeldOutEffects:
    """Ablate each head in each mode on these sentences; loss increases in bits."""
    start = time.perf_counter()
    batch = sentence_batch(sentences, tokenizer)
    found = [(n, c) for n, words in enumerate(batch.words) for c in cases([words]) if c.may]
    rows = torch.tensor([n for n, _ in found], dtype=torch.long)
    cols = torch.tensor([c.pronoun + 1 for _, c in found], dtype=torch.long)  # 可能 / may predicts the noun's word

    def losses(ablation: Ablation | None) -> tuple[float, float]:
        bits = next_word_bits(edited_logits(model, batch.idx, ablation), batch)  # (N, T)
        return float(bits[batch.targets].mean()), float(bits[rows, cols].mean()) if len(found) else float("nan")

    base, base_may = losses(None)
    heads = []
    for layer, row in enumerate(roles):
        for role in row:
            up, up_may = {}, {}
            for mode in MODES:
                loss, may = losses(Ablation(layer, role.head, mode))
                up[mode], up_may[mode] = loss - base, may - base_may
            pattern = max(role.scores, key=role.scores.get)
            heads.append(HeadEffect(layer, role.head, role.name, pattern, role.scores[pattern], up, up_may))
    return HeldOutEffects(base, base_may, int(batch.targets.sum()), len(found), heads,
                          round(time.perf_counter() - start, 2))


@lru_cache(maxsize=1)
def heldout_effects() -> HeldOutEffects:
    """The shipped model's table, computed once per process."""
    model, tokenizer = tiny()
    roles = reference_roles()
    with one_thread():  # small tensors: one thread is faster on shared cores
        return measure_effects(model, tokenizer, roles, heldout_sentences(EFFECT_SENTENCES))


@dataclass(frozen=True)
class Contrast:
    """Two heads that show weights are not importance: a focused head whose ablation costs little, a diffuse
    head whose ablation costs much (either may be None when the heads do not split that way)."""

    mode: Mode
    striking: HeadEffect | None  # most weight on its pattern among the heads that cost less than the median
    plain: HeadEffect | None  # costliest among the heads with less weight on their pattern than the median


def contrast(table: HeldOutEffects, mode: Mode) -> Contrast:
    """Pick the pair of heads that shows how far attention weights are from importance, for one ablation."""
    heads = table.heads
    cost = statistics.median(h.loss_increase[mode] for h in heads)
    focus = statistics.median(h.pattern_weight for h in heads)
    cheap = [h for h in heads if h.loss_increase[mode] < cost]
    diffuse = [h for h in heads if h.pattern_weight < focus]
    striking = max(cheap, key=lambda h: h.pattern_weight, default=None)
    plain = max(diffuse, key=lambda h: h.loss_increase[mode], default=None)
    if striking is not None and plain is not None and plain.loss_increase[mode] <= striking.loss_increase[mode]:
        plain = None  # nothing to contrast: the diffuse heads matter no more than the striking one
    return Contrast(mode, striking, plain)


def _top(probs: torch.Tensor, vocab: tuple[str, ...], k: int = TOP_K) -> list[dict[str, Any]]:
    p, i = probs.topk(k)
    return [{"word": vocab[j], "p": round(float(q), 4)} for q, j in zip(p, i, strict=True)]


def sentence_effects(sentence: str, mode: Mode = "zero") -> dict[str, Any]:
    """What the model predicts after the typed sentence, intact and with each head ablated."""
    if mode not in MODES:
        raise ValueError(t("mode must be one of {modes}", modes=", ".join(MODES)))
    model, tokenizer = tiny()
    words = tokenizer.words(sentence)
    if not words:
        raise ValueError(t("type a sentence first, for example: 合同 违约金 过高 ， 它 可能"))
    if len(words) > model.config.context_length:
        raise ValueError(t("the sentence has {n} tokens but the tiny model reads at most {limit}; shorten it",
                           n=len(words), limit=model.config.context_length))
    idx = torch.tensor([tokenizer.encode_words(words)])  # (1, T)
    heads = []
    with one_thread():
        intact = torch.softmax(edited_logits(model, idx)[0, -1], -1)  # (V,)
        top_word = int(intact.argmax())
        for layer in range(model.config.n_layers):
            for head in range(model.config.n_heads):
                p = torch.softmax(edited_logits(model, idx, Ablation(layer, head, mode))[0, -1], -1)  # (V,)
                heads.append({
                    "layer": layer, "head": head, "top": _top(p, tokenizer.vocab, 3),
                    "p_intact_top": round(float(p[top_word]), 4),
                    "total_variation": round(float((p - intact).abs().sum() / 2), 4),
                })
    return {"tokens": words, "mode": mode, "intact": _top(intact, tokenizer.vocab), "heads": heads}


def interventions_payload(sentence: str, mode: Mode = "zero") -> dict[str, Any]:
    """The whole view as JSON: the held-out table (cached) and the typed sentence's predictions."""
    table = heldout_effects()
    return {"heldout": {k: v for k, v in asdict(table).items()}, "sentence": sentence_effects(sentence, mode)}
