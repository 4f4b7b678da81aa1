"""The "trained tiny model" weights switch: a sentence's real attention patterns, and what each head does, measured.

A head is named from numbers, never from a guess: its mean weight on the previous token, on
itself, on the first token, on the earlier mention of the same noun, and (the one that predicts
a repeat) on the earlier mention of the noun that comes next. Measured on the sentence and on
held-out generator sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import torch
from torch import Tensor

from ..config import ConfigError
from ..corpus import NOUNS, UNK, Tokenizer, generate
from ..model import GPT, load_tiny, tiny_config
from .text import MAX_CHARS, text_field
from .train import one_thread

REFERENCE_SEED, REFERENCE_SENTENCES = 777, 200  # held-out text, never used in training
EXAMPLES = (  # sentences the tiny model knows every word of, one per kind of long-range structure
    "the fox that the child saw was hungry , so the fox slept .",
    "the cats chased the dog , and then the dog chased the cats .",
    "the girls near the wolf see the king , because the girls are brave .",
    "a bear went to the river with a fish . by the river , the bear ate the fish .",
)
NAME_THRESHOLD = 0.4  # a head is named after a pattern only if it puts this much weight on it

PATTERNS = {
    "previous token": "the token just before",
    "itself": "the token itself",
    "first token": "the first token of the sentence",
    "earlier mention": "the earlier mention of the same noun (read at the repeat)",
    "noun about to repeat": "the earlier mention of the noun that comes next (predicts the repeat)",
}


@dataclass(frozen=True)
class HeadRole:
    """One head's measured pattern scores and the name they earn."""

    layer: int
    head: int
    scores: dict[str, float]  # pattern -> mean attention weight on it (0..1); absent when the text has no case
    name: str  # the strongest pattern, or "spread out" when none reaches NAME_THRESHOLD


@dataclass(frozen=True)
class TrainedView:
    """What the Attention tab shows for one sentence with the trained tiny model."""

    tokens: list[str]  # the words the model read (lower-cased, punctuation split off)
    unknown: list[str]  # words outside the model's lexicon, read as <unk>
    weights: Tensor  # (n_layers, n_heads, T, T), rows sum to 1, zero above the diagonal
    heads: list[list[HeadRole]]  # [layer][head], measured on this sentence
    reference: list[list[HeadRole]]  # [layer][head], measured on held-out generator sentences

    def describe(self, layer: int, head: int) -> str:
        """What this head does, named from held-out text, with this sentence's number beside it."""
        ref, here = self.reference[layer][head], self.heads[layer][head]
        others = ", ".join(f"{k} {v:.2f}" for k, v in sorted(ref.scores.items(), key=lambda kv: -kv[1])
                           if k != ref.name)
        where = f"over {REFERENCE_SENTENCES} held-out sentences"
        if ref.name == "spread out":
            text = f"Layer {layer} head {head}: spread out; no pattern gets {NAME_THRESHOLD} of its weight {where}"
        else:
            text = f"Layer {layer} head {head}: {ref.name} head; mean weight {ref.scores[ref.name]:.2f} on {PATTERNS[ref.name]} {where}"
            if ref.name in here.scores:
                text += f", {here.scores[ref.name]:.2f} in this sentence"
        return f"{text}. {'Measured' if ref.name == 'spread out' else 'Other patterns'}: {others}."


def pattern_scores(words: Sequence[str], weights: Tensor) -> dict[str, float]:
    """Mean weight per pattern for one head: words (T,), weights (T, T). Patterns with no case are left out."""
    T, w = len(words), weights.tolist()
    sums: dict[str, list[float]] = {k: [] for k in PATTERNS}
    for t in range(1, T):
        row = w[t]  # how query t spreads over keys 0..t
        sums["previous token"].append(row[t - 1])
        sums["itself"].append(row[t])
        sums["first token"].append(row[0])
        if words[t] in NOUNS and words[t] in words[:t]:
            sums["earlier mention"].append(sum(row[s] for s in range(t) if words[s] == words[t]))
        if t + 1 < T and words[t + 1] in NOUNS and words[t + 1] in words[: t + 1]:
            sums["noun about to repeat"].append(sum(row[s] for s in range(t + 1) if words[s] == words[t + 1]))
    return {k: sum(v) / len(v) for k, v in sums.items() if v}


def _roles(scores: list[list[dict[str, float]]]) -> list[list[HeadRole]]:
    out = []
    for layer, heads in enumerate(scores):
        row = []
        for head, s in enumerate(heads):
            best = max(s, key=s.get) if s else None
            name = best if best is not None and s[best] >= NAME_THRESHOLD else "spread out"
            row.append(HeadRole(layer, head, s, name))
        out.append(row)
    return out


def last_layer_and_head() -> tuple[int, int]:
    """The largest layer and head index of the shipped model, read from its config (no weights loaded)."""
    config = tiny_config()
    return config.n_layers - 1, config.n_heads - 1


@lru_cache(maxsize=1)
def tiny() -> tuple[GPT, Tokenizer]:
    """The shipped model, loaded once per process."""
    return load_tiny()


def _trace(sentences: list[list[str]]) -> Tensor:
    """Equal-length word lists -> weights (L, B, H, T, T), on one thread (small model, shared cores)."""
    model, tokenizer = tiny()
    idx = torch.tensor([tokenizer.encode(" ".join(words)) for words in sentences])  # (B, T)
    with one_thread():
        return model.trace(idx)


@lru_cache(maxsize=1)
def reference_roles() -> list[list[HeadRole]]:
    """Each head's pattern scores averaged over held-out sentences (computed once per process)."""
    by_length: dict[int, list[list[str]]] = {}
    for sentence in generate(REFERENCE_SENTENCES, REFERENCE_SEED):
        by_length.setdefault(len(sentence.split()), []).append(sentence.split())
    per_sentence = []
    for group in by_length.values():  # one batched pass per sentence length
        w = _trace(group)  # (L, B, H, T, T)
        for b, words in enumerate(group):
            per_sentence.append([[pattern_scores(words, w[la, b, h]) for h in range(w.shape[2])]
                                 for la in range(w.shape[0])])
    L, H = len(per_sentence[0]), len(per_sentence[0][0])
    mean = [[_mean([s[la][h] for s in per_sentence]) for h in range(H)] for la in range(L)]
    return _roles(mean)


def _mean(dicts: list[dict[str, float]]) -> dict[str, float]:
    keys = {k for d in dicts for k in d}
    return {k: sum(d[k] for d in dicts if k in d) / sum(1 for d in dicts if k in d) for k in PATTERNS if k in keys}


def trained_view(sentence: str) -> TrainedView:
    """Sentence -> tokens, every layer's and head's weights (L, H, T, T) and a measured role per head."""
    model, tokenizer = tiny()
    words = tokenizer.words(text_field("sentence", sentence)[:MAX_CHARS])
    if not words:
        raise ConfigError("type a sentence first, for example: the fox that the child saw was hungry , so the fox slept .")
    limit = model.config.context_length
    if len(words) > limit:
        raise ConfigError(f"the sentence has {len(words)} tokens but the tiny model reads at most {limit}; shorten it")
    unknown = [w for w, i in zip(words, tokenizer.encode(sentence), strict=True) if tokenizer.vocab[i] == UNK]
    w = _trace([words])[:, 0]  # (L, H, T, T)
    scores = [[pattern_scores(words, w[la, h]) for h in range(w.shape[1])] for la in range(w.shape[0])]
    return TrainedView(tokens=words, unknown=unknown, weights=w, heads=_roles(scores), reference=reference_roles())


@dataclass(frozen=True)
class LayerPanel:
    """One layer of the trained model as the app shows it: every head, each named by measurement."""

    tokens: list[str]
    weights: list[Tensor]  # n_heads x (T, T)
    titles: list[str]  # "head 2: noun about to repeat" (the held-out measurement's name)
    selected: str  # the chosen head's description, with its numbers
    roles: str  # one line per head of this layer
    note: str  # which words the model did not know ("" when none)


def layer_panel(sentence: str, layer: int, head: int) -> LayerPanel:
    """The weights switch's trained side: sentence, layer and head -> what to draw and say."""
    view = trained_view(sentence)
    n_layers, n_heads = view.weights.shape[:2]
    if not (0 <= layer < n_layers and 0 <= head < n_heads):
        raise ConfigError(f"the tiny model has layers 0-{n_layers - 1} and heads 0-{n_heads - 1}")
    names = [view.reference[layer][h].name for h in range(n_heads)]
    note = ""
    if view.unknown:
        note = f"Words the tiny model never saw, read as {UNK}: {', '.join(sorted(set(view.unknown)))}."
    return LayerPanel(
        tokens=view.tokens,
        weights=[view.weights[layer, h] for h in range(n_heads)],
        titles=[f"head {h}: {name}" for h, name in enumerate(names)],
        selected=view.describe(layer, head),
        roles="\n".join(view.describe(layer, h) for h in range(n_heads)),
        note=note,
    )
