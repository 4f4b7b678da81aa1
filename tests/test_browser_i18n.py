"""A browser whose language is Chinese sees the whole app in Chinese; Gradio's Settings switch turns it to English."""

from __future__ import annotations

import re

import pytest

from core.i18n import lookup
from tests.i18n_checks import leftover
from tests.pages import TIMEOUT, VIEW, redrawn, settle, stamp
from tests.test_i18n import data_words, plugin_titles

pytestmark = pytest.mark.browser
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def zh_page(browser, app_url):
    context = browser.new_context(locale="zh-CN", viewport={"width": 1400, "height": 1000})  # (the module's Chromium)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(app_url)
    page.get_by_role("tab", name=lookup("Attention", "zh-CN"), exact=True).click()  # (the landing page: Lesson)
    page.wait_for_selector(f"{VIEW}[data-stamp]:not([data-stamp=''])")
    yield page
    context.close()


def english_on_screen(page, selector: str) -> list[str]:
    """English words a reader sees inside selector (the model's words and kept names excepted)."""
    text = page.locator(selector).first.evaluate(  # formulas (d_head, M_ij) are maths, code is code: not English
        "e => { const c = e.cloneNode(true); c.querySelectorAll('.katex, code, pre, .cm-editor, [data-testid=code], [data-testid=status-tracker], .progress-text, .eta-bar').forEach(k => k.remove());"
        " document.body.appendChild(c); const t = c.innerText; c.remove(); return t; }")
    words = data_words() | {w.lower() for title in plugin_titles() for w in re.findall(r"[A-Za-z]+", title)}
    return sorted({w for line in text.splitlines() for w in leftover(line) if w.lower() not in words})


def english_left(page, selector: str, patience: int = 15) -> list[str]:
    """English still on screen after up to `patience` seconds: a tab's first values come from its events, which a
    busy server answers late (ci, -n 4: the interventions table's English placeholder headers, seen too soon)."""
    left = english_on_screen(page, selector)
    for _ in range(patience * 2):
        if not left:
            break
        page.wait_for_timeout(500)
        left = english_on_screen(page, selector)
    return left


def test_a_chinese_browser_reads_the_attention_tab_in_chinese(zh_page):
    page = zh_page
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    assert page.get_by_role("tab", name=lookup("Step through", "zh-CN")).is_visible()
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
            settle(page)  # its first events done (under load they come late; until then its placeholders show)
            panel = page.locator("[role=tabpanel]:visible").first
            left = english_left(page, "[role=tabpanel]:visible")  # code boxes (torch's own words) excepted
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


# ---- Spanish: a catalogue file is all a language needs (core/locales/es.po) --------------------------------------


@pytest.fixture
def es_page(browser, app_url):
    context = browser.new_context(locale="es-ES", viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(app_url)
    page.get_by_role("tab", name=lookup("Attention", "es"), exact=True).click()
    page.wait_for_selector(f"{VIEW}[data-stamp]:not([data-stamp=''])")
    yield page
    context.close()


def in_spanish(make):
    """What the server makes for a Spanish page (its default settings), made here the same way."""
    from core import i18n as words

    with words.speaking("es"):
        return make()


def test_a_spanish_browser_reads_the_attention_tab_in_spanish(es_page):
    """Its first view (made for the English sentence, in Spanish), the page's own check line, the static texts,
    the variant's description the page switches itself, and a redraw."""
    from core.lab.session import Lab
    from core.registry import load_registry
    from core.serve import views
    from core.ui import attention_tab

    page, es = es_page, (lambda msgid: lookup(msgid, "es"))
    assert page.evaluate("document.documentElement.lang").startswith("es")
    assert page.locator("#sentence textarea").input_value() == attention_tab.SENTENCE  # (a Chinese page's only)
    page.wait_for_function("(t) => document.querySelector('#attention-heatmaps .al-check-text').textContent"
                           ".startsWith(t)", arg=es("every row sums to 1"))
    view, mask = page.locator("#attention-heatmaps").inner_text(), page.locator("#attention-mask").inner_text()
    for msgid in ("key (attended to)", "Head view: lines from one token to the tokens it attends to",
                  "Check (measured on the weights drawn)", "weight (each row sums to 1)"):
        assert es(msgid) in view, msgid
    assert es("Mask: which keys each query may attend to") in mask and "Mask" not in mask
    tab = page.locator("[role=tabpanel]:visible").first.inner_text()
    for msgid in ("Sentence", "causal mask", "divide scores by √d_head", "Variant (from the plugin registry)",
                  "random, seeded", "trained tiny model", "About this variant"):
        assert es(msgid) in tab, msgid
    registry = load_registry()
    page.locator("#attention-about").get_by_text(es("About this variant")).click()
    about = page.locator("#attention-about textarea")
    assert about.input_value() == in_spanish(lambda: attention_tab._about(registry, "multi-head"))
    page.locator("#variant input").click()  # the choices' titles in Spanish; the page switches the description
    page.get_by_role("option", name=es("Grouped-query attention")).click()
    page.wait_for_function("(t) => document.querySelector('#attention-about textarea').value === t",
                           arg=in_spanish(lambda: attention_tab._about(registry, "gqa")))
    old = stamp(page)
    page.locator("#sentence textarea").fill("the dog sat on the mat")
    redrawn(page, old)
    expected = in_spanish(lambda: views.attention(Lab(registry), "the dog sat on the mat", "gqa").heatmaps)
    titles = page.locator(f"{VIEW} .al-head-title").all_inner_texts()
    assert titles == [h["title"] for h in expected["heads"]] and titles[0] != "head 0 · K/V head 0", titles


def test_the_five_other_tabs_of_the_lab_open_in_spanish(es_page):
    """Step through, Causality, Masking & scaling, Weight transfer and Model: what each event sends a Spanish
    page is what the server makes in Spanish, and their labels are Spanish."""
    from core.lab import model_stats, transfer_report
    from core.lab.session import Lab
    from core.registry import load_registry
    from core.serve import views
    from core.ui import attention_tab, causality_tab

    page, es = es_page, (lambda msgid: lookup(msgid, "es"))
    registry = load_registry()
    lab, sentence = Lab(registry), attention_tab.SENTENCE
    page.locator("#sentence textarea").fill(sentence)  # (the settings the other tabs take)
    page.locator("#variant input").click()
    page.get_by_role("option", name=es("Multi-head, fused (CausalSelfAttention)")).click()
    page.wait_for_timeout(500)
    try:
        page.get_by_role("tab", name=es("Step through"), exact=True).click()
        step = in_spanish(lambda: views.step(lab, sentence, "multi-head", True, True, 2, 16, 0, "{}", 0))
        page.wait_for_function("(t) => document.querySelector('#step-sharing textarea').value === t", arg=step.sharing)
        page.locator("#step-formula-scores", has_text=es("shape {shape}").split(" ")[0]).wait_for()
        assert step.stages[3][1]["labels"]["x"] in page.locator("#step-scores").inner_text()
        assert es("Heads and band") in page.locator("[role=tabpanel]:visible").first.inner_text()

        page.get_by_role("tab", name=es("Causality"), exact=True).click()
        summary = in_spanish(lambda: views.causality(lab, causality_tab.SENTENCE, 3, "dog").summary)
        page.wait_for_function("(t) => document.querySelector('#causality-summary textarea').value === t",
                               arg=summary)
        bars = " ".join(page.locator("#causality-bars").inner_text().split())  # (a title may wrap)
        assert es("with the causal mask") in bars and es("the edited position") in bars

        page.get_by_role("tab", name=es("Masking & scaling"), exact=True).click()
        three = in_spanish(lambda: views.masking(lab, "The cat sat on the mat").three_summary)
        page.wait_for_function("(t) => [...document.querySelectorAll('[role=tabpanel] textarea')]"
                               ".some((e) => e.value === t)", arg=three)
        assert es("1. -inf, then softmax") in page.locator("#masking-three").inner_text()

        page.get_by_role("tab", name=es("Weight transfer"), exact=True).click()
        verdict = in_spanish(lambda: transfer_report.v2_to_v1(123, 3, 2, "none").verdict)
        page.wait_for_function("(t) => document.querySelector('#transfer-verdict textarea').value === t",
                               arg=verdict)
        assert es("verdict") in page.locator("#transfer-others").inner_text()

        page.get_by_role("tab", name=es("Model"), exact=True).click()
        parts = in_spanish(lambda: model_stats.model_size(registry, "gpt2-small", "gqa", 4, 256)[0])
        page.wait_for_function("(t) => document.querySelector('#model-parts').innerText.includes(t)", arg=parts[1][0])
        table = page.locator("#model-parts").inner_text()
        assert es("part") in table and es("attention") in table and "part" not in table.split()
        assert es("Where the parameters are: {preset} with {variant}").split(":")[0] in page.locator(
            "#model-chart").inner_text()
    finally:
        page.get_by_role("tab", name=es("Attention"), exact=True).click()
