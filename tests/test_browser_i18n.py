"""A browser whose language is Chinese sees the whole app in Chinese; Gradio's Settings switch turns it to English."""

from __future__ import annotations

import re

import pytest

from core.ui import i18n
from tests.conftest import ARGS, CHROMIUM
from tests.pages import TIMEOUT, VIEW, redrawn, stamp
from tests.test_i18n import data_words

pytestmark = pytest.mark.browser
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def zh_page(app_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(locale="zh-CN", viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        page.goto(app_url)
        page.get_by_role("tab", name=i18n.tr("Attention", "zh-CN"), exact=True).click()  # (the landing page: Lesson)
        page.wait_for_selector(f"{VIEW}[data-stamp]:not([data-stamp=''])")
        yield page
        browser.close()


def english_on_screen(page, selector: str) -> list[str]:
    """English words a reader sees inside selector (the model's words and kept names excepted)."""
    text = page.locator(selector).first.evaluate(  # formulas (d_head, M_ij) are maths, code is code: not English
        "e => { const c = e.cloneNode(true); c.querySelectorAll('.katex, code, pre, .cm-editor, [data-testid=code], [data-testid=status-tracker], .progress-text, .eta-bar').forEach(k => k.remove());"
        " document.body.appendChild(c); const t = c.innerText; c.remove(); return t; }")
    words = data_words()
    return sorted({w for line in text.splitlines() for w in i18n.leftover(line) if w.lower() not in words})


def test_a_chinese_browser_reads_the_attention_tab_in_chinese(zh_page):
    page = zh_page
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    assert page.get_by_role("tab", name=i18n.tr("Step through", "zh-CN")).is_visible()
    page.wait_for_function("() => /[\\u4e00-\\u9fff]/.test("
                           "document.querySelector('#attention-heatmaps .al-check-text').textContent)")
    old = stamp(page)
    page.locator("#sentence textarea").fill("the cat sat on the mat")
    redrawn(page, old)
    page.wait_for_function("() => /[\\u4e00-\\u9fff]/.test("
                           "document.querySelector('#attention-heatmaps .al-check-text').textContent)")
    left = english_on_screen(page, "#attention-heatmaps")  # titles, legend, colour scale, hover texts
    assert not left, left
    title = page.locator("#attention-heatmaps .al-ytitle").first  # Chinese stands upright, read top to bottom
    assert CJK.search(title.inner_text())
    assert title.evaluate("e => [getComputedStyle(e).writingMode, getComputedStyle(e).transform]") == [
        "vertical-rl", "none"]
    tab = page.locator("[role=tabpanel]").first
    assert CJK.search(tab.inner_text())
    left = english_on_screen(page, "[role=tabpanel]")
    assert not left, left


def test_every_tab_opens_in_chinese(zh_page):
    page = zh_page
    names = [t.inner_text() for t in page.get_by_role("tab").all()]
    assert names and all(CJK.search(n) for n in names), names
    try:
        for name in names[1:]:
            page.get_by_role("tab", name=name, exact=True).click()
            page.wait_for_timeout(1500)
            panel = page.locator("[role=tabpanel]:visible").first
            left = english_on_screen(page, "[role=tabpanel]:visible")  # code boxes (torch's own words) excepted
            assert CJK.search(panel.inner_text()) and not left, (name, left)
    finally:
        page.get_by_role("tab", name=names[1], exact=True).click()  # back to the Attention tab (names[0]: Lesson)


def test_the_settings_switch_turns_the_page_and_the_servers_sentences_to_english(zh_page):
    page = zh_page
    page.get_by_role("button", name="设置").first.click()  # Gradio's Settings, in the footer
    page.get_by_role("combobox", name="Language").click()
    page.get_by_role("option", name="English", exact=True).click()
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    page.locator("button:has(svg[viewBox='0 0 5 5'])").first.click()  # the Settings panel's close (×)
    assert "lab_lang=en" in page.evaluate("document.cookie")
    # The open tab's title, its labels and help switch at once (Gradio re-renders the other tabs' titles when
    # they are next drawn); the server's sentences follow from the next click, as docs/app.md says.
    page.get_by_role("tab", name="Attention", exact=True).wait_for(state="visible")
    page.get_by_text("Sentence", exact=True).first.wait_for(state="visible")
    old = stamp(page)
    page.locator("#sentence textarea").fill("the dog sat on the mat")
    redrawn(page, old)
    page.wait_for_function("() => /every row sums to 1/.test("
                           "document.querySelector('#attention-heatmaps .al-check-text').textContent)")
