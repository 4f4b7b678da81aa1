"""Every built-in step proves its claim: each declared `expect:` holds on the step's own view, in English and Chinese
(server side, no browser); a broken one fails; each lesson has its moments for the class and ends on a summary."""

from __future__ import annotations

import re

import numpy as np
import pytest

from core.lab import lesson_format as fmt
from core.lab import lesson_shelf
from tests import lesson_fixtures

registry, shelf, lab = lesson_fixtures.registry, lesson_fixtures.shelf, lesson_fixtures.lab  # (module-scoped)
failures = lesson_fixtures.failures
LESSONS = ("chapter", "v1-v2", "by-hand")
NO_NUMBER = ("real-chapter",)  # its text states no number: where 它 looks and which head is zeroed, the check says


@pytest.mark.floats
@pytest.mark.parametrize("language", ["en", "zh-CN"])
@pytest.mark.parametrize("name", LESSONS)
def test_every_declared_expectation_holds_on_its_steps_view(shelf, lab, name, language):
    from core import i18n

    lesson = shelf.lessons[name][language]
    assert sum(len(s.expect) for s in lesson.steps) >= 10
    with i18n.speaking(language):
        assert failures(lab, lesson) == []


@pytest.mark.floats
def test_the_training_steps_wait_for_the_classs_run_then_hold_on_its_figures(shelf, lab):
    from core.serve import lessons
    from core.serve.experiments import warm

    steps = [s for s in shelf.get("chapter").steps if s.view == "training"]
    assert len(steps) == 2 and all(s.expect for s in steps)
    warm()  # (the class's default runs, trained once as the app warms them; a cache hit after)
    for step in steps:
        outcomes = lessons.shown(lab, step).outcomes
        assert [o.held for o in outcomes] == [True] * len(step.expect), [o.text for o in outcomes]
    said = lessons.shown(lab, steps[0]).outcomes[1].text
    # (said with its measured figure; the figure itself is the run's, 7.0 on one CPU kernel and 8.1 on another)
    assert re.fullmatch(r"the last point \(no mask: honest loss\) > 5: measured \d+\.\d\d ✓", said), said


def test_a_class_run_not_finished_is_not_measured_yet():
    from core.lab.lesson_expect import parse as parse_expect
    from core.serve.lesson_checks import outcomes

    (o,) = outcomes((parse_expect("last in line 0 < 1", "training"),), {"kind": "chart", "panels": []}, pending=True)
    assert (o.held, o.measured, o.text) == (None, None, "the last point (line 0) < 1: not measured yet")


@pytest.mark.floats
def test_a_broken_expectation_fails_the_walk(registry, lab):
    """The walk can fail: the chapter's first claim raised past what the trained model gives."""
    text = (lesson_shelf.BUILT_IN / "chapter.md").read_text(encoding="utf-8")
    broken = fmt.parse(text.replace("expect: weight 它 -> 违约金 >= 0.9", "expect: weight 它 -> 违约金 >= 0.999", 1),
                       "chapter.md", set(registry.variants))
    said = failures(lab, broken)
    assert len(said) == 1 and said[0].startswith("chapter (en) step 1: weight 它 → 违约金 ≥ 0.999: measured 0.9"), said


def test_every_step_that_can_be_measured_declares_a_claim(shelf):
    for name in LESSONS:
        for step in shelf.get(name).steps:
            if step.view in NO_NUMBER:
                continue
            assert step.expect, (name, step.title)


def test_each_lesson_asks_the_class_and_ends_on_a_summary(shelf):
    for name in LESSONS:
        for language in ("en", "zh-CN"):
            steps = shelf.lessons[name][language].steps
            asks = [s for s in steps if s.ask]
            assert len(asks) >= 3 and all(s.answers for s in asks), (name, language)
            assert sum(bool(s.notes) for s in steps) >= 3, (name, language)
            assert steps[-1].title in ("What to remember", "要记住的", "记住这些"), (name, language)
            assert re.search(r"^1\. ", steps[-1].text, re.M), (name, language)  # a list of what it showed


def test_a_claim_about_the_trained_model_is_shown_on_it(shelf):
    """The chapter opens and ends on 它 → 违约金 of the trained model; no step claims it on random weights."""
    chapter = shelf.get("chapter").steps
    for step in (chapter[0], chapter[-1]):
        assert step.view == "trained" and [e.tokens for e in step.expect] == [("它", "违约金")]
    for step in chapter:
        if step.view != "trained":
            assert "违约金" not in [tok for e in step.expect for tok in e.tokens], step.title


def test_the_padding_card_hatches_only_weights_that_are_zero(shelf, lab):
    from core.render.scales import unpacked
    from core.serve import lessons

    for card in ("padding-nan", "zero-fill", "softmax-dim"):
        view = lessons.show(lab, "failure", {**lessons.DEFAULTS, "card": card}).view
        for head in view["heads"]:
            values = unpacked(head["values"])
            if "blocked" in head:
                hatched = unpacked(head["blocked"]).astype(bool)
                assert np.all(values[hatched] == 0), (card, head["title"])
    fix = unpacked(lessons.show(lab, "failure", {**lessons.DEFAULTS, "card": "padding-nan"}).view["heads"][1]["values"])
    assert np.triu(fix, 1)[:2].sum() > 0.5  # the fix's padding rows put weight above the diagonal: drawn, not hatched


def test_the_steps_about_several_maps_draw_them_side_by_side(shelf, lab):
    from core.serve import lessons

    for name in LESSONS:
        for step in shelf.get(name).steps:
            if any(e.measure == "heads" and e.value > 1 for e in step.expect):
                view = lessons.shown(lab, step).view
                assert view["focus"] is False and view["side_by_side"], (name, step.title)
                assert view["min_columns"] == min(len(view["heads"]), 4)


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_charts_legend_names_only_lines_its_step_draws(shelf, lab, language):
    """A step showing one panel of a chart (the √d steps) lists no line of the panels it leaves out: no "uniform
    row" under the largest weight or the spread, no "√d" under the largest weight; every line it draws is listed."""
    from core import i18n
    from core.serve import lessons

    charts = 0
    for name in LESSONS:
        for step in shelf.get(name, language).steps:
            with i18n.speaking(language):
                view = lessons.shown(lab, step).view
            if not view or view.get("kind") != "chart" or not view.get("legend"):
                continue
            if any(p.get("type") != "line" for p in view["panels"]):  # (bars: the legend names a bar's colour)
                continue
            charts += 1
            lines = [s for p in view["panels"] for s in p.get("series", ())]
            drawn = {s["name"] for s in lines} | {h["name"] for p in view["panels"] for h in p.get("hlines", ())}
            styles = {(s["color"], s["dash"]) for s in lines}
            for item in view["legend"]:  # (an entry names a line, or draws its colour and dash)
                assert item["text"] in drawn or (item.get("color"), item.get("dash", False)) in styles, (step.title, item)
            listed = {it["text"] for it in view["legend"]} | {(it.get("color"), it.get("dash", False)) for it in view["legend"]}
            for s in lines:
                assert s["name"] in listed or (s["color"], s["dash"]) in listed, (step.title, s["name"])
    assert charts >= 5  # the √d steps (chapter 4, by-hand 8 and 9), cost and training


def test_queries_keys_and_values_are_drawn_together_with_axis_titles_that_name_them(shelf, lab):
    from core import i18n
    from core.serve import lessons

    step = next(s for s in shelf.get("by-hand").steps if s.view == "stage" and s.state["stage"] == "Q")
    view = lessons.shown(lab, step).view
    assert [h["title"] for h in view["heads"]] == ["Q", "K", "V"]
    transfer = lessons.shown(lab, shelf.get("v1-v2").steps[0]).view
    assert (transfer["labels"]["x"], transfer["labels"]["y"]) == ("output dimension", "input token")
    with i18n.speaking("zh-CN"):
        first = lessons.shown(lab, shelf.get("by-hand", "zh-CN").steps[0])
    assert not re.search(r"[A-Za-z]{4,}", re.sub(r"\b(it|cat|The|sat|because)\b", "", first.check)), first.check


def test_the_query_key_and_value_maps_number_their_columns_as_dimensions(shelf, lab):
    """Chapter step 2 draws Q, K and V under one axis titled "dimension": its ticks are d0 … d7, not Q's q0 … q7."""
    from core.render.scales import unpacked
    from core.serve import lessons

    step = shelf.get("chapter").steps[1]
    view = lessons.shown(lab, step).view
    head_dim = 16 // 2  # the lab's default layer: d_model 16, two heads
    assert view["labels"]["x"] == "dimension"
    assert view["cols"] == [f"d{j}" for j in range(head_dim)]
    assert [unpacked(h["values"]).shape[-1] for h in view["heads"]] == [head_dim] * 3


@pytest.mark.floats
def test_the_output_step_draws_the_values_beside_their_averages(shelf, lab):
    """Chapter step 7: V and weights @ V side by side; each output row is its weights row times V (an independent
    product of the drawn weights), so it stays inside V's column ranges, as the step's check says."""
    from core.render.scales import unpacked
    from core.serve import lessons

    step = next(s for s in shelf.get("chapter").steps if s.view == "stage" and s.state.get("stage") == "context")
    view = lessons.shown(lab, step).view
    values, out = (unpacked(h["values"]).astype(float) for h in view["heads"])
    weights = unpacked(lessons.show(lab, "stage", {**lessons.state(step), "stage": "weights"}).view["heads"][0]["values"])
    assert np.allclose(out, weights @ values, atol=5e-3)  # (each drawn to 3 decimals)
    assert view["cols"] == [f"d{j}" for j in range(values.shape[1])]
    assert [o.held for o in lessons.shown(lab, step).outcomes] == [True, True]


@pytest.mark.floats
def test_the_sink_step_is_unmeasured_without_a_real_model_and_measured_with_one(shelf, lab, tmp_path, monkeypatch):
    from core.render.scales import unpacked
    from core.serve import lessons
    from tests.real_families import save

    monkeypatch.delenv("ATTENTION_LAB_MODELS", raising=False)
    monkeypatch.delenv("ATTENTION_LAB_GPT2", raising=False)
    step = next(s for s in shelf.get("chapter").steps if s.view == "sink")
    (o,) = lessons.shown(lab, step).outcomes  # the tiny model stands in: its claim is a real model's
    assert o.held is None and "no real model is configured" in o.text
    folder = tmp_path / "qwen-toy"
    save("qwen2", folder)
    monkeypatch.setenv("ATTENTION_LAB_MODELS", str(folder))
    shown = lessons.shown(lab, step)
    (o,) = shown.outcomes
    assert o.held is not None and o.measured == pytest.approx((float(unpacked(shown.view["heads"][0]["values"]).max()),))


@pytest.mark.floats
def test_the_transfer_mistake_and_dropout_steps_measure_the_figures_their_text_states(shelf, lab):
    """v1-v2: without .T the map is nn.Linear's stored weight, (d_out, d_in) = 2 × 3; dropout keeps each weight ×1/(1-p)."""
    import torch

    from core.serve import lessons

    steps = shelf.get("v1-v2").steps
    transpose = next(s for s in steps if s.state.get("mistake") == "no-transpose")
    measured = {o.expect.measure: o.measured for o in lessons.shown(lab, transpose).outcomes}
    stored = torch.nn.Linear(3, 2).weight.shape  # the transfer's d_in 3, d_out 2
    assert (measured["rows"], measured["columns"]) == ((float(stored[0]),), (float(stored[1]),))
    dropout = next(s for s in steps if s.view == "dropout")
    (ratio,) = [o for o in lessons.shown(lab, dropout).outcomes if o.expect.measure == "ratio"]
    p = dropout.state["dropout"]
    assert ratio.held and len(ratio.measured) > 5 and np.allclose(ratio.measured, 1 / (1 - p), rtol=1e-3)
