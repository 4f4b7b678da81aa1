"""A phone (390×844) and 400 % zoom (320 CSS px) read every tab: nothing past the page's edge or out of its view, no
sideways scrolling, tokens labelled at 12 px and more (a long sentence thinned by the rule docs/accessibility.md
states), every tap target 24×24 px, and on the Attention tab the sentence box and the first head on one screen."""

from __future__ import annotations

import pytest

from tests.pages import LESSONS, TABS, TIMEOUT, VIEW, open_tab, settle, show_lesson, show_tab

pytestmark = pytest.mark.browser
SENTENCE = "The cat sat on the mat because it was tired"


# Inside the open tab: anything drawn past the page's right edge, and anything in a view past the view's own box
# (scroll regions that scroll on purpose excepted: a table of numbers, a dataframe, code, typeset maths, and the
# tab bar, one row that scrolls sideways under 820 px: the page itself must not).
OVERFLOW = """() => {
  const W = document.documentElement.clientWidth, out = [];
  const skip = '.al-numbers-wrap, .al-tip, .al-sr, .table-wrap, .cm-scroller, .katex-display, .visually-hidden, ' +
    '.tab-container[role=tablist]';
  for (const e of document.body.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (!r.width || e.offsetParent === null || e.closest(skip) || getComputedStyle(e).visibility === 'hidden') continue;
    if (r.right > W + 1) out.push('past the page: ' + e.tagName + '.' + [...e.classList].join('.') + ' ' + Math.round(r.right));
  }
  for (const root of document.querySelectorAll('.al-root')) {
    if (!root.offsetParent) continue;
    const b = root.getBoundingClientRect();
    for (const e of root.querySelectorAll('*')) {
      const r = e.getBoundingClientRect();
      if (!r.width || e.closest(skip) || getComputedStyle(e).visibility === 'hidden') continue;
      if (r.right > b.right + 1 || r.left < b.left - 1) out.push('past its view: ' + e.tagName + '.' + [...e.classList].join('.'));
    }
  }
  if (document.scrollingElement.scrollWidth > W) out.push('the page scrolls sideways: ' + document.scrollingElement.scrollWidth);
  return out.slice(0, 8);
}"""
# What a finger taps, smaller than 24 x 24 px (a checkbox or a radio: its label is the target); the tokens' size.
TARGETS = """() => {
  const out = [], fonts = [];
  const all = document.querySelectorAll('button, a[href], summary, [role=button], [role=tab], input, .al-label, .al-cells');
  for (const e of all) {
    if (e.closest('.visually-hidden, .al-sr') || e.type === 'range' || e.type === 'hidden') continue;
    const box = (e.type === 'checkbox' || e.type === 'radio') && e.closest('label') ? e.closest('label') : e;
    const r = box.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(e).visibility === 'hidden' || (e.offsetParent === null && e.tagName !== 'INPUT')) continue;
    if (r.width < 24 || r.height < 24) out.push(e.tagName + '.' + [...e.classList].slice(0, 2).join('.') + ' ' +
      Math.round(r.width) + 'x' + Math.round(r.height) + ' ' + (e.textContent || '').trim().slice(0, 20));
    if (e.classList.contains('al-label')) fonts.push(parseFloat(getComputedStyle(e).fontSize));
  }
  return {small: out.slice(0, 8), smallest: fonts.length ? Math.min(...fonts) : null};
}"""


@pytest.fixture
def small_page(browser, app_url, request):
    width, height, locale = request.param
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=True, locale=locale)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    yield page
    context.close()


@pytest.mark.parametrize("small_page", [(390, 844, "en-US")], indirect=True)
def test_a_phone_shows_the_sentence_and_the_first_head_on_one_screen(small_page, app_url):
    page = small_page
    page.goto(app_url)
    open_tab(page, "Attention")
    page.wait_for_selector(f"{VIEW}[data-stamp]:not([data-stamp=''])")
    settle(page)
    top = page.evaluate("""() => {
      const y = (s) => document.querySelector(s).getBoundingClientRect().top + scrollY;
      return {sentence: y('#sentence'), head: y('#attention-heatmaps .al-head'), cells: y('#attention-heatmaps .al-cells')};
    }""")
    assert top["cells"] - top["sentence"] <= 844 - 48, top  # the sentence box, the head's title and its first row
    labels = page.evaluate("() => [...document.querySelector('#attention-heatmaps .al-grid-row').querySelectorAll('.al-label')]"
                           ".map((l) => [l.classList.contains('al-thin'), parseFloat(getComputedStyle(l).fontSize)])")
    assert len(labels) == 2 * len(SENTENCE.split()) and all(not thin and px >= 12 for thin, px in labels)  # all 10 tokens


@pytest.mark.parametrize("small_page", [(390, 844, "en-US")], indirect=True)
def test_on_a_phone_no_view_overflows_tokens_keep_12_px_and_every_target_is_24_px(small_page, app_url):
    page = small_page
    found = {}
    for lesson in LESSONS:
        show_lesson(page, app_url, lesson)
        found[f"Lesson {lesson}"] = [page.evaluate(OVERFLOW), page.evaluate(TARGETS)]
    for tab in TABS:
        show_tab(page, app_url, tab, "en")
        found[tab] = [page.evaluate(OVERFLOW), page.evaluate(TARGETS)]
    wrong = {k: (over, t["small"], t["smallest"]) for k, (over, t) in found.items()
             if over or t["small"] or (t["smallest"] is not None and t["smallest"] < 12)}
    assert wrong == {}


@pytest.mark.parametrize("small_page", [(320, 700, "en-US"), (320, 700, "zh-CN")], indirect=True,
                         ids=["en", "zh"])
def test_at_400_percent_zoom_every_tab_reads_without_sideways_scrolling(small_page, app_url):
    page = small_page
    lang = "zh" if page.evaluate("navigator.language").startswith("zh") else "en"
    found = {}
    for lesson in LESSONS:
        show_lesson(page, app_url, lesson)
        found[f"Lesson {lesson}"] = page.evaluate(OVERFLOW)
    for tab in TABS:
        show_tab(page, app_url, tab, lang)
        found[tab] = page.evaluate(OVERFLOW)
    assert {k: v for k, v in found.items() if v} == {}
