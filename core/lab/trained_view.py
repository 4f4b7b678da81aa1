"""The "trained tiny model" weights switch: a sentence's real attention patterns, and what each head does, measured.

A head is named from numbers, never from a guess: its mean weight on the previous token, on
itself, on the first token, on the earlier mention of the same noun, (the one that predicts
a repeat) on the earlier mention of the noun that comes next, and, at 它 / it, on the noun the
pronoun refers to (违约金, not the document 合同 named beside it). Measured on the sentence and on
held-out generator sentences.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import torch
from torch import Tensor

from ..config import ConfigError
from ..corpus import NOUNS, PRONOUNS, UNK, generate, referent
from ..i18n import mark, t
from ..model import tiny_config
from ..text import segment
from .text import MAX_CHARS, sentences, text_field
from .threads import one_thread
from .tiny import tiny

REFERENCE_SEED, REFERENCE_SENTENCES = 777, 600  # held-out text: a seed and pronoun shapes never used in training
EXAMPLES = (  # sentences the tiny model knows every word of; the first is the chapter's, exactly (8 words)
    "合同 违约金 过高 ， 它 可能 存在 风险",
    "the fox that the child saw was hungry , so the fox slept .",
    "这份合同中的违约金过高，它可能存在风险。",
    "这份报告中的指标过高，它可能误导读者。",
    "the report 's figure was too high , so it may mislead readers .",
    "the cats chased the dog , and then the dog chased the cats .",
    "the girls near the wolf see the king , because the girls are brave .",
    "a bear went to the river with a fish . by the river , the bear ate the fish .",
)
NAME_THRESHOLD = 0.4  # a head is named after a pattern only if it puts this much weight on it

# A pattern's name (what the API's JSON calls a head, and a msgid where a person reads it) -> what it measures
PATTERNS = {
    mark("previous token"): mark("the token just before"),
    mark("itself"): mark("the token itself"),
    mark("first token"): mark("the first token of the sentence"),
    mark("earlier mention"): mark("the earlier mention of the same noun (read at the repeat)"),
    mark("noun about to repeat"): mark("the earlier mention of the noun that comes next (predicts the repeat)"),
    mark("pronoun → its noun"): mark(
        "the noun 它 / it refers to, read at the pronoun (违约金, not the document 合同)"),
}
SPREAD_OUT = mark("spread out")  # a head no pattern names


@dataclass(frozen=True)
class HeadRole:
    """One head's measured pattern scores and the name they earn."""

    layer: int
    head: int
    scores: dict[str, float]  # pattern -> mean attention weight on it (0..1); absent when the text has no case
    name: str  # the strongest pattern, or SPREAD_OUT when none reaches NAME_THRESHOLD (in English: t() to show it)


@dataclass(frozen=True)
class TrainedView:
    """What the Attention tab shows for one sentence with the trained tiny model."""

    tokens: list[str]  # the words the model read (lower-cased, punctuation split off, Chinese words)
    unknown: list[str]  # words outside the model's lexicon, read as <unk>
    segmented: bool  # Chinese without spaces was cut into words automatically
    weights: Tensor  # (n_layers, n_heads, T, T), rows sum to 1, zero above the diagonal
    heads: list[list[HeadRole]]  # [layer][head], measured on this sentence
    reference: list[list[HeadRole]]  # [layer][head], measured on held-out generator sentences

    def describe(self, layer: int, head: int) -> str:
        """What this head does, named from held-out text, with this sentence's number beside it."""
        ref, here = self.reference[layer][head], self.heads[layer][head]
        others = ", ".join(f"{t(k)} {v:.2f}" for k, v in sorted(ref.scores.items(), key=lambda kv: -kv[1])
                           if k != ref.name)
        if ref.name == SPREAD_OUT:
            return sentences(t("Layer {layer} head {head}: spread out; no pattern gets {threshold} of its weight over "
                               "{n} held-out sentences.", layer=layer, head=head, threshold=NAME_THRESHOLD,
                               n=REFERENCE_SENTENCES), t("Measured: {others}.", others=others))
        fields = dict(layer=layer, head=head, name=t(ref.name), w=format(ref.scores[ref.name], ".2f"),
                      pattern=t(PATTERNS[ref.name]), n=REFERENCE_SENTENCES)
        if ref.name in here.scores:
            text = t("Layer {layer} head {head}: {name} head; mean weight {w} on {pattern} over {n} held-out "
                     "sentences, {here} in this sentence.", here=format(here.scores[ref.name], ".2f"), **fields)
        else:
            text = t("Layer {layer} head {head}: {name} head; mean weight {w} on {pattern} over {n} held-out "
                     "sentences.", **fields)
        return sentences(text, t("Other patterns: {others}.", others=others))


def pattern_scores(words: Sequence[str], weights: Tensor) -> dict[str, float]:
    """Mean weight per pattern for one head: words (T,), weights (T, T). Patterns with no case are left out."""
    T, w = len(words), weights.tolist()
    sums: dict[str, list[float]] = {k: [] for k in PATTERNS}
    for q in range(1, T):
        row = w[q]  # how query q spreads over keys 0..q
        sums["previous token"].append(row[q - 1])
        sums["itself"].append(row[q])
        sums["first token"].append(row[0])
        if words[q] in NOUNS and words[q] in words[:q]:
            sums["earlier mention"].append(sum(row[s] for s in range(q) if words[s] == words[q]))
        if q + 1 < T and words[q + 1] in NOUNS and words[q + 1] in words[: q + 1]:
            sums["noun about to repeat"].append(sum(row[s] for s in range(q + 1) if words[s] == words[q + 1]))
        noun = referent(words, q)
        if noun is not None:
            sums["pronoun → its noun"].append(row[noun])
    return {k: sum(v) / len(v) for k, v in sums.items() if v}


def _roles(scores: list[list[dict[str, float]]]) -> list[list[HeadRole]]:
    out = []
    for layer, heads in enumerate(scores):
        row = []
        for head, s in enumerate(heads):
            best = max(s, key=s.get) if s else None
            name = best if best is not None and s[best] >= NAME_THRESHOLD else SPREAD_OUT
            row.append(HeadRole(layer, head, s, name))
        out.append(row)
    return out


def last_layer_and_head() -> tuple[int, int]:
    """The largest layer and head index of the shipped model, read from its config (no weights loaded)."""
    config = tiny_config()
    return config.n_layers - 1, config.n_heads - 1


def _trace(sentences: list[list[str]]) -> Tensor:
    """Equal-length word lists -> weights (L, B, H, T, T), on one thread (small model, shared cores)."""
    model, tokenizer = tiny()
    idx = torch.tensor([tokenizer.encode_words(words) for words in sentences])  # (B, T)
    with one_thread():
        return model.trace(idx)


@lru_cache(maxsize=1)
def reference_roles() -> list[list[HeadRole]]:
    """Each head's pattern scores averaged over held-out sentences (computed once per process)."""
    by_length: dict[int, list[list[str]]] = {}
    for sentence in generate(REFERENCE_SENTENCES, REFERENCE_SEED, held_out=True):
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
        raise ConfigError(t("type a sentence first, for example: the fox that the child saw was hungry , so the fox "
                            "slept ."))
    limit = model.config.context_length
    if len(words) > limit:
        raise ConfigError(t("the sentence has {n} tokens but the tiny model reads at most {limit}; shorten it",
                            n=len(words), limit=limit))
    unknown = [w for w, i in zip(words, tokenizer.encode_words(words), strict=True) if tokenizer.vocab[i] == UNK]
    segmented = segment.cuts(unicodedata.normalize("NFC", sentence[:MAX_CHARS].lower()))
    w = _trace([words])[:, 0]  # (L, H, T, T)
    scores = [[pattern_scores(words, w[la, h]) for h in range(w.shape[1])] for la in range(w.shape[0])]
    return TrainedView(tokens=words, unknown=unknown, segmented=segmented, weights=w, heads=_roles(scores),
                       reference=reference_roles())


def _check(view: TrainedView, layer: int, head: int) -> None:
    n_layers, n_heads = view.weights.shape[:2]
    if not (0 <= layer < n_layers and 0 <= head < n_heads):
        raise ConfigError(t("the tiny model has layers 0-{layer} and heads 0-{head}", layer=n_layers - 1,
                            head=n_heads - 1))


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
    _check(view, layer, head)
    n_heads = view.weights.shape[1]
    names = [view.reference[layer][h].name for h in range(n_heads)]
    return LayerPanel(
        tokens=view.tokens,
        weights=[view.weights[layer, h] for h in range(n_heads)],
        titles=[t("head {h}: {name}", h=h, name=t(name)) for h, name in enumerate(names)],
        selected=view.describe(layer, head),
        roles="\n".join(view.describe(layer, h) for h in range(n_heads)),
        note=view_note(view),
    )


def view_note(view: TrainedView) -> str:
    """What the student should know about how their sentence was read ("" when nothing)."""
    notes = []
    if view.segmented:
        notes.append(t("Chinese written without spaces was cut into words automatically (rjieba)."))
    if view.unknown:
        words = ", ".join(f"'{w}'" for w in sorted(set(view.unknown)))
        notes.append(t("Words the tiny model never saw, read as {unk}: {words}.", unk=UNK, words=words))
    return sentences(*notes)


def trained_attention_payload(sentence: str) -> dict:
    """/trained_attention's JSON: tokens, every layer's and head's weights [L][H][T][T], each head's measured name [L][H]."""
    view = trained_view(sentence)
    return {
        "tokens": view.tokens,
        "weights": [[[[round(x, 6) for x in row] for row in head] for head in layer] for layer in view.weights.tolist()],
        "roles": [[role.name for role in row] for row in view.reference],
    }


def pronoun_row(words: Sequence[str]) -> int | None:
    """The row a student should read first: the first 它 / it of the sentence (None when it has none)."""
    return next((t for t, w in enumerate(words) if w in PRONOUNS), None)


def row_focus(weights: Tensor, row: int) -> list[list[tuple[int, float]]]:
    """For each layer and head, the key that query `row` weighs most and its weight: weights (L, H, T, T)."""
    best, where = weights[:, :, row].max(-1)  # (L, H) each
    return [[(int(j), float(w)) for j, w in zip(js, ws, strict=True)] for js, ws in zip(where, best, strict=True)]


TELLING = ("pronoun → its noun", "noun about to repeat", "earlier mention", "previous token", "first token", "itself")  # most telling first


def most_telling_head() -> tuple[int, int]:
    """The head to open first: the one named after the most telling pattern (a pronoun finding its noun, then a
    noun about to repeat, before a previous-token head), the strongest of them on held-out text; the last
    layer's head 0 if none is named."""
    roles = [r for layer in reference_roles() for r in layer]
    for pattern in TELLING:
        named = [(r.scores[pattern], r.layer, r.head) for r in roles if r.name == pattern]
        if named:
            _, layer, head = max(named)
            return layer, head
    last_layer, _ = last_layer_and_head()
    return last_layer, 0


@dataclass(frozen=True)
class ModelPanel:
    """Every layer and head of the trained model for one sentence, each named by measurement."""

    tokens: list[str]
    weights: Tensor  # (n_layers, n_heads, T, T)
    titles: list[list[str]]  # [layer][head] "head 2: noun about to repeat"
    descriptions: list[list[str]]  # [layer][head] what the head does, measured
    selected: tuple[int, int]  # the head opened first
    note: str  # which words the model did not know ("" when none)


def model_panel(sentence: str, layer: int, head: int) -> ModelPanel:
    """The model view: sentence -> every layer x head, with the chosen (layer, head) opened."""
    view = trained_view(sentence)
    _check(view, layer, head)
    L, H = view.weights.shape[:2]
    return ModelPanel(
        tokens=view.tokens,
        weights=view.weights,
        titles=[[t("head {h}: {name}", h=h, name=t(view.reference[la][h].name)) for h in range(H)] for la in range(L)],
        descriptions=[[view.describe(la, h) for h in range(H)] for la in range(L)],
        selected=(layer, head),
        note=view_note(view),
    )
