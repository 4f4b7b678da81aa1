"""The chapter's claim, measured: which head sends 它 / it to its noun, and what seeing the noun is worth.

On held-out sentences (shape/judgement pairs training never saw): for every layer and head, the
mean weight of the pronoun's row on its noun (违约金, figure) and on the document named beside it
(合同, report); and the loss of the word after 它 可能 / it may, against two models that cannot see
the noun: the best any such model can do (exact, from the grammar: the document leaves three
items equally likely, so log2 3 bits) and the trained model itself with the noun hidden from every
later position (core.lab.ablate).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import torch

from core.corpus import DOCUMENTS, MAY, PRONOUNS, Tokenizer, document_of, generate, referent
from core.i18n import t
from core.model import GPT

from .ablate import edited_logits
from .heldout import HELDOUT_SEED, next_word_bits, sentence_batch

HELDOUT_SENTENCES = 1200  # ~200 pronoun sentences per language
CHAPTER_SENTENCE = "合同 违约金 过高 ， 它 可能 存在 风险"
CHAPTER_PAIR = ("这份合同中的违约金过高，它可能", "这份报告中的指标过高，它可能")
LANGUAGES = ("zh", "en")

# document -> the first word after 可能 / may, one per item of that document
_AFTER_MAY = {doc[0]: [it[2].split()[0] for it in items] for doc, items in DOCUMENTS}
_AFTER_MAY |= {doc[1]: [it[3].split()[0] for it in items] for doc, items in DOCUMENTS}


@dataclass(frozen=True)
class Case:
    """One pronoun in one sentence: where it is, where its noun and the distractor document are."""

    words: tuple[str, ...]
    language: str  # "zh" or "en"
    pronoun: int
    noun: int
    document: int
    may: bool  # the pronoun is followed by 可能 / may, then the noun's own word

    @property
    def blind_bits(self) -> float:
        """-log2 p(word after 可能 | everything but the noun) under the grammar: the best a noun-blind model can do."""
        choices = _AFTER_MAY[self.words[self.document]]
        return -math.log2(choices.count(self.words[self.pronoun + 2]) / len(choices))


def cases(sentences: Sequence[Sequence[str]]) -> list[Case]:
    """Every pronoun with a noun and a document before it."""
    out = []
    for words in sentences:
        for i, w in enumerate(words):
            noun, doc = referent(words, i), document_of(words, i)
            if w in PRONOUNS and noun is not None and doc is not None:
                may = i + 2 < len(words) and words[i + 1] in MAY
                out.append(Case(tuple(words), "zh" if w == "它" else "en", i, noun, doc, may))
    return out


@dataclass
class PronounReport:
    """Per language: how many cases, each head's mean weight on the noun and on the document, the losses."""

    n_cases: dict[str, int]
    on_noun: dict[str, list[list[float]]]  # language -> [layer][head]
    on_document: dict[str, list[list[float]]]
    n_after_may: dict[str, int]
    loss_after_may: dict[str, float]  # bits: the trained model, predicting the word after 可能 / may
    noun_blind_bound: dict[str, float]  # bits: the best any model that cannot see the noun can do
    noun_hidden: dict[str, float]  # bits: the trained model with the noun hidden from every later position
    head: tuple[int, int] = field(default=(0, 0))  # the head whose weaker language puts most on the noun

    def to_dict(self) -> dict:
        return {**{k: v for k, v in vars(self).items() if k != "head"}, "head": list(self.head)}


def measure(model: GPT, tokenizer: Tokenizer, sentences: Sequence[Sequence[str]]) -> PronounReport:
    """The claim's numbers on these sentences (word lists)."""
    found = cases(sentences)
    if not found:
        raise ValueError(t("no sentence has a pronoun with a noun and a document before it"))
    batch = sentence_batch([c.words for c in found], tokenizer)
    with torch.no_grad():
        w = model.trace(batch.idx)  # (L, N, H, T, T)
    rows = torch.arange(len(found))
    p = torch.tensor([c.pronoun for c in found])
    wp = w.permute(1, 3, 4, 0, 2)  # (N, T, T, L, H): sentence, query, key first
    on_noun = wp[rows, p, torch.tensor([c.noun for c in found])]  # (N, L, H)
    on_doc = wp[rows, p, torch.tensor([c.document for c in found])]  # (N, L, H)
    with torch.no_grad():
        bits = next_word_bits(model(batch.idx), batch)  # (N, T)
    hidden = torch.zeros_like(batch.real)
    hidden[rows, torch.tensor([c.noun for c in found])] = True
    bits_hidden = next_word_bits(edited_logits(model, batch.idx, hide=hidden), batch)  # (N, T)
    after_may = p + 1  # the position of 可能 / may: its prediction is the noun's own word

    report = PronounReport({}, {}, {}, {}, {}, {}, {})
    for lang in LANGUAGES:
        sel = torch.tensor([c.language == lang for c in found])
        may = sel & torch.tensor([c.may for c in found])
        report.n_cases[lang] = int(sel.sum())
        report.on_noun[lang] = on_noun[sel].mean(0).tolist()
        report.on_document[lang] = on_doc[sel].mean(0).tolist()
        report.n_after_may[lang] = int(may.sum())
        report.loss_after_may[lang] = float(bits[rows[may], after_may[may]].mean())
        report.noun_hidden[lang] = float(bits_hidden[rows[may], after_may[may]].mean())
        report.noun_blind_bound[lang] = sum(c.blind_bits for c in found if c.language == lang and c.may) / max(
            1, report.n_after_may[lang])
    L, H = w.shape[0], w.shape[2]
    report.head = max(((la, h) for la in range(L) for h in range(H)),
                      key=lambda lh: min(report.on_noun[g][lh[0]][lh[1]] for g in LANGUAGES))
    return report


def heldout_sentences(n: int = HELDOUT_SENTENCES, seed: int = HELDOUT_SEED) -> list[list[str]]:
    """Held-out generator text (seed never trained on, pronoun shapes never trained on), as word lists."""
    return [s.split() for s in generate(n, seed, held_out=True)]


@lru_cache(maxsize=1)
def shipped_report() -> PronounReport:
    """The shipped tiny model's numbers, computed once per process."""
    from core.lab.threads import one_thread
    from core.lab.tiny import tiny

    model, tokenizer = tiny()
    with one_thread():
        return measure(model, tokenizer, heldout_sentences())
