"""Open in the lab: a lesson step's button opens the lab tab its view lives on, on what the step showed (the view
drawn from the same numbers, the card, edit, mistake or run, scrolled into sight), and leaves that view's link in
the address bar (with weights=trained from a trained step), so a reload opens it again."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.pages import TIMEOUT, drawn, new_page, reveal, trained_shown

pytestmark = pytest.mark.browser


def test_open_in_the_lab_leaves_its_link_in_the_address_bar(browser, app_url):
    page = new_page(browser, f"{app_url}?lesson=v1-v2&step=4&sentence=ignored")
    try:
        page.wait_for_function("() => (document.getElementById('lesson') || {dataset: {}}).dataset.step === '4'")
        assert page.get_by_role("tab", name="Lesson", selected=True).count() == 1  # a lesson link wins
        page.locator("#lesson-lab").click()
        page.wait_for_function("() => { const t = document.querySelector('#sentence textarea');"
                               " return t && t.offsetParent && t.value === 'Your journey starts with one step'; }")
        page.wait_for_function("() => location.search.includes('sentence=Your%20journey%20starts')")
        query = parse_qs(urlsplit(page.url).query)
        assert "lesson" not in query and query["tab"] == ["attention"] and query["heads"]
        page.reload()
        page.get_by_role("tab", name="Attention", selected=True).wait_for()
        page.wait_for_function("() => { const t = document.querySelector('#sentence textarea');"
                               " return t && t.offsetParent && t.value === 'Your journey starts with one step'; }")
        drawn(page)
    finally:
        page.context.close()


def test_open_in_the_lab_from_a_trained_step_leaves_a_trained_link(browser, app_url):
    page = new_page(browser, f"{app_url}?lesson=chapter&step=1")
    try:
        page.wait_for_function("() => (document.getElementById('lesson') || {dataset: {}}).dataset.step === '1'")
        page.locator("#lesson-lab").click()
        page.wait_for_function("() => location.search.includes('weights=trained')")
        query = parse_qs(urlsplit(page.url).query)
        assert query["weights"] == ["trained"] and query["tab"] == ["attention"] and "lesson" not in query
        page.reload()
        page.get_by_role("tab", name="Attention", selected=True).wait_for()
        page.wait_for_function("s => (document.querySelector('#trained-sentence input') || {}).value === s",
                               arg=query["sentence"][0])
        trained_shown(page)
        page.wait_for_function("() => [...document.querySelectorAll("
                               "'#trained-heatmaps .al-opened-map .al-y .al-label.al-on')].map((e) => e.textContent)"
                               ".join('|') === '4 它'")
    finally:
        page.context.close()


# ---- Open in the lab, for every view kind a built-in lesson shows -------------------------------------------------

def lab_stamp(page, view: str) -> str:
    """A lab view's drawn numbers (its stamp), once it has drawn."""
    page.wait_for_selector(f"{view} .al-root[data-stamp]:not([data-stamp=''])")
    return page.locator(f"{view} .al-root").first.get_attribute("data-stamp")


def step_shown(page, before: str | None) -> str:
    """The step's view as the page drew it (its stamp), once it is no longer the step's before it."""
    try:
        page.wait_for_function("old => { const r = document.querySelector('#lesson-view .al-root');"
                               " return r && r.dataset.stamp && r.dataset.stamp !== old; }", arg=before or "")
    except Exception:  # noqa: BLE001 - said as what the page shows instead
        at = page.evaluate("() => { const l = document.querySelector('#lesson'), r = document.querySelector("
                           "'#lesson-view .al-root'), c = document.querySelector('#lesson-check');"
                           " return [l && l.dataset.lesson, l && l.dataset.step, r && r.dataset.stamp,"
                           " c && c.innerText.slice(0, 200)]; }")
        raise AssertionError(f"the step's view never drew after {before!r}: (lesson, step, stamp, check) = {at}") \
            from None
    return page.locator("#lesson-view .al-root").first.get_attribute("data-stamp")


def drawn_as(page, view: str, shown: str) -> None:
    """The lab's view drew the very numbers the step drew (the same stamp)."""
    try:
        page.wait_for_function("([sel, s]) => (document.querySelector(sel + ' .al-root') || {dataset: {}}).dataset"
                               ".stamp === s", arg=[view, shown], timeout=TIMEOUT / 2)
    except Exception:  # noqa: BLE001 - said as what was drawn instead
        drew = page.evaluate("sel => (document.querySelector(sel + ' .al-root') || {dataset: {}}).dataset.stamp", view)
        raise AssertionError(f"{view} drew {drew}, the step {shown}") from None


def in_sight(page, selector: str) -> None:
    """The part of the tab the step showed is on screen (Open in the lab scrolled to it)."""
    page.wait_for_function("sel => { const e = document.querySelector(sel); if (!e) return false;"
                           " const r = e.getBoundingClientRect(); return r.top >= -2 && r.top < innerHeight / 2; }",
                           arg=selector)


def field(page, selector: str, value: str) -> None:
    try:
        page.wait_for_function("([sel, v]) => (document.querySelector(sel) || {}).value === v", arg=[selector, value])
    except Exception:  # noqa: BLE001 - said as what the control holds instead (ci13: a Causality position, once)
        held = page.evaluate("sel => { const e = document.querySelector(sel); return e ? [e.value, e.max] : null; }",
                             selector)
        raise AssertionError(f"{selector} holds {held} (value, max), the step handed {value!r}") from None


def checked(page, elem_id: str, value: str) -> None:
    page.wait_for_function("([id, v]) => !!document.querySelector(`#${id} input[value='${v}']:checked`)",
                           arg=[elem_id, value])


def heatmaps_lab(page, st, shown):
    field(page, "#sentence textarea", st["sentence"])
    drawn_as(page, "#attention-heatmaps", shown)


def mask_lab(page, st, shown):
    field(page, "#sentence textarea", st["sentence"])
    assert page.locator("#opt-sliding-window-window input").first.input_value() == str(st["options"]["window"])
    drawn_as(page, "#attention-mask", shown)


def dropout_lab(page, st, shown):  # Masking & scaling: the same pair, evaluation beside training, at the step's p
    field(page, "#masking-sentence textarea", st["sentence"])
    checked(page, "masking-p", str(st["dropout"]))
    drawn_as(page, "#masking-dropout", shown)
    in_sight(page, "#masking-p")


def trained_lab(page, st, shown):
    from core.serve.trained import trained

    page.wait_for_function("s => (document.querySelector('#trained-sentence input') || {}).value === s",
                           arg=st["sentence"])
    trained_shown(page)
    drawn_as(page, "#trained-heatmaps", trained(st["sentence"], st["layer"], st["head"]).model["stamp"])  # its head


def stage_lab(page, st, shown):
    field(page, "#step-head input[type=number]", str(st["head"]))
    drawn_as(page, f"#step-{st['stage']}", shown)
    in_sight(page, f"#step-{st['stage']}")


def causality_lab(page, st, shown, view="#causality-bars"):
    field(page, "#causality-sentence textarea", st["sentence"])
    field(page, "#causality-position input[type=number]", str(st["position"]))
    field(page, "#causality-replacement textarea", st["replacement"])
    drawn_as(page, view, shown)


def dependency_lab(page, st, shown):
    causality_lab(page, st, shown, "#causality-dependency")
    in_sight(page, "#causality-dependency")


def masking_lab(page, st, shown, view):
    field(page, "#masking-sentence textarea", st["sentence"])
    drawn_as(page, view, shown)
    in_sight(page, view)


def transfer_lab(page, st, shown):
    from core.serve.transfer import v2_to_v1

    checked(page, "transfer-mistake", st["mistake"])
    field(page, "#transfer-verdict textarea", v2_to_v1(st["seed"], st["d_in"], st["d_out"], st["mistake"]).verdict)


def failure_lab(page, st, shown):
    drawn_as(page, f"#card-{st['card']}-weights", shown)
    in_sight(page, f"#card-{st['card']}")


def interventions_lab(page, st, shown):
    field(page, "#interventions-sentence input", st["sentence"])
    checked(page, "interventions-mode", st["mode"])
    drawn_as(page, "#interventions-chart", shown)
    in_sight(page, "#interventions-chart")


def training_lab(page, st, shown):
    kind = st["experiment"]
    page.locator(f"#experiments-{kind}-button[aria-selected=true]").wait_for()
    field(page, f"#{kind}-steps input[type=number]", str(st["steps"]))
    lab_stamp(page, f"#{kind}-plot")  # the class's run drawn (from the cache once trained), never empty axes
    page.wait_for_function("sel => (document.querySelector(sel) || {textContent: ''}).textContent.trim()",
                           arg=f"#{kind}-words")


def cost_lab(page, st, shown):  # the step's lines and chart chosen: the tab draws them as its own choice would
    from core.bench import cost
    from core.ui import cost_tab

    panel, saved = cost_tab.step_panel(st), cost.load_saved()
    ticks = [path in st["paths"] for path in cost_tab.saved_paths(saved)]  # (the boxes, in the file's order)
    page.wait_for_function("want => JSON.stringify([...document.querySelectorAll('#cost-paths input')]"
                           ".map(e => e.checked)) === JSON.stringify(want)", arg=ticks)
    checked(page, "cost-panels", panel)
    drawn_as(page, "#cost-saved", cost_tab.saved_shown(saved, st["paths"], panel)[0]["stamp"])
    in_sight(page, "#cost-paths")
    in_sight(page, "#cost-saved")


def real_lab(page, st, shown):
    """A real-model step: the model and sentence it ran (the test app has the tiny model only: the chapter's step has
    no Chinese-capable model to run, and hands over none)."""
    if "model" not in st:
        assert shown is None
        return
    field(page, "#real-sentence textarea", st["sentence"])
    checked(page, "real-model", st["model"])
    lab_stamp(page, "#real-model-view")


# (lesson, step from 1, the tab it opens, what that tab must show): every view kind the built-in lessons have
WALK = [
    ("chapter", 1, "Attention", trained_lab), ("chapter", 4, "Masking & scaling",
                                               lambda p, st, s: masking_lab(p, st, s, "#masking-sqrt-d")),
    ("chapter", 5, "Step through", stage_lab), ("chapter", 6, "Attention", heatmaps_lab),
    ("chapter", 9, "Causality", causality_lab), ("chapter", 11, "Experiments", training_lab),
    ("chapter", 13, "Mistakes & interventions", failure_lab), ("chapter", 17, "Mistakes & interventions",
                                                                interventions_lab),
    ("chapter", 19, "Real model", real_lab), ("chapter", 20, "Real model", real_lab),
    ("v1-v2", 2, "Weight transfer", transfer_lab), ("v1-v2", 5, "Masking & scaling",
                                                    lambda p, st, s: masking_lab(p, st, s, "#masking-three")),
    ("v1-v2", 7, "Masking & scaling", dropout_lab),
    ("by-hand", 7, "Causality", dependency_lab), ("by-hand", 11, "Attention", mask_lab), ("by-hand", 13, "Cost", cost_lab),
]


def test_open_in_the_lab_opens_every_view_kind_on_what_its_step_showed(browser, app_url):
    """One page walks one step of each view kind: Open in the lab, the tab's own view drawn from the same numbers
    (or showing the same card, edit, mistake, run), then back to the lesson."""
    from core.registry import load_registry
    from core.serve import lessons
    from core.serve.plugins import AppLab

    registry = load_registry(entry_points=False)
    shelf, lab = lessons.load(registry), AppLab(registry)
    kinds = {s.view for n in ("chapter", "v1-v2", "by-hand") for s in shelf.get(n).steps}
    assert kinds == {shelf.get(n).steps[k - 1].view for n, k, _, _ in WALK}  # every kind, once
    seen = {(n, k): lessons.shown(lab, shelf.get(n).steps[k - 1]) for n, k, _, _ in WALK}  # (before the page asks)
    page, shown = new_page(browser, f"{app_url}?lesson=chapter&step=1"), None
    try:
        for name, k, tab, lab_shows in WALK:
            if page.locator(f"#lesson[data-lesson='{name}']").count() == 0:
                page.goto(f"{app_url}?lesson={name}&step={k}")
                shown = None
            else:
                page.get_by_role("tab", name="Lesson", exact=True).click()
                page.evaluate("k => window.AttnLabLesson.jump(k)", k - 1)
            page.wait_for_selector(f"#lesson[data-lesson='{name}'][data-step='{k}']", state="attached")
            reveal(page)
            st = seen[name, k].lab  # what the step hands over, as the server computed it
            shown = None if seen[name, k].view is None else step_shown(page, shown)  # as the page drew it
            page.locator("#lesson-lab").click()
            page.get_by_role("tab", name=tab, exact=True, selected=True).wait_for()
            lab_shows(page, st, shown)
    finally:
        page.context.close()
