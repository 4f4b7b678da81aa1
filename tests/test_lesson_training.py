"""The chapter's training steps read the class's shared run (core.serve.lesson_training): its figures, never a second
training, and one sentence while the run is not there yet. Small runs stand in for the defaults (seconds, not 25 s)."""

from __future__ import annotations

import re

import pytest

from core.lab import experiments as ex
from core.lab import lesson_format as fmt
from core.serve import experiments as served
from core.serve import lesson_training, lessons, runs
from tests.i18n_checks import leftover

SMALL_MASK = ex.MaskParams(steps=200, context_length=8, d_model=32, eval_every=199)  # peeks within 200 steps
SMALL_SCALE = ex.ScaleParams(steps=4, context_length=8)
NUMBER = re.compile(r"\d+\.\d+")


def in_chinese(text: str) -> bool:
    """Chinese, with no English word left (names, numbers and quoted samples aside)."""

    return bool(re.search(r"[\u4e00-\u9fff]", text)) and not leftover(text)


@pytest.fixture(scope="module")
def registry():
    from core.registry import load_registry

    return load_registry(entry_points=False)


def step_of(registry, experiment: str, language: str = "en") -> fmt.Step:
    steps = lessons.load(registry).get("chapter", language).steps
    return next(s for s in steps if s.view == "training" and s.state.get("experiment") == experiment)


def shown(step: fmt.Step, monkeypatch, params, language: str = "en") -> lessons.Shown:
    """The step as a page in `language` shows it."""
    from core.i18n import speaking

    monkeypatch.setitem(lesson_training.PARAMS, step.state["experiment"], params)
    with speaking(language):
        return lessons.show(None, step.view, lessons.state(step))


def test_the_mask_step_comes_after_the_future_token_edit_in_both_languages(registry):
    for language in ("en", "zh-CN"):
        steps = lessons.load(registry).get("chapter", language).steps
        i = steps.index(step_of(registry, "mask", language))
        assert steps[i - 1].view == "causality" and steps[i - 1].state["position"] == 5, language
    assert fmt.EXPERIMENTS == tuple(lesson_training.PARAMS)
    assert lesson_training.PARAMS == {"mask": ex.MaskParams(), "scale": ex.ScaleParams()}  # = what warm() trains


@pytest.mark.kernel_free
def test_the_mask_steps_check_reports_the_shared_runs_own_figures(registry, monkeypatch):
    *_, run = served.shared_mask_experiment(SMALL_MASK)  # the class's run (a worker process), then cached
    calls = []
    monkeypatch.setattr(runs, "apart", lambda *a: calls.append(a))  # the step must not train (or start) anything
    s = shown(step_of(registry, "mask"), monkeypatch, SMALL_MASK)
    assert calls == []
    figures, samples = s.check.split("  \n")
    unmasked, masked, unmasked_honest, masked_honest = (float(x) for x in NUMBER.findall(figures))
    summary = ex.mask_summary(run)
    assert (unmasked, masked) == pytest.approx((summary["train_loss"]["unmasked"], summary["train_loss"]["masked"]),
                                               abs=0.005)
    assert (unmasked_honest, masked_honest) == pytest.approx(
        (run.unmasked_honest[-1], run.masked_honest[-1]), abs=0.005)
    assert unmasked < masked and unmasked_honest > unmasked  # it peeked; scored honestly, it cannot
    read = re.sub(r"\\(.)", r"\1", samples)  # the Markdown as the page shows it (the model's words: escaped)
    for model in ("masked", "unmasked"):  # each sample's first words, as the model generated them
        assert f"'{' '.join(run.samples[model].split()[:lesson_training.SAMPLE_WORDS])} …'" in read, model
    assert s.view["kind"] == "chart" and s.view["height"] == lessons.HEIGHT
    drawn = s.view["panels"][0]["series"][1]  # the unmasked model's training loss, every step
    assert drawn["y"] == pytest.approx(run.unmasked) and len(drawn["x"]) == SMALL_MASK.steps

    zh = shown(step_of(registry, "mask"), monkeypatch, SMALL_MASK, "zh-CN")
    assert in_chinese(zh.check) and in_chinese(zh.view["panels"][0]["title"])  # the samples: quoted, kept as made
    assert NUMBER.findall(zh.check) == NUMBER.findall(s.check) and samples.split("'")[1] in zh.check
    es = shown(step_of(registry, "mask"), monkeypatch, SMALL_MASK, "es")
    assert es.check.startswith("Pérdida de entrenamiento sin la máscara") and "Generado palabra a palabra" in es.check
    assert NUMBER.findall(es.check) == NUMBER.findall(s.check) and es.view["panels"][0]["title"] == "Pérdida con y sin la máscara"


@pytest.mark.kernel_free
def test_the_scale_steps_check_reports_the_runs_largest_weight_and_gradient(registry, monkeypatch):
    *_, run = served.shared_scale_experiment(SMALL_SCALE)
    s = shown(step_of(registry, "scale"), monkeypatch, SMALL_SCALE)
    assert [float(x) for x in NUMBER.findall(s.check)] == pytest.approx(
        [run.max_weight["unscaled"][-1], run.max_weight["scaled"][-1], run.grad_norm["unscaled"][-1],
         run.grad_norm["scaled"][-1]], abs=5e-3, rel=5e-3)
    assert s.view["panels"][0]["title"] == "Gradient reaching the softmax input"  # panel: 2, the only one shown
    assert len(s.view["panels"]) == 1 and [e["text"] for e in s.view["legend"]] == ["scores / √d",
                                                                                    "raw scores (no scaling)"]
    zh = shown(step_of(registry, "scale"), monkeypatch, SMALL_SCALE, "zh-CN")
    assert in_chinese(zh.check) and NUMBER.findall(zh.check) == NUMBER.findall(s.check)
    assert [e["text"] for e in zh.view["legend"]] == ["分数 / √d", "原始分数（不缩放）"]  # the legend of its own lines
    es = shown(step_of(registry, "scale"), monkeypatch, SMALL_SCALE, "es")
    assert es.check.startswith("Sin √d, el mayor peso") and es.view["panels"][0]["title"] == (
        "Gradiente que llega a la entrada de softmax")


def test_a_run_not_started_is_said_and_the_step_starts_nothing(registry, monkeypatch):
    calls = []
    monkeypatch.setattr(runs, "apart", lambda *a: calls.append(a))
    never = ex.MaskParams(steps=20, seed=987654)  # nobody trained it
    s = shown(step_of(registry, "mask"), monkeypatch, never)
    assert s.check == lesson_training.MESSAGES["waiting"] and calls == []
    assert in_chinese(shown(step_of(registry, "mask"), monkeypatch, never, "zh-CN").check)
    assert shown(step_of(registry, "mask"), monkeypatch, never, "es").check.startswith("La ejecución de la clase aún")
    assert all(line["x"] == [] for line in s.view["panels"][0]["series"])  # the axes, no curve yet
    assert runs.peek(("mask", never)) is None


def test_a_run_still_training_shows_its_curves_so_far_and_its_fraction_done(registry, monkeypatch):
    p = ex.MaskParams(steps=400, context_length=8, d_model=16, n_heads=2, eval_every=399, seed=31)
    trainer = served.shared_mask_experiment(p, every=20)
    try:
        first = next(trainer)  # training (in its worker process) has published its first snapshot
        s = shown(step_of(registry, "mask"), monkeypatch, p)
        run = runs.peek(("mask", p))
        assert not run.done and len(run.steps) >= len(first.steps)
        percent = int(re.search(r"\((\d+)% done\)", s.check).group(1))
        assert percent < 100 and percent <= round(100 * run.fraction_done)
        assert in_chinese(shown(step_of(registry, "mask"), monkeypatch, p, "zh-CN").check)
        assert 0 < len(s.view["panels"][0]["series"][0]["x"]) < p.steps
    finally:
        trainer.close()  # its worker stops; nothing cached
    assert runs.peek(("mask", p)) is None


def a_step(state: str) -> fmt.Step:
    """The one step of a lesson file whose step reads these state lines (checked as `lesson check` would)."""
    text = f"---\nlesson: panels\ntitle: Panels\nlanguage: en\n---\n## The panel\n{state}\n\nLook.\n"
    return fmt.parse(text, "panels.md").steps[0]


@pytest.mark.kernel_free
def test_a_step_can_pick_the_scale_runs_loss_panel(monkeypatch):
    """panel: 3 is the √d run's training loss (its 4th panel, the most of any chart): the range a lesson may name."""
    *_, run = served.shared_scale_experiment(SMALL_SCALE)
    s = shown(a_step("view: training\nexperiment: scale\npanel: 3"), monkeypatch, SMALL_SCALE)
    assert len(s.view["panels"]) == 1 and s.view["panels"][0]["title"] == "Training loss"
    drawn = {line["name"]: line["y"] for line in s.view["panels"][0]["series"]}
    assert drawn == {"scores / √d": pytest.approx(run.loss["scaled"]),
                     "raw scores (no scaling)": pytest.approx(run.loss["unscaled"])}
    assert fmt.KEYS["panel"].maximum == fmt.PANELS - 1 == len(served.chart("scale", run)["panels"]) - 1
    with pytest.raises(fmt.LessonError, match=r"panel is a whole number from 0 to 3, not 4"):
        a_step("view: training\nexperiment: scale\npanel: 4")


@pytest.mark.parametrize("view, state, last", [
    ("training", "experiment: mask\npanel: 1", 0),  # the mask run's one panel
    ("cost", "panel: 2", 1),  # time and memory
])
def test_a_panel_past_the_charts_last_is_one_sentence_not_another_panel(monkeypatch, view, state, last):
    """Refused when the lesson is read (the app and `lesson check` alike, at the panel's line), and by the view itself
    for a state made any other way."""
    panel = int(state.rsplit(": ", 1)[1])
    said = f"panel={panel} is past this chart's last panel; choose 0 to {last}"
    with pytest.raises(fmt.LessonError) as caught:
        a_step(f"view: {view}\n{state}")
    assert str(caught.value).endswith(f"line {8 + state.count(chr(10))}: {said}"), str(caught.value)
    step = fmt.Step("t", view, dict(a_step(f"view: {view}").state, panel=panel), (), "", 1)
    monkeypatch.setitem(lesson_training.PARAMS, "mask", ex.MaskParams(steps=20, seed=987654))  # nobody trained it
    with pytest.raises(lessons.ConfigError) as caught:
        lessons.show(None, step.view, lessons.state(step))
    assert str(caught.value) == said
