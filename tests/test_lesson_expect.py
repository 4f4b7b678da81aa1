"""A step proves its claim: `expect:` lines are read (a bad one is one sentence naming its file and line), measured
live on the numbers the step's view draws, said under the check, and `attention-lab lesson check` fails on one that
does not hold; `ask:`, `answers:` and `notes:` are the class's moments."""

from __future__ import annotations

import numpy as np
import pytest

from core.cli import main
from core.lab import lesson_format as fmt
from core.lab.lesson_expect import Expect
from core.lab.lesson_expect import parse as parse_expect

HEAD = """---
lesson: my-lesson
title: My lesson
language: en
---
## The mask
view: heatmaps
sentence: a b c d
"""


def lesson(*lines: str, view: str = "heatmaps", text: str = "Turn the mask off.") -> str:
    """A one-step lesson with these lines after its first two (the first added line is line 9)."""
    head = HEAD if view == "heatmaps" else HEAD.replace("view: heatmaps\nsentence: a b c d", f"view: {view}\nseed: 0")
    return head + "".join(line + "\n" for line in lines) + "\n" + text + "\n"


@pytest.fixture(scope="module")
def registry():
    from core.registry import load_registry

    return load_registry(entry_points=False)


@pytest.fixture(scope="module")
def lab(registry):
    from core.serve.plugins import AppLab

    return AppLab(registry)


def test_the_class_moments_are_read_into_the_step():
    step = fmt.parse(lesson("expect: weight d -> a >= 0.1", "expect: row sums == 1", "ask: Where does d look?",
                            "answers: a | b | c", "notes: Wait for answers.", "notes: Then press →.")).steps[0]
    assert [(e.measure, e.tokens, e.op, e.value, e.line) for e in step.expect] == [
        ("weight", ("d", "a"), ">=", 0.1, 9), ("row sums", (), "==", 1.0, 10)]
    assert (step.ask, step.answers, step.notes) == ("Where does d look?", ("a", "b", "c"),
                                                    "Wait for answers.\nThen press →.")
    plain = fmt.parse(lesson()).steps[0]
    assert (plain.expect, plain.ask, plain.answers, plain.notes) == ((), "", ("tokens",), "")
    assert fmt.parse(lesson("ask: How many?", "answers: number")).steps[0].answers == ("number",)


@pytest.mark.parametrize(("line", "words"), [
    ("expect: row sums is 1", "an expectation reads 'MEASURE OP NUMBER', like 'weight 它 -> 违约金 >= 0.9', not "),
    ("expect: weight d >= 0.5", "a weight reads 'weight QUERY -> KEY'"),
    ("expect: sharpness >= 0.5", "'sharpness' is not a measure; the measures are weight, row sums, future"),
    ("expect: row sums == one", "an expectation compares with a number (or -inf, inf), not 'one'"),
    ("expect: moved before == 0", "view heatmaps cannot measure 'moved before'; it measures weight, row sums"),
    ("expect: largest in line 1 > 0", "'in line N' is not for view heatmaps"),
    ("answers: a", "answers: is 'tokens', 'number' or two to 6 options separated by ' | ', not 'a'"),
    ("ask:", "ask: needs a text after the colon"),
])
def test_a_bad_moment_line_is_one_sentence_naming_the_file_and_its_line(tmp_path, line, words):
    path = tmp_path / "broken.md"
    path.write_text(lesson(line), encoding="utf-8")
    with pytest.raises(fmt.LessonError) as caught:
        fmt.read(path)
    sentence = str(caught.value)
    assert sentence.startswith("broken.md line 9: ") and words in sentence and "\n" not in sentence, sentence


def test_answers_without_a_question_and_a_second_ask_are_refused_at_their_line(tmp_path):
    path = tmp_path / "l.md"
    path.write_text(lesson("controls: causal", "answers: number"), encoding="utf-8")
    with pytest.raises(fmt.LessonError, match=r"^l\.md line 10: answers: says what a student may answer"):
        fmt.read(path)
    path.write_text(lesson("ask: One?", "ask: Two?"), encoding="utf-8")
    with pytest.raises(fmt.LessonError, match=r"^l\.md line 10: 'ask' is set twice in this step$"):
        fmt.read(path)


@pytest.mark.floats
def test_comparisons_hold_as_written():
    e = parse_expect("row sums == 1", "heatmaps")
    assert e.holds(0.99999994) and not e.holds(0.99) and not e.holds(float("nan"))
    assert parse_expect("future == -inf", "stage").holds(float("-inf"))
    assert parse_expect("largest != 0", "heatmaps").holds(float("nan"))
    assert parse_expect("weight 它 -> 违约金 >= 0.9", "trained") == Expect(
        "weight", ">=", 0.9, ("它", "违约金"), None, "head", "weight 它 -> 违约金 >= 0.9", 0)


@pytest.mark.floats
def test_an_expectation_is_measured_on_the_drawn_view_and_said_under_the_check(registry, lab):
    from core.serve import lessons

    step = fmt.parse(lesson("row: 3", "expect: row sums == 1", "expect: future == 0", "expect: heads == 2",
                            "expect: weight d -> a > 0.99"), variants=set(registry.variants)).steps[0]
    s = lessons.shown(lab, step)
    assert [o.held for o in s.outcomes] == [True, True, True, False]
    weights = lessons.show(lab, step.view, lessons.state(step)).view  # the very numbers drawn
    from core.render.scales import unpacked

    assert s.outcomes[3].measured == pytest.approx((float(unpacked(weights["heads"][0]["values"])[3, 0]),))
    from core.render.tokens import markdown_text

    assert s.outcomes[0].text == "every row's sum = 1: measured 1 ✓"
    assert s.outcomes[3].text.startswith("weight d → a > 0.99: measured 0.") and s.outcomes[3].text.endswith(
        "✗ (the step's claim does not hold)")
    assert s.check.split("  \n")[-4:] == [markdown_text(o.text) for o in s.outcomes]  # under the view's own check
    off = lessons.shown(lab, fmt.parse(lesson("controls: causal", "expect: future == 0")).steps[0], {"causal": False})
    assert off.outcomes[0].held is False  # the presenter's toggle is measured too: the future gets weight


def test_expectations_speak_the_pages_language(registry, lab):
    from core import i18n
    from core.serve import lessons

    step = fmt.parse(lesson("expect: row sums == 1"), variants=set(registry.variants)).steps[0]
    with i18n.speaking("zh-CN"):
        said = lessons.shown(lab, step).outcomes[0].text
    assert said == "每一行的和 = 1：测得 1 ✓", said


def test_lesson_check_fails_with_one_sentence_when_an_expectation_does_not_hold(tmp_path, capsys):
    good, bad = tmp_path / "good.md", tmp_path / "bad.md"
    good.write_text(lesson("expect: row sums == 1"), encoding="utf-8")
    bad.write_text(lesson("row: 3", "expect: weight d -> a >= 0.99"), encoding="utf-8")
    assert main(["lesson", "check", str(good), "--no-entry-points"]) == 0
    assert "good.md: 1 expectations hold" in capsys.readouterr().out
    assert main(["lesson", "check", str(bad), "--no-entry-points"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("bad.md line 10: step 'The mask' expects weight d → a ≥ 0.99, but its view measures 0."), err
    assert "\n" not in err
    assert main(["lesson", "check", str(bad), "--no-entry-points", "--no-expect"]) == 0


def _chart(ys: list[float], lit: int) -> dict:
    """A one-panel bar chart as core.render.charts draws it: one bar per head, the bar at `lit` lit."""
    names = [f"layer 0 head {h}" for h in range(len(ys))]
    return {"kind": "chart", "panels": [{"title": "t", "x": {"label": "head", "categories": names}, "highlight": lit,
                                         "series": [{"name": "loss increase", "x": list(range(len(ys))), "y": ys}]}]}


@pytest.mark.floats
def test_lit_reads_the_bar_the_chart_lights_and_names_it():
    from core.serve.lesson_checks import outcomes

    (o,) = outcomes((parse_expect("lit < 0.1", "interventions"),), _chart([0.4, 0.05, 0.6], lit=1))
    assert o.measured == pytest.approx((0.05,)) and o.held is True
    assert o.text == "the lit point (layer 0 head 1) < 0.1: measured 0.05 ✓", o.text
    (o,) = outcomes((parse_expect("lit < 0.1", "interventions"),), _chart([0.4, 0.05, 0.6], lit=2))
    assert o.held is False


@pytest.mark.floats
def test_outside_is_zero_for_averages_of_the_values_and_catches_a_sum():
    from core.render.matrix import heatmaps
    from core.render.scales import value_scale
    from core.serve.lesson_checks import measure

    values = np.array([[0.0, 1.0], [2.0, -1.0], [1.0, 3.0]])  # (T, hd)
    causal = np.tril(np.ones((3, 3)))
    averaged = (causal / causal.sum(-1, keepdims=True)) @ values  # each row the mean of the rows it may see
    summed = causal @ values  # the last row: 0 + 2 + 1 = 3 in column 0, 1 past its largest value (2)
    e = parse_expect("outside == 0", "stage")
    for out, expected in ((averaged, 0.0), (summed, 1.0)):
        view = heatmaps(["a", "b", "c"], [values, out], ["V", "out"], scale=value_scale(values), cols=["d0", "d1"])
        assert measure(e, view) == pytest.approx((expected,), abs=1e-3)


def test_a_real_models_claim_with_no_model_is_said_unmeasured_not_broken():
    from core.serve.lesson_checks import outcomes

    (o,) = outcomes((parse_expect("largest > 0.5", "sink"),), None, no_model=True)
    assert (o.held, o.measured) == (None, None)
    assert o.text == ("the largest value > 0.5: not measured, no real model is configured (ATTENTION_LAB_MODELS "
                      "names one)")
    with pytest.raises(fmt.LessonError, match="view sink cannot measure 'row sums'"):
        fmt.parse(HEAD.replace("view: heatmaps\nsentence: a b c d", "view: sink\nexpect: row sums == 1") + "\nx\n")


def test_lesson_check_says_an_unmeasured_expectation_and_does_not_count_it_as_held(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ATTENTION_LAB_MODELS", raising=False)
    monkeypatch.delenv("ATTENTION_LAB_GPT2", raising=False)
    path = tmp_path / "sink.md"
    path.write_text(HEAD.replace("view: heatmaps\nsentence: a b c d", "view: sink\nexpect: largest > 0.5")
                    + "\nThe sink.\n", encoding="utf-8")
    assert main(["lesson", "check", str(path), "--no-entry-points"]) == 0
    out = capsys.readouterr().out
    assert ("sink.md line 8: step 'The mask': the largest value > 0.5: not measured, no real model is configured "
            "(ATTENTION_LAB_MODELS names one)") in out, out
    assert "expectations hold" not in out  # (none was measured)


@pytest.mark.floats
def test_ratio_reads_the_second_map_over_the_first_where_neither_is_zero():
    from core.render.matrix import heatmaps
    from core.render.scales import value_scale
    from core.serve.lesson_checks import measure

    before = np.array([[1.0, 0.0], [0.5, 0.5]])
    after = np.array([[2.0, 0.0], [0.0, 1.0]])  # one weight dropped, the others ×2
    view = heatmaps(["a", "b"], [before, after], ["eval", "train"], scale=value_scale(after))
    assert measure(parse_expect("ratio == 2", "dropout"), view) == pytest.approx((2.0, 2.0))
    assert measure(parse_expect("rows == 2", "dropout"), view) == (2.0, 2.0)


def test_a_point_and_a_count_ratio_are_read_and_refused_where_nothing_draws_them():
    from core.lab.lesson_errors import Mistake

    point = parse_expect("at 64 in line 2 >= 7.5", "sqrt-d")
    assert (point.measure, point.tokens, point.head, point.part, point.op, point.value) == (
        "at", ("64",), 2, "line", ">=", 7.5)
    assert point.what() == "the point at x = 64 (line 2)"
    assert parse_expect("count ratio == 0.5", "heatmaps").measure == "count ratio"
    for line, view, words in (("at sixty-four > 1", "sqrt-d", "a point reads 'at X'"),
                              ("at 64 > 1", "heatmaps", "view heatmaps cannot measure 'at'"),
                              ("count ratio == 1", "stage", "view stage cannot measure 'count ratio'")):
        with pytest.raises(Mistake) as caught:
            parse_expect(line, view)
        assert words in str(caught.value), str(caught.value)


def test_a_point_reads_each_lines_value_at_x_and_a_count_ratio_the_drawn_counts():
    from core.serve.lesson_checks import measure

    chart = {"kind": "chart", "panels": [{"series": [{"name": "a", "x": [32.0, 64.0], "y": [5.0, 8.0]},
                                                     {"name": "b", "x": [32.0], "y": [1.0]}]}]}
    assert measure(parse_expect("at 64 > 0", "sqrt-d"), chart) == (8.0,)  # (b does not reach 64: no value)
    assert measure(parse_expect("at 64 in line 1 > 0", "sqrt-d"), chart) == ()
    counts = {"kind": "heatmaps", "heads": [], "counts": {"items": [{"text": "{value}", "value": 32},
                                                                    {"text": "{value}", "value": 16}]}}
    assert measure(parse_expect("count ratio == 0.5", "heatmaps"), counts) == (0.5,)
    assert measure(parse_expect("count ratio == 0.5", "heatmaps"), {"kind": "heatmaps", "heads": []}) == ()
