"""What an ask step offers a class to answer: the sentence's tokens, a number, or the step's own options."""

from __future__ import annotations

from types import SimpleNamespace

from core.lab.text import tokenize
from core.serve.class_asks import ask_of
from core.serve.classroom import MAX_CHOICES


def step(**fields):
    return SimpleNamespace(**{"view": "heatmaps", "state": {"sentence": "the cat sat on the mat"}, "controls": (),
                              **fields})


def test_a_step_without_a_question_asks_the_class_nothing():
    assert ask_of(step()) is None and ask_of(step(ask="")) is None and ask_of(step(ask="  ")) is None


def test_by_default_the_class_chooses_a_token_of_the_steps_sentence_as_the_view_splits_it():
    asked = ask_of(step(ask="Which token does 'sat' look at most?"))
    assert asked == {"question": "Which token does 'sat' look at most?", "kind": "tokens",
                     "choices": ["the", "cat", "sat", "on", "the", "mat"]}
    chinese = ask_of(step(ask="它看哪里？", answers=("tokens",), state={"sentence": "合同规定违约金过高"}))
    assert chinese["choices"] == list(tokenize("合同规定违约金过高").tokens) and len(chinese["choices"]) > 1


def test_a_number_or_the_steps_options_as_the_file_writes_them():
    assert ask_of(step(ask="How much?", answers=("number",)))["kind"] == "number"
    asked = ask_of(step(ask="Which?", answers=("上三角", "下三角", "对角线")))
    assert asked["kind"] == "options" and asked["choices"] == ["上三角", "下三角", "对角线"]
    many = ask_of(step(ask="Which?", state={"sentence": " ".join(f"w{i}" for i in range(100))}))
    assert len(many["choices"]) == MAX_CHOICES
