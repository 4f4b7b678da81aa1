"""A real Chromium (Debian's) reads the chapter in the app: its sentence as 8 tokens, 它's row lit in the trained
model, and the Mistakes & interventions tab's cards and table."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

TIMEOUT = 90_000  # ms: the first visit to the tab may measure the held-out table (~6 s) on a shared machine



@pytest.fixture
def page(browser, app_url):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.set_default_timeout(TIMEOUT)
    page.goto(app_url)
    page.get_by_role("tab", name="Attention", exact=True).click()  # the landing page is the Lesson tab
    page.wait_for_selector("#attention-heatmaps .al-root[data-stamp]:not([data-stamp=''])")
    yield page
    page.close()


def drawn(page, elem_id: str) -> None:
    page.wait_for_selector(f"#{elem_id} .al-root[data-stamp]:not([data-stamp=''])")


def test_the_chapters_example_is_8_tokens_in_the_attention_and_step_through_tabs(page):
    old = page.locator("#attention-heatmaps .al-root").get_attribute("data-stamp")
    page.locator("#example-0").click()
    page.wait_for_function("old => document.querySelector('#attention-heatmaps .al-root').dataset.stamp !== old", arg=old)
    labels = page.locator("#attention-heatmaps [data-head='0'] .al-x .al-label").all_inner_texts()
    assert [t.split(" ", 1)[1] for t in labels] == "合同 违约金 过高 ， 它 可能 存在 风险".split()
    page.get_by_role("tab", name="Step through").click()
    page.wait_for_function("() => document.querySelectorAll('#step-weights .al-y .al-label').length === 8")


def test_the_trained_view_lights_its_pronouns_row_on_its_noun(page):
    page.get_by_text("trained tiny model", exact=True).click()
    drawn(page, "trained-heatmaps")
    lit = page.locator("#trained-heatmaps .al-opened-map .al-y .al-label.al-on").all_inner_texts()
    assert lit == ["4 它"]
    assert "largest weight" in page.locator("#trained-heatmaps .al-description").inner_text()


def test_the_chapter_tab_shows_the_cards_and_the_intervention_table(page):
    from core.lab.failure_modes import KEYS

    page.get_by_role("tab", name="Mistakes & interventions").click()
    for key in KEYS:
        drawn(page, f"card-{key}-weights")
        assert "=" in page.locator(f"#card-{key}-wrong").inner_text()  # the line of code, as code
        check = page.locator(f"#card-{key}-check textarea").input_value()
        assert "On the wrong line it FAILS" in check and "On the fix it passes" in check
    assert "TypeError" in page.locator("#card-mask-dtype-error").inner_text()
    assert page.locator("#card-padding-nan-weights .al-legend").inner_text().count("NaN") == 1
    drawn(page, "interventions-chart")
    # a header row and one row per head
    page.wait_for_function("() => document.querySelectorAll('#interventions-table [role=row]').length === 9")
    assert "layer 0 head 0" in page.locator("#interventions-table").inner_text()
    assert "striking" in page.locator("#interventions-headline").inner_text()
    assert page.locator("#interventions-chart .al-bar").count() == 3 * 8
    assert page.dialogs == []
