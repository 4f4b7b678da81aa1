"""The chapter's claim, from the shipped weights: a head sends 它 / it to its noun, and seeing the noun pays."""

from __future__ import annotations

import json

import pytest

from core.lab.pronoun import CHAPTER_PAIR, CHAPTER_SENTENCE, LANGUAGES, shipped_report
from core.lab.trained_view import reference_roles, trained_attention_payload, trained_view


@pytest.fixture(scope="module")
def report():
    return shipped_report()


def test_one_head_puts_most_of_the_pronouns_weight_on_its_noun_in_both_languages(report):
    layer, head = report.head
    for lang in LANGUAGES:
        assert report.n_cases[lang] >= 150  # held-out sentences: shapes and judgements training never paired
        assert report.on_noun[lang][layer][head] >= 0.5, lang
        assert report.on_noun[lang][layer][head] > 3 * report.on_document[lang][layer][head], lang


def test_the_head_is_named_from_that_measurement(report):
    layer, head = report.head
    role = reference_roles()[layer][head]
    assert role.name == "pronoun → its noun" and role.scores[role.name] >= 0.5


@pytest.mark.kernel_free
def test_seeing_the_noun_makes_the_word_after_may_predictable(report):
    for lang in LANGUAGES:
        assert report.n_after_may[lang] >= 70
        assert report.noun_blind_bound[lang] == pytest.approx(1.585, abs=1e-3)  # log2 3: three items per document
        assert report.loss_after_may[lang] < 0.25 * report.noun_blind_bound[lang], lang  # no noun-blind model can
        assert report.noun_hidden[lang] > report.noun_blind_bound[lang], lang  # the model itself, noun hidden


def _row(sentence: str, layer: int, head: int) -> dict[str, float]:
    view = trained_view(sentence)
    t = view.tokens.index("它")
    return dict(zip(view.tokens[: t + 1], view.weights[layer, head, t, : t + 1].tolist(), strict=True))


def test_on_the_chapters_sentence_it_looks_at_the_liquidated_damages(report):
    row = _row(CHAPTER_SENTENCE, *report.head)
    assert list(row) == ["合同", "违约金", "过高", "，", "它"]
    assert max(row, key=row.get) == "违约金"


def test_in_the_chapters_pair_the_same_pronoun_finds_a_different_noun(report):
    contract, report_ = (_row(s, *report.head) for s in CHAPTER_PAIR)
    assert max(contract, key=contract.get) == "违约金" and max(report_, key=report_.get) == "指标"


def test_trained_attention_payload_gives_tokens_weights_and_measured_roles():
    p = trained_attention_payload(CHAPTER_SENTENCE)
    assert p["tokens"] == CHAPTER_SENTENCE.split()
    L, H, T = len(p["weights"]), len(p["weights"][0]), len(p["tokens"])
    assert all(len(r) == T for layer in p["weights"] for h in layer for r in h) and all(
        len(h) == T for layer in p["weights"] for h in layer)
    assert [len(r) for r in p["roles"]] == [H] * L and "pronoun → its noun" in sum(p["roles"], [])
    json.dumps(p, allow_nan=False)


def test_unspaced_chinese_is_read_as_words_and_the_note_says_so():
    from core.lab.trained_view import view_note

    view = trained_view(CHAPTER_PAIR[0])
    assert view.tokens[:5] == ["这份", "合同", "中", "的", "违约金"] and view.unknown == []
    assert "automatically" in view_note(view)
    assert view_note(trained_view(CHAPTER_SENTENCE)) == ""
