"""Open in the lab hands over what the step showed: for every built-in step, the state its lab tab opens on is the
step's own (its edit, stage, card, mistake, run, head), and the tab's own function on that state draws the very
numbers the step drew. (The page side of it: tests/test_browser_open_in_lab.py walks one step of each view kind.)"""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.lab.lesson_format import STAGES
from core.render import scales
from tests import lesson_fixtures

registry, shelf, lab = lesson_fixtures.registry, lesson_fixtures.shelf, lesson_fixtures.lab  # (module-scoped)
LESSONS = ("chapter", "v1-v2", "by-hand")


def steps(shelf, language="en"):
    return [(n, k, s) for n in LESSONS for k, s in enumerate(shelf.get(n, language).steps, 1)]


def attention_args(st: dict) -> tuple:
    """The Attention tab's inputs, in its order, from a handed state."""
    return (st["sentence"], st["variant"], st["causal"], st["scaled"], st["heads"], st["d_model"], st["seed"],
            json.dumps(st["options"]))


def tab_stamp(lab, view: str, st: dict) -> str | None:
    """The stamp of what the step's lab tab draws from the handed state, by the tab's own function (None: a tab
    whose view is not the step's picture: the step draws a part of it, or the same numbers otherwise)."""
    from core.serve import chapter, views

    if view in ("heatmaps", "mask"):
        v = views.attention(lab, *attention_args(st))
        return (v.heatmaps if view == "heatmaps" else v.mask)["stamp"]
    if view == "stage" and st["stage"] not in ("Q", "K", "V", "context"):  # (Q, K, V and the context: a step's
        return lab_stage(lab, st)["stamp"]  # composite, compared by its numbers below)
    if view in ("causality", "dependency"):  # (the tab's own call: no seed, its default)
        v = views.causality(lab, st["sentence"], st["position"], st["replacement"], st["causal"], st["variant"])
        return (v.bars if view == "causality" else v.dependency)["stamp"]
    if view in ("three-ways", "sqrt-d"):
        v = views.masking(lab, st["sentence"], st["seed"])
        return (v.three if view == "three-ways" else v.sqrt_d)["stamp"]
    if view == "dropout":
        return views.dropout(lab, st["sentence"], st["dropout"], st["seed"])[0]["stamp"]
    if view == "failure":
        return next(c for c in chapter.cards() if c.key == st["card"]).weights["stamp"]
    if view == "interventions":
        return chapter.interventions(st["sentence"], st["mode"]).chart["stamp"]
    return None


def lab_stage(lab, st: dict) -> dict:
    """The Step through tab's map of the handed stage."""
    from core.serve import views

    v = views.step(lab, *attention_args(st), st["head"])
    return views.padded(v.stages, len(STAGES))[STAGES.index(st["stage"])][1]


def test_every_built_in_step_hands_its_lab_tab_the_state_its_view_used(shelf, lab):
    from core.serve import lesson_lab, lessons

    for name, k, step in steps(shelf):
        handed, st = lessons.shown(lab, step).lab, lessons.state(step)
        assert handed["view"] == step.view, (name, k)
        for key in ("sentence", "variant", "causal", "scaled", "heads", "d_model", "options"):
            if key in step.state and step.view not in ("real-chapter", "sink"):
                assert handed[key] == st[key], (name, k, key)
        for key in lesson_lab.OWN.get(step.view, ()):
            if key in st:
                assert handed[key] == st[key], (name, k, key)


def test_the_chapters_causality_step_opens_on_its_own_edit(shelf, lab):
    """The reported case: position 5 → 风险, not the tab's own 3 → "dog"."""
    from core.serve import lessons

    step = next(s for s in shelf.get("chapter").steps if s.view == "causality")
    handed = lessons.shown(lab, step).lab
    assert (handed["position"], handed["replacement"]) == (5, "风险")


@pytest.mark.floats
def test_the_lab_tab_draws_the_numbers_the_step_drew(shelf, lab):
    from core.serve import lessons

    compared = set()
    for name, k, step in steps(shelf):
        seen = lessons.shown(lab, step)
        theirs = tab_stamp(lab, step.view, seen.lab)
        if theirs is not None:
            assert theirs == seen.view["stamp"], (name, k, step.view)
            compared.add(step.view)
        elif step.view == "stage" and seen.lab["stage"] == "context":  # V beside the context: the context is the tab's
            ours = scales.unpacked(seen.view["heads"][-1]["values"])
            assert np.allclose(ours, scales.unpacked(lab_stage(lab, seen.lab)["heads"][0]["values"]), atol=1e-6)
            compared.add("context")
    assert compared == {"heatmaps", "mask", "stage", "context", "causality", "dependency", "three-ways", "sqrt-d",
                        "failure", "interventions", "dropout"}


def test_the_transfer_tab_copies_as_the_step_copied(shelf, lab):
    from core.lab.transfer_report import v2_to_v1 as step_copy
    from core.serve import lessons
    from core.serve.transfer import v2_to_v1

    for _, _, step in steps(shelf):
        if step.view == "transfer":
            st = lessons.shown(lab, step).lab
            mine, theirs = step_copy(st["seed"], 3, 2, st["mistake"]), v2_to_v1(st["seed"], st["d_in"], st["d_out"],
                                                                               st["mistake"])
            assert (theirs.verdict, theirs.out_v1, theirs.out_v2) == (mine.verdict, mine.out_v1, mine.out_v2)


def test_trained_and_training_steps_open_the_run_and_head_they_showed(shelf, lab):
    from core.serve import lessons
    from core.serve.lesson_training import PARAMS
    from core.serve.trained import opening_head

    for name, k, step in steps(shelf):
        st = lessons.shown(lab, step).lab
        if step.view == "trained":  # the trained panel opens its most telling head: the step's own
            assert (st["layer"], st["head"]) == opening_head(), (name, k)
            assert st["weights"] == "trained"
        if step.view == "training":  # the class's run: the settings Train both starts it with
            p = PARAMS[st["experiment"]]
            assert (st["steps"], st["run_seed"]) == (p.steps, p.seed), (name, k)


def test_a_chinese_step_hands_over_what_its_english_twin_does(shelf, lab):
    from core.serve import lessons

    en, zh = steps(shelf), steps(shelf, "zh-CN")
    assert [s.view for *_, s in en] == [s.view for *_, s in zh]
    for (name, k, a), (_, _, b) in zip(en, zh, strict=True):
        if a.view not in ("real-chapter", "sink"):
            assert lessons.shown(lab, a).lab == lessons.shown(lab, b).lab, (name, k)


def test_the_cost_tab_draws_the_lines_the_cost_step_drew(shelf, lab):
    """The step draws some of the saved benchmark's paths, one panel; the Cost tab, set to the handed paths and panel
    (as Open in the lab sets its choices), draws the same lines: names, values and styles."""
    from core.bench import cost
    from core.serve import lessons
    from core.ui import cost_tab

    saved, compared = cost.load_saved(), 0
    for name, k, step in [*steps(shelf), *steps(shelf, "zh-CN")]:
        if step.view != "cost":
            continue
        seen = lessons.shown(lab, step)
        st = seen.lab
        assert 0 < len(st["paths"]) < len(cost_tab.saved_paths(saved)), (name, k)  # some of the file's paths
        chart, table = cost_tab.saved_shown(saved, st["paths"], cost_tab.step_panel(st))
        assert len(chart["panels"]) == len(seen.view["panels"]) == 1, (name, k)
        assert chart["panels"][0]["title"] == seen.view["panels"][0]["title"]
        assert chart["panels"][0]["series"] == seen.view["panels"][0]["series"], (name, k)
        assert chart["legend"] == seen.view["legend"]
        assert {row[0] for row in table["data"]} == set(st["paths"])  # the table: the lines drawn
        compared += 1
    assert compared == 2  # by-hand's step, in English and Chinese


def test_the_cost_tabs_choices_read_any_value_and_keep_each_lines_style():
    from core.bench import cost
    from core.ui import cost_tab

    saved = cost.load_saved()
    every, _ = cost_tab.saved_shown(saved, None, None)  # a value the page cannot send: every path, both charts
    some, table = cost_tab.saved_shown(saved, ["trace", "no-such-path"], "memory")
    assert len(every["panels"]) == 2 and len(some["panels"]) == 1 and some["columns"] == 1
    assert [s["name"] for s in some["panels"][0]["series"]] == [s["name"] for s in every["panels"][1]["series"]
                                                                 if s["short"] == "trace"]
    assert some["panels"][0]["series"][0] == next(s for s in every["panels"][1]["series"] if s["short"] == "trace")
    assert {row[0] for row in table["data"]} == {"trace"}
    assert cost_tab.step_panel({"panel": 1}) == "memory" and cost_tab.step_panel({"panel": 0}) == "time"
