"""A real Chromium (Debian's, never a downloaded one) works the controls the way a student and a teacher do."""

from __future__ import annotations

import pytest

from tests.pages import problem, redrawn, stamp

pytestmark = pytest.mark.browser


def test_html_in_an_error_message_runs_no_script(page):
    page.get_by_text("For scripts (API)").first.click()
    old = stamp(page)
    page.locator("#options textarea").fill('{"<img src=x onerror=alert(3)>": ')
    page.locator("#options textarea").press_sequentially("1}")  # typed, as a person does (an input event)
    assert "<img src=x onerror=alert(3)>" in problem(page, "unknown option")  # shown as text
    page.wait_for_timeout(500)
    assert page.dialogs == [] and page.locator("img[src='x']").count() == 0
    assert stamp(page) == old  # the last drawing stays
    page.locator("#options textarea").fill("{")
    page.locator("#options textarea").press_sequentially("}")
    page.locator("#attention-problem").wait_for(state="hidden")  # gone with the next drawing


def test_the_mask_toggle_redraws_and_the_check_says_what_leaks(page):
    first = stamp(page)
    check = page.locator("#attention-heatmaps .al-check-text")  # drawn by the page, from the weights it drew
    assert check.inner_text() == "every row sums to 1; weight above the diagonal: 0 in every row"
    page.locator("#causal input[type=checkbox]").uncheck()
    redrawn(page, first)
    page.wait_for_function("() => document.querySelector('#attention-heatmaps .al-check-text').textContent"
                           ".includes('leaks')")
    assert page.locator("#attention-heatmaps .al-legend .al-blocked").count() == 0  # nothing is blocked now
    assert page.hosts <= {page.url.split("/")[2], "data:"}  # no CDN fonts, scripts, themes or analytics


def test_arrow_keys_and_a_typed_number_change_the_heads(page):
    old = stamp(page)
    page.locator("#n_heads input[type=range]").focus()
    page.keyboard.press("ArrowRight")  # 2 -> 3 does not divide 16: refused with a sentence, view unchanged
    assert problem(page, "does not divide").startswith("n_heads=3 does not divide d_model=16")
    assert stamp(page) == old
    page.keyboard.press("ArrowRight")  # 4
    redrawn(page, old)
    page.wait_for_function("() => document.querySelectorAll('#attention-heatmaps [data-head]').length === 4")
    old = stamp(page)
    box = page.locator("#n_heads input[type=number]")
    box.fill("8")
    box.press("Enter")
    redrawn(page, old)
    assert page.locator("#attention-heatmaps [data-head]").count() == 8


def test_variant_controls_come_from_the_registry(page):
    page.get_by_text("For scripts (API)").first.click()  # where the options JSON is shown
    before = stamp(page)
    page.locator("#variant input").click()
    page.get_by_role("option", name="Sliding window (local) attention").click()
    page.wait_for_function(
        "() => document.querySelector('#options textarea').value === '{\"window\": 4, \"stride\": 0}'")
    page.locator("#opt-sliding-window-window").wait_for(state="visible")  # switched by the page, a frame later
    redrawn(page, before)
    page.locator("#variant input").click()
    page.get_by_role("option", name="Single head (CausalAttention)").click()
    page.wait_for_function("() => document.querySelector('#options textarea').value === '{}'")
    page.locator("#opt-sliding-window-window").wait_for(state="hidden")  # switched by the page, a frame later
    page.wait_for_function("() => document.querySelector('#n_heads input[type=range]').disabled")
    old = stamp(page)
    page.locator("#variant input").click()
    page.get_by_role("option", name="Sliding window (local) attention").click()
    redrawn(page, old)
    old = stamp(page)
    window = page.locator("#opt-sliding-window-window input").first  # a variant's own control redraws the view
    window.fill("2")
    window.press("Enter")
    redrawn(page, old)
    assert page.locator("#options textarea").input_value() == '{"window": 2, "stride": 0}'


def test_the_api_panel_shows_the_json_of_the_view_on_the_page_while_it_is_open(page):
    page.get_by_text("For scripts (API)").first.click()
    payload = page.locator("#payload")
    payload.get_by_text('"tired"').first.wait_for()  # the first sentence's last token
    old = stamp(page)
    page.locator("#sentence textarea").fill("a small example")
    redrawn(page, old)
    payload.get_by_text('"example"').first.wait_for()  # follows the page while open
    assert not payload.get_by_text('"tired"').count()


def test_teaching_screens_hold_teaching(page):
    assert not page.locator("#options").is_visible()  # the options JSON waits in "For scripts (API)"
    assert not page.locator("#note").is_visible()  # no empty notes box
    assert page.get_by_text("For scripts (API)").first.is_visible()


def test_the_weights_switch_opens_the_trained_model_on_its_most_telling_head(page):
    from core.lab.trained_view import most_telling_head, reference_roles

    layer, head = most_telling_head()
    name = reference_roles()[layer][head].name
    page.get_by_text("trained tiny model", exact=True).click()
    page.wait_for_selector("#trained-heatmaps .al-root[data-stamp]:not([data-stamp=''])")
    opened = page.locator("#trained-heatmaps .al-model-head[aria-pressed='true']")
    assert opened.get_attribute("data-layer") == str(layer) and opened.get_attribute("data-model-head") == str(head)
    assert name in page.locator("#trained-heatmaps .al-opened > .al-view-title").inner_text()
    assert "held-out sentences" in page.locator("#trained-heatmaps .al-description").inner_text()
    other = page.locator("#trained-heatmaps .al-model-head[data-layer='0'][data-model-head='1']")
    other.click()  # open another head: drawn at once, in the page
    assert other.get_attribute("aria-pressed") == "true"
    assert page.locator("#trained-heatmaps .al-opened > .al-view-title").inner_text().startswith("Layer 0, head 1")
    assert not page.locator("#attention-heatmaps").is_visible()  # the random view is hidden meanwhile
    page.get_by_text("random, seeded", exact=True).click()
    page.locator("#attention-heatmaps").wait_for(state="visible")


def test_causality_position_ranges_over_the_sentence_and_refuses_what_it_cannot_take(page):
    page.get_by_role("tab", name="Causality").click()
    page.wait_for_selector("#causality-bars .al-root[data-stamp]:not([data-stamp=''])")
    stamp = page.locator("#causality-bars .al-root").get_attribute("data-stamp")
    page.locator("#causality-sentence textarea").fill("a b c d e")
    page.wait_for_function("() => document.querySelector('#causality-position input[type=range]').max === '4'")
    page.wait_for_function("(s) => document.querySelector('#causality-bars .al-root').dataset.stamp !== s", arg=stamp)
    # (the new sentence drawn: its chain's last step would otherwise clear the sentence said below, under load)
    box = page.locator("#causality-position input[type=number]")
    box.fill("40")
    box.press("Enter")
    said = problem(page, ["greater than", "outside the sentence", "out of range"], box="causality-problem")
    assert "Error" not in said  # a sentence, not "Error"


def test_a_view_exports_as_a_png(page):
    page.locator("#attention-export").click()
    link = page.locator("#attention-png a").first
    link.wait_for()
    assert link.get_attribute("href").split("?")[0].endswith(".png")
