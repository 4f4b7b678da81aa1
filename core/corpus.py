"""A synthetic English-like corpus whose next words need attention, and its word-level tokenizer.

No downloaded text: a small grammar written here. Its sentences carry long-range structure a
model can only predict by looking back: a noun named early is named again later ("the fox that
the child saw was hungry , so the fox slept ."), a verb agrees with a subject across a clause,
and a pair of nouns swaps roles ("the cat chased the dogs , and then the dogs chased the cat .").
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

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

UNK = "<unk>"
NOUNS = frozenset([*ANIMALS, *ANIMALS.values(), *PEOPLE, *PEOPLE.values(), *FOODS, *PLACES])
AGENTS = {**ANIMALS, **PEOPLE}


class _Picker:
    """Random choices that also add up their own surprisal, so the grammar's entropy is exact."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.bits = rng, 0.0

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


TEMPLATES = (_relative, _swap, _near, _story)
LEXICON = tuple(dict.fromkeys([*FUNCTION, *AGENTS, *AGENTS.values(), *FOODS, *PLACES, *ADJECTIVES, *SEEN,
                               *PRESENT, *PRESENT.values(), *LEFT, *EATS]))


def _sentence(p: _Picker) -> list[str]:
    return p.pick(TEMPLATES)(p)  # type: ignore[arg-type]


def generate(n_sentences: int, seed: int) -> list[str]:
    """n_sentences sentences from the grammar; the same seed gives the same text."""
    p = _Picker(random.Random(seed))
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
        """Lower-cased words with , . ! ? ; split off as their own tokens."""
        return re.findall(r"[\w'<>]+|[.,!?;]", text.lower())

    def encode(self, text: str) -> list[int]:
        return [self._ids.get(w, 0) for w in self.words(text)]  # type: ignore[attr-defined]

    def decode(self, ids: Iterable[int]) -> str:
        return " ".join(self.vocab[i] for i in ids)
