"""A real Chromium (Debian's, never a downloaded one) reads the views the way a student and a teacher do."""

from __future__ import annotations

import re

import pytest

from tests.pages import cell_centre, open_page, redrawn, stamp, type_sentence

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1280, 1920])
def test_the_heatmaps_fill_their_panel_with_square_cells_and_big_labels(browser, app_url, width):
    page = open_page(browser, app_url, width=width, height=1080)
    try:
        geometry = page.evaluate("""() => {
          const view = document.querySelector('#attention-heatmaps');
          const panel = view.parentElement.getBoundingClientRect();
          const grid = view.querySelector('.al-grid').getBoundingClientRect();
          const canvas = view.querySelector('canvas').getBoundingClientRect();
          const sizes = [...view.querySelectorAll('.al-label')].map(e => parseFloat(getComputedStyle(e).fontSize));
          return {fraction: grid.width / panel.width, w: canvas.width, h: canvas.height, font: Math.min(...sizes),
                  heads: view.querySelectorAll('[data-head]').length};
        }""")
        assert geometry["fraction"] >= 0.85, geometry  # the panel's width, not a 624 px picture
        assert abs(geometry["w"] - geometry["h"]) < 1  # square cells (a T x T canvas)
        assert geometry["font"] >= 14 and geometry["heads"] == 2
        shown = "#attention-heatmaps .al-{} .al-label:not(.al-thin)"
        assert page.locator(shown.format("x")).count() == 2 * 10 and page.locator(shown.format("y")).count() >= 10
    finally:
        page.close()


def test_every_label_of_24_tokens_is_shown_at_14_px_or_more_at_1280(browser, app_url):
    page = open_page(browser, app_url, width=1280, height=800)
    try:
        type_sentence(page, " ".join(f"word{i}" for i in range(24)))
        shown = page.evaluate("""() => [...document.querySelectorAll('#attention-heatmaps .al-grid .al-label')]
            .filter(e => getComputedStyle(e).visibility !== 'hidden')
            .map(e => [e.closest('.al-x') ? 'x' : 'y', parseFloat(getComputedStyle(e).fontSize)])""")
        assert sum(1 for side, _ in shown if side == "x") == 2 * 24 and sum(1 for side, _ in shown if side == "y") >= 24
        assert min(size for _, size in shown) >= 14
        boxes = page.evaluate("""() => [...document.querySelectorAll('#attention-heatmaps [data-head="0"] .al-x .al-label')]
            .map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; })""")
        assert all(a[1] <= b[0] + 0.5 for a, b in zip(boxes, boxes[1:], strict=False))  # never overlapping
    finally:
        page.close()


def test_every_tab_is_in_sight_on_a_1280_px_laptop(browser, app_url):
    page = open_page(browser, app_url, width=1280)
    tabs = page.get_by_role("tab")
    from core.ui.app import TABS

    assert tabs.count() == len(TABS) == 13 and all(t.is_visible() for t in tabs.all())
    assert page.get_by_role("button", name="More tabs").count() == 0  # none hidden behind Gradio's menu
    page.close()


def test_a_colour_scale_with_numbers_and_a_legend_for_blocked_cells(page):
    ticks = page.locator("#attention-heatmaps .al-scale .al-tick").all_inner_texts()
    assert ticks == ["0.00", "0.25", "0.50", "0.75", "1.00"]
    legend = page.locator("#attention-heatmaps .al-legend").inner_text()
    assert "blocked by the mask" in legend and "sums to 1" in legend
    assert page.locator("#attention-heatmaps .al-legend .al-blocked").count() == 1  # the hatched swatch


def test_hover_shows_the_same_weight_as_the_api(page, client):
    sentence = "The cat sat on the mat"
    type_sentence(page, sentence)
    *_, api = client.predict(sentence, api_name="/attention")
    page.locator("#attention-heatmaps [data-head='1'] canvas").scroll_into_view_if_needed()  # heads wrap: 610 px each
    x, y = cell_centre(page, head=1, i=3, j=1)
    page.mouse.move(x, y)
    tip = page.locator("#attention-heatmaps .al-tip:not([hidden])")
    tip.wait_for()
    text = tip.inner_text()
    assert text.startswith("query 'on' (3) → key 'cat' (1): weight ") and "scaled score" in text
    shown = float(re.search(r"weight (-?[\d.]+)", text).group(1))
    assert shown == pytest.approx(api["weights"][1][3][1], abs=0.0051)  # 2 decimals of the API's number
    page.locator("#attention-heatmaps [data-head='0'] canvas").scroll_into_view_if_needed()
    x, y = cell_centre(page, head=0, i=1, j=4)  # the future: blocked
    page.mouse.move(x, y)
    page.wait_for_function("() => [...document.querySelectorAll('#attention-heatmaps .al-tip')].some(t => !t.hidden && "
                           "t.textContent.includes('blocked'))")


def test_clicking_a_token_highlights_its_row_and_column_in_every_head(page):
    page.locator("#attention-heatmaps .al-grid .al-y .al-label[data-index='2']").first.click()
    shown = page.evaluate("""() => [...document.querySelectorAll('#attention-heatmaps [data-head]')].map(h => [
        h.querySelector('.al-hl-row[data-index="2"]').hidden, h.querySelector('.al-hl-col[data-index="2"]').hidden,
        [...h.querySelectorAll('.al-hl')].filter(e => !e.hidden).length])""")
    assert shown == [[False, False, 2], [False, False, 2]]
    assert page.locator("#attention-heatmaps .al-label.al-on").count() >= 2  # its labels light up too
    page.locator("#attention-heatmaps .al-grid .al-y .al-label[data-index='2']").first.click()  # again: off
    assert page.locator("#attention-heatmaps .al-hl:not([hidden])").count() == 0


def test_cjk_and_emoji_tokens_are_drawn_as_text(page):
    type_sentence(page, "我 爱 🎉 👍🏽 ok")
    labels = page.locator("#attention-heatmaps .al-grid-row").first.locator(".al-y .al-label").all_inner_texts()
    assert labels == ["0 我", "1 爱", "2 🎉", "3 👍🏽", "4 ok"]
    assert "U+" not in page.locator("#attention-heatmaps").inner_text()


def test_html_in_the_sentence_runs_no_script(page):
    hostile = '<img src=x onerror=alert(1)> <script>alert(2)</script> hi'
    type_sentence(page, hostile)
    page.wait_for_timeout(500)  # give a would-be onerror handler time to fire
    assert page.dialogs == []
    assert page.locator("img[src='x']").count() == 0 and page.locator("#attention-heatmaps script").count() == 0
    assert "<" in page.locator("#attention-heatmaps .al-grid .al-y").first.inner_text()  # the token, as text
    page.get_by_role("tab", name="Step through").click()  # the tokens label every stage's matrix there
    page.wait_for_function("() => [...document.querySelectorAll('#step-weights .al-label')].some(e => e.textContent.includes('img'))")
    page.wait_for_timeout(500)
    assert page.dialogs == [] and page.locator("img[src='x']").count() == 0
    page.get_by_role("tab", name="Attention", exact=True).click()
    assert page.locator("#sentence textarea").input_value() == hostile  # kept as text


def test_gqa_titles_and_the_head_view(page):
    old = stamp(page)
    page.locator("#variant input").click()
    page.get_by_role("option", name="Grouped-query attention").click()
    redrawn(page, old)
    titles = page.locator("#attention-heatmaps .al-head-title").all_inner_texts()
    assert titles[0].startswith("head 0 · K/V head") and len(titles) == 2
    lines = "#attention-heatmaps .al-hv-line"
    heads_drawn = page.evaluate(f"() => new Set([...document.querySelectorAll('{lines}')].map(l => l.dataset.lineHead)).size")
    assert heads_drawn == 2
    page.locator("#attention-heatmaps .al-chip[data-toggle-head='0']").click()  # switch head 0 off
    assert page.locator(f"{lines}[data-line-head='0']").count() == 0 and page.locator(f"{lines}[data-line-head='1']").count() > 0
    page.locator("#attention-heatmaps .al-hv-left").nth(2).click()  # pick token 2: lines to tokens 0..2 only
    assert page.locator(lines).count() <= 3


def test_step_through_shows_every_stage_full_height_with_typeset_formulas(page):
    type_sentence(page, "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen")
    page.get_by_role("tab", name="Step through").click()
    page.wait_for_selector("#step-output .al-root[data-stamp]:not([data-stamp=''])")
    # LaTeX typeset by KaTeX (bundled with Gradio), after the view is drawn: waited for, not read at once
    page.wait_for_function("() => document.querySelectorAll('.al-formula .katex').length >= 9")
    scrolls = page.evaluate("""() => [...document.querySelectorAll('[id^="step-"] .al-root')].map(v => {
        let e = v, inner = 0;
        for (; e && e !== document.body; e = e.parentElement) if (e.scrollHeight > e.clientHeight + 2 &&
            ['auto', 'scroll'].includes(getComputedStyle(e).overflowY)) inner++;
        return inner; })""")
    assert len(scrolls) == 9 and set(scrolls) == {0}  # no inner scroll bars up to 16 tokens
    rows = page.locator("#step-weights .al-y .al-label").count()
    assert rows == 16
