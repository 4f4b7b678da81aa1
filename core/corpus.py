"""A synthetic bilingual corpus whose next words need attention, and its word-level tokenizer.

No downloaded text: a small grammar written here. Its sentences carry long-range structure a
model can only predict by looking back: a noun named early is named again later ("the fox that
the child saw was hungry , so the fox slept ."), a verb agrees with a subject across a clause,
a pair of nouns swaps roles ("the cat chased the dogs , and then the dogs chased the cat ."), and,
in Chinese and English, a pronoun must find its noun: "合同 违约金 过高 ， 它 可能 存在 风险 。" /
"the report 's figure was too high , so it may mislead readers ." (the Chinese course chapter's
example: what follows 它 可能 depends on 违约金, not on the document 合同 named beside it).
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .text import segment

# singular -> plural; every noun can be named in either number
ANIMALS = {"fox": "foxes", "owl": "owls", "cat": "cats", "dog": "dogs", "hen": "hens", "bear": "bears",
           "wolf": "wolves", "mouse": "mice", "horse": "horses", "goat": "goats"}
PEOPLE = {"child": "children", "farmer": "farmers", "king": "kings", "girl": "girls", "boy": "boys",
          "teacher": "teachers", "baker": "bakers", "sailor": "sailors"}
FOODS = ["apple", "pie", "cake", "fish", "plum", "pear", "egg", "carrot"]  # countable: "a pie", "an egg"
PLACES = ["river", "forest", "village", "garden", "hill", "barn"]
ADJECTIVES = ["hungry", "tired", "happy", "cold", "brave", "sleepy", "angry", "quiet"]
SEEN = ["saw", "chased", "helped", "watched", "followed", "found", "called", "met"]  # past tense: no agreement
PRESENT = {"sees": "see", "chases": "chase", "helps": "help", "watches": "watch", "follows": "follow",
           "likes": "like"}  # 3rd singular -> plural
LEFT = ["slept", "ran", "sang", "hid", "left", "waited", "danced", "rested"]
EATS = ["ate", "wanted", "shared", "dropped"]
FUNCTION = ["the", "a", "an", "that", "was", "were", "is", "are", ",", ".", "so", "and", "then", "near", "by",
            "to", "went", "because", "with"]

# The pronoun sentences: a document, one of ITS items, a judgement, then 它/it and a continuation whose
# words belong to that item alone. Rows: (zh document, en document, en preposition "the X in the Y"),
# then per item (zh item, en item, zh continuation, en continuation after "may", en after "it" alone).
# Every unspaced Chinese sentence of this grammar is cut by rjieba into exactly these words (tested).
DOCUMENTS = (
    (("合同", "contract", "in"), (
        ("违约金", "penalty", "存在 风险", "carry risk", "carries risk"),
        ("租金", "rent", "吓跑 租客", "deter tenants", "deters tenants"),
        ("押金", "deposit", "占用 资金", "tie up cash", "ties up cash"))),
    (("报告", "report", "in"), (
        ("指标", "figure", "误导 读者", "mislead readers", "misleads readers"),
        ("成本", "cost", "拖累 利润", "hurt profits", "hurts profits"),
        ("误差", "error", "影响 结论", "skew results", "skews results"))),
    (("账单", "bill", "on"), (
        ("利息", "interest", "压垮 家庭", "strain families", "strains families"),
        ("运费", "postage", "赶走 顾客", "drive buyers away", "drives buyers away"),
        ("税费", "tax", "引来 投诉", "draw complaints", "draws complaints"))),
)
ZH_JUDGEMENTS = ("过高", "偏高", "明显 过高")
EN_JUDGEMENTS = ("too high", "very high", "far too high")
# Kept out of training: the judgement each shape (0: 合同 违约金 / the contract 's penalty, 1: 这份 合同 中 的
# 违约金 / the penalty in the contract) never meets there. Held-out text uses only these pairs, so its
# pronoun sentences were never seen in training; the item stays uniform given the document either way.
RESERVED_JUDGEMENT = {0: 1, 1: 2}
PRONOUNS = frozenset({"它", "it"})
MAY = frozenset({"可能", "may"})
ITEMS = frozenset(w for _, items in DOCUMENTS for it in items for w in it[:2])  # what 它 / it refers to
DOCS = frozenset(w for doc, _ in DOCUMENTS for w in doc[:2])  # the distractor named beside it

UNK = "<unk>"
NOUNS = frozenset([*ANIMALS, *ANIMALS.values(), *PEOPLE, *PEOPLE.values(), *FOODS, *PLACES])
AGENTS = {**ANIMALS, **PEOPLE}


class _Picker:
    """Random choices that also add up their own surprisal, so the grammar's entropy is exact."""

    def __init__(self, rng: random.Random, held_out: bool = False) -> None:
        self.rng, self.bits, self.held_out = rng, 0.0, held_out

    def pick(self, options: Sequence[str]) -> str:
        self.bits += math.log2(len(options))
        return options[self.rng.randrange(len(options))]

    def agent(self) -> tuple[str, bool]:
        """An animal or a person, singular or plural: (word, is_plural)."""
        singular = self.pick(list(AGENTS))
        plural = self.pick(["one", "many"]) == "many"
        return (AGENTS[singular] if plural else singular), plural


def _relative(p: _Picker) -> list[str]:
    """The subject comes back after a relative clause; `was/were` agrees with it, not with N2."""
    n1, pl1 = p.agent()
    n2, _ = p.agent()
    be = "were" if pl1 else "was"
    return ["the", n1, "that", "the", n2, p.pick(SEEN), be, p.pick(ADJECTIVES), ",", "so", "the", n1, p.pick(LEFT), "."]


def _swap(p: _Picker) -> list[str]:
    """Two nouns, then the same two with roles swapped."""
    n1, _ = p.agent()
    n2, _ = p.agent()
    v = p.pick(SEEN)
    return ["the", n1, v, "the", n2, ",", "and", "then", "the", n2, v, "the", n1, "."]


def _near(p: _Picker) -> list[str]:
    """Agreement across a prepositional phrase: the verb agrees with the first noun."""
    n1, pl1 = p.agent()
    n2, _ = p.agent()
    third = p.pick(list(PRESENT))
    verb = PRESENT[third] if pl1 else third
    n3, _ = p.agent()
    return ["the", n1, "near", "the", n2, verb, "the", n3, ",", "because", "the", n1, "is" if not pl1 else "are",
            p.pick(ADJECTIVES), "."]


def _story(p: _Picker) -> list[str]:
    """An indefinite introduction, then definite references back to the same nouns."""
    n1 = p.pick(list(AGENTS))
    place = p.pick(PLACES)
    food = p.pick(FOODS)
    return [_a(n1), n1, "went", "to", "the", place, "with", _a(food), food, ".", "by", "the", place, ",", "the", n1,
            p.pick(EATS), "the", food, "."]


def _a(noun: str) -> str:
    """The indefinite article English uses before this noun."""
    return "an" if noun[0] in "aeiou" else "a"


def _document_item(p: _Picker) -> tuple[tuple[str, str, str], tuple[str, str, str, str, str], bool]:
    """A document, one of its items, and whether the continuation says 'may' first (half the time)."""
    doc, items = DOCUMENTS[p.rng.randrange(len(DOCUMENTS))]
    item = items[p.rng.randrange(len(items))]
    p.bits += math.log2(len(DOCUMENTS) * len(items))
    return doc, item, p.pick(["with may", "without"]) == "with may"


def _shape_and_judgement(p: _Picker, judgements: Sequence[str]) -> tuple[int, list[str]]:
    """Which of the two shapes, and a judgement: in training never the shape's reserved one, held out only it."""
    shape = p.rng.randrange(2)
    allowed = [j for k, j in enumerate(judgements) if (k == RESERVED_JUDGEMENT[shape]) == p.held_out]
    p.bits += 1 + math.log2(len(allowed))
    return shape, allowed[p.rng.randrange(len(allowed))].split()


def _pronoun_zh(p: _Picker) -> list[str]:
    """合同 违约金 过高 ， 它 [可能] 存在 风险 。 or 这份 合同 中 的 违约金 ...: 它 is the item, never the document."""
    doc, item, may = _document_item(p)
    shape, judgement = _shape_and_judgement(p, ZH_JUDGEMENTS)
    named = [doc[0], item[0]] if shape == 0 else ["这份", doc[0], "中", "的", item[0]]
    return [*named, *judgement, "，", "它", *(["可能"] if may else []), *item[2].split(), "。"]


def _pronoun_en(p: _Picker) -> list[str]:
    """the report 's figure was too high , so it [may] mislead(s) readers . (or: the figure in the report ...)"""
    doc, item, may = _document_item(p)
    shape, judgement = _shape_and_judgement(p, EN_JUDGEMENTS)
    named = ["the", doc[1], "'s", item[1]] if shape == 0 else ["the", item[1], doc[2], "the", doc[1]]
    rest = ["may", *item[3].split()] if may else item[4].split()
    return [*named, "was", *judgement, ",", "so", "it", *rest, "."]


def referent(words: Sequence[str], t: int) -> int | None:
    """Where the pronoun at t points: the last item noun before it (None when t is no pronoun or has none)."""
    if words[t] not in PRONOUNS:
        return None
    return next((s for s in range(t - 1, -1, -1) if words[s] in ITEMS), None)


def document_of(words: Sequence[str], t: int) -> int | None:
    """The document noun named before position t (the distractor beside the item), or None."""
    return next((s for s in range(t - 1, -1, -1) if words[s] in DOCS), None)


TEMPLATES = (_relative, _swap, _near, _story, _pronoun_zh, _pronoun_en)
_PRONOUN_WORDS = [w for doc, items in DOCUMENTS for w in (*doc[:2], *(x for it in items for x in (
    *it[:2], *it[2].split(), *it[3].split(), *it[4].split())))]
LEXICON = tuple(dict.fromkeys([*FUNCTION, *AGENTS, *AGENTS.values(), *FOODS, *PLACES, *ADJECTIVES, *SEEN,
                               *PRESENT, *PRESENT.values(), *LEFT, *EATS,
                               "这份", "中", "的", *" ".join(ZH_JUDGEMENTS).split(), "，", "它", "可能", "。",
                               "'s", "in", "on", *" ".join(EN_JUDGEMENTS).split(), "it", "may",
                               *_PRONOUN_WORDS]))


def _sentence(p: _Picker) -> list[str]:
    return p.pick(TEMPLATES)(p)  # type: ignore[arg-type]


def generate(n_sentences: int, seed: int, held_out: bool = False) -> list[str]:
    """n_sentences sentences from the grammar; the same seed gives the same text.

    held_out=True: pronoun sentences only in the shape/judgement pairs training never sees
    (RESERVED_JUDGEMENT); the other sentences as usual.
    """
    p = _Picker(random.Random(seed), held_out)
    return [" ".join(_sentence(p)) for _ in range(n_sentences)]


def grammar_entropy(n_sentences: int = 2000, seed: int = 0) -> float:
    """The grammar's own entropy in bits per word: the best loss any model could reach."""
    p = _Picker(random.Random(seed))
    words = sum(len(_sentence(p)) for _ in range(n_sentences))
    return p.bits / words


def unigram_entropy(ids: Iterable[int]) -> float:
    """Entropy in bits of the text's own word frequencies: the loss of a model that ignores context."""
    counts = Counter(ids)
    total = sum(counts.values())
    return -sum(c / total * math.log2(c / total) for c in counts.values())


_WORD = re.compile(r"[\w'<>]+|[.,!?;，。！？；：、]")


@dataclass(frozen=True)
class Tokenizer:
    """Word-level: one id per lexicon word, <unk> (id 0) for anything else; punctuation split off."""

    vocab: tuple[str, ...]

    @classmethod
    def from_lexicon(cls) -> Tokenizer:
        return cls((UNK, *LEXICON))

    def __post_init__(self) -> None:
        object.__setattr__(self, "_ids", {w: i for i, w in enumerate(self.vocab)})

    def __len__(self) -> int:
        return len(self.vocab)

    @staticmethod
    def words(text: str) -> list[str]:
        """Lower-cased words; , . ! ? ; and Chinese ，。！？；：、 split off; "report's" -> report 's;
        Chinese words as the app's tokenizer finds them (core.text.segment)."""
        text = text.lower()
        mode = segment.han_mode(text)
        out: list[str] = []
        for piece in _WORD.findall(text):
            if len(piece) > 2 and piece.endswith("'s"):  # English possessive, as the corpus writes it
                out.extend([piece[:-2], "'s"])
            else:
                out.extend(segment.han_words(piece, mode))
        return out

    def encode(self, text: str) -> list[int]:
        return self.encode_words(self.words(text))

    def encode_words(self, words: Iterable[str]) -> list[int]:
        """Ids of words already split (as words() splits them)."""
        return [self._ids.get(w, 0) for w in words]  # type: ignore[attr-defined]

    def decode(self, ids: Iterable[int]) -> str:
        return " ".join(self.vocab[i] for i in ids)
