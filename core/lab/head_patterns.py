"""What each head of any model does on this sentence, named from its weights alone (never a stored label).

The tiny model's names (core.lab.trained_view) need its corpus' nouns; these need only the tokens, so
they hold for GPT-2 on any sentence: the weight a head puts, averaged over the query rows that have a
case, on the token just before, on the first token (the "attention sink"), on itself, on earlier copies
of the same token, and — the induction pattern — on the token that FOLLOWED an earlier copy of this one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from torch import Tensor

from ..i18n import mark, t

THRESHOLD = 0.4  # a head is named after a pattern only if it puts this much weight on it, on average
SPREAD = mark("spread out")
PATTERNS = {  # name (a msgid) -> (short name for a thumbnail, what it measures)
    mark("previous token"): (mark("prev"), mark("the token just before")),
    mark("first token / sink"): (mark("sink"), mark("the first token (a place to put weight that is not needed)")),
    mark("itself"): (mark("self"), mark("the token itself")),
    mark("same token earlier"): (mark("dup"), mark("earlier copies of the same token")),
    mark("induction-like"): (mark("induct"), mark("the token that followed an earlier copy of this one")),
}
MESSAGES = {
    "spread": mark("layer {layer} head {head}: spread out (no pattern gets {threshold} of its weight); measured: "
                   "{others}"),
    "named": mark("layer {layer} head {head}: {pattern}, mean weight {weight:.2f} on {what}; measured: {others}"),
    "score": mark("{pattern} {weight:.2f}"),
    "list": mark("{first}, {then}"),
}
SHORT_SPREAD = mark("spread")


@dataclass(frozen=True)
class HeadPattern:
    """One head's mean weight on each pattern (those with a case in the sentence) and the name they earn."""

    scores: dict[str, float]
    name: str  # the strongest pattern, or SPREAD when none reaches THRESHOLD

    @property
    def short(self) -> str:
        """The short name a thumbnail carries (a msgid: the caller says it in the reader's language)."""
        return PATTERNS[self.name][0] if self.name in PATTERNS else SHORT_SPREAD

    @property
    def score(self) -> float:
        return self.scores.get(self.name, max(self.scores.values(), default=0.0))


def scores(tokens: Sequence[str], weights: Tensor) -> dict[str, float]:
    """Mean weight per pattern for one head: tokens (T,), weights (T, T), rows = queries. Query 0 is left out
    (it can only see itself); a pattern with no case in the sentence (no repeated token) is left out."""
    T, w = len(tokens), weights.tolist()
    sums: dict[str, list[float]] = {k: [] for k in PATTERNS}
    for q in range(1, T):
        row = w[q]
        sums["previous token"].append(row[q - 1])
        sums["itself"].append(row[q])
        if q >= 2:  # at q = 1 the first token IS the previous one: counted once, as previous
            sums["first token / sink"].append(row[0])
        earlier = [s for s in range(q) if tokens[s] == tokens[q]]
        if earlier:
            sums["same token earlier"].append(sum(row[s] for s in earlier))
            after = sorted({s + 1 for s in earlier if s + 1 < q})  # what came next last time (not itself)
            if after:
                sums["induction-like"].append(sum(row[s] for s in after))
    return {k: sum(v) / len(v) for k, v in sums.items() if v}


def name(head_scores: dict[str, float]) -> HeadPattern:
    """The strongest pattern's name when it gets THRESHOLD of the weight; SPREAD otherwise."""
    best = max(head_scores, key=head_scores.get) if head_scores else None
    return HeadPattern(head_scores, best if best is not None and head_scores[best] >= THRESHOLD else SPREAD)


def head_patterns(tokens: Sequence[str], weights: Tensor) -> list[list[HeadPattern]]:
    """weights (L, H, T, T) -> [L][H] named patterns, measured on this sentence."""
    return [[name(scores(tokens, w)) for w in heads] for heads in weights]


def describe(layer: int, head: int, pattern: HeadPattern) -> str:
    """One line a student reads under the opened head: its name and the numbers that earned it (in the reader's
    language: the pattern names are looked up here)."""
    items = [t(MESSAGES["score"], pattern=t(k), weight=v) for k, v in sorted(pattern.scores.items(), key=lambda kv: -kv[1])]
    others = items[0] if items else ""
    for item in items[1:]:
        others = t(MESSAGES["list"], first=others, then=item)
    if pattern.name == SPREAD:
        return t(MESSAGES["spread"], layer=layer, head=head, threshold=THRESHOLD, others=others)
    return t(MESSAGES["named"], layer=layer, head=head, pattern=t(pattern.name), weight=pattern.score,
             what=t(PATTERNS[pattern.name][1]), others=others)
