"""A view shared as a link: Copy link writes the address of what the Attention tab shows, and that address opens
the same view (or the Causality tab on its sentence); a value the lab cannot take is said, the page still draws."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest

from tests.pages import SIZE, TIMEOUT, VIEW, drawn, new_page, open_tab, redrawn, stamp, trained_shown, type_sentence

pytestmark = pytest.mark.browser
SENTENCE = "这份合同中的违约金过高"  # written without spaces: the segmenter cuts it into words


def tokens(page) -> list[str]:
    """Head 0's keys, as its columns are labelled."""
    return page.locator("#attention-heatmaps [data-head='0'] .al-x .al-label").all_inner_texts()


def settle(page) -> str:
    """The view's stamp once it stops changing (the link's settings arrive as several events)."""
    last = None
    for _ in range(40):
        page.wait_for_timeout(250)
        now = stamp(page)
        if now and now == last:
            return now
        last = now
    return last


def test_copy_link_opens_the_same_view_in_a_new_page(browser, app_url):
    page = new_page(browser, app_url, permissions=["clipboard-read", "clipboard-write"])
    try:
        open_tab(page, "Attention")
        drawn(page)
        type_sentence(page, SENTENCE)
        old = stamp(page)
        page.locator("#variant input").click()
        page.get_by_role("option", name="Sliding window (local) attention").click()
        redrawn(page, old)
        old = stamp(page)
        window = page.locator("#opt-sliding-window-window input").first
        window.fill("2")
        window.press("Enter")
        redrawn(page, old)
        old = stamp(page)
        heads = page.locator("#n_heads input[type=number]")
        heads.fill("4")
        heads.press("Enter")
        redrawn(page, old)
        old = stamp(page)
        page.locator("#causal input[type=checkbox]").uncheck()
        redrawn(page, old)
        shown, words = settle(page), tokens(page)
        page.locator("#lab-link-copy").click()
        page.locator(".al-link-pop.al-shown").wait_for()
        url = page.locator("#lab-link-url").input_value()
        assert page.locator(".al-link-note").inner_text() in ("Link copied", "Copy this link:")
        if page.locator(".al-link-note").inner_text() == "Link copied":  # (the clipboard: http on loopback may)
            assert page.evaluate("navigator.clipboard.readText()") == url
        assert quote(SENTENCE) in url and " " not in url  # percent-encoded UTF-8
        query = parse_qs(urlsplit(url).query)
        assert {k: v[0] for k, v in query.items()} == {
            "sentence": SENTENCE, "variant": "sliding-window", "causal": "false", "scaled": "true", "heads": "4",
            "d_model": "16", "seed": "0", "options": '{"window": 2, "stride": 0}', "tab": "attention"}
    finally:
        page.context.close()
    other = new_page(browser, url)
    try:
        other.wait_for_function("s => { const t = document.querySelector('#sentence textarea');"
                                " return t && t.offsetParent && t.value === s; }", arg=SENTENCE)
        other.wait_for_function("([sel, s]) => (document.querySelector(sel) || {dataset: {}}).dataset.stamp === s",
                                arg=[VIEW, shown])  # the very view: the same weights drawn
        assert tokens(other) == words and len(words) > 3
        assert other.locator(f"{VIEW} [data-head]").count() == 4
        assert not other.locator("#causal input[type=checkbox]").is_checked()
        assert other.locator("#opt-sliding-window-window input").first.input_value() == "2"
    finally:
        other.context.close()


# Answers for any other settings than the link's come back late: as on a busy server, where they may arrive last
SLOW_STALE = """(() => {
  const fetch0 = window.fetch;
  window.fetch = async (url, init) => {
    const body = init && typeof init.body === "string" ? init.body : "";
    const answer = await fetch0(url, init);
    if (String(url).includes("/run/predict") && body.includes("\"data\"") && !body.includes('window\\": 2'))
      await new Promise((done) => setTimeout(done, 1500));
    return answer;
  };
})()"""


def test_a_link_draws_its_settings_even_when_the_answers_for_half_set_controls_arrive_last(browser, app_url):
    # Opening a link sets every control at once; Gradio starts each one's change event with the values set so
    # far, so some draws are asked for the link's sentence with the old variant or options. Whatever order their
    # answers come back in, the page ends on the link's view (the one it draws when no answer is late).
    link = app_url + "?" + urlencode({"sentence": SENTENCE, "variant": "sliding-window", "causal": "false",
                                      "heads": "4", "options": '{"window": 2, "stride": 0}'})
    pages = []
    try:
        for slow in (False, True):
            context = browser.new_context(viewport=SIZE)
            if slow:
                context.add_init_script(SLOW_STALE)
            page = context.new_page()
            page.set_default_timeout(TIMEOUT)
            page.goto(link)
            page.wait_for_function("s => (document.querySelector('#sentence textarea') || {}).value === s",
                                   arg=SENTENCE)
            drawn(page)
            page.wait_for_timeout(3000)  # (past every late answer)
            pages.append(page)
        fast, slow = (settle(p) for p in pages)
        assert slow == fast and slow.endswith(":01"), (fast, slow)  # the link's view, causal off
        assert pages[1].locator(f"{VIEW} [data-head]").count() == 4
    finally:
        for p in pages:
            p.context.close()


def test_the_link_field_is_selected_when_the_page_may_not_write_the_clipboard(browser, app_url):
    page = new_page(browser, app_url)
    try:
        open_tab(page, "Attention")
        drawn(page)
        page.evaluate("Object.defineProperty(navigator, 'clipboard', {value: undefined})")  # as on plain http
        page.locator("#lab-link-copy").click()
        page.locator(".al-link-pop.al-shown").wait_for()
        assert page.locator(".al-link-note").inner_text() == "Copy this link:"
        assert page.evaluate("() => { const b = document.activeElement; return b.id === 'lab-link-url'"
                             " && b.selectionStart === 0 && b.selectionEnd === b.value.length; }")
        assert "sentence=The%20cat%20sat" in page.locator("#lab-link-url").input_value()
        page.keyboard.press("Escape")
        page.locator(".al-link-pop.al-shown").wait_for(state="detached")
    finally:
        page.context.close()


def test_a_causality_link_opens_that_tab_on_the_sentence(browser, app_url):
    page = new_page(browser, f"{app_url}?sentence=the%20dog%20ran%20home&tab=causality")
    try:
        page.get_by_role("tab", name="Causality", selected=True).wait_for()
        page.wait_for_function("() => { const t = document.querySelector('#causality-sentence textarea');"
                               " return t && t.offsetParent && t.value === 'the dog ran home'; }")
        page.wait_for_function("() => [...document.querySelectorAll('#causality-bars .al-root')]"
                               ".some((r) => r.textContent.includes('home'))")
    finally:
        page.context.close()


def test_a_step_link_steps_through_the_links_settings(browser, app_url):
    page = new_page(browser, f"{app_url}?sentence=the%20dog%20ran&heads=4&tab=step")
    try:
        page.get_by_role("tab", name="Step through", selected=True).wait_for()
        page.wait_for_function("() => [...document.querySelectorAll('#step-weights .al-root')]"
                               ".some((r) => r.dataset.stamp && r.textContent.includes('dog'))")
        assert page.locator("#step-head input[type=number]").get_attribute("max") == "3"  # 4 heads: 0 to 3
    finally:
        page.context.close()


def test_a_bad_value_is_said_and_the_page_still_draws_the_rest(browser, app_url):
    page = new_page(browser, f"{app_url}?sentence=a%20b%20c&heads=abc&variant=%3Cb%3Enope%3C%2Fb%3E")
    try:
        toast = page.get_by_test_id("toast-body")
        toast.filter(has_text="heads='abc' must be a whole number").wait_for()
        said = toast.inner_text()
        assert "Not taken from the link:" in said and "variant='<b>nope</b>' is not registered" in said
        assert toast.locator("b").count() == 0  # the link's text is said as text, never read as HTML
        page.get_by_role("tab", name="Attention", selected=True).wait_for()
        page.wait_for_function("() => { const t = document.querySelector('#sentence textarea');"
                               " return t && t.value === 'a b c'; }")
        drawn(page)
        settle(page)
        assert tokens(page) == ["0 a", "1 b", "2 c"]
        assert page.locator(f"{VIEW} [data-head]").count() == 2  # the heads the page had
    finally:
        page.context.close()


def test_a_trained_link_opens_the_trained_panel_on_its_sentence(browser, app_url):
    from core.lab.trained_view import EXAMPLES

    sentence = EXAMPLES[5]  # not the panel's first sentence: the link's own is shown
    page = new_page(browser, f"{app_url}?sentence={quote(sentence)}&weights=trained")
    try:
        page.get_by_role("tab", name="Attention", selected=True).wait_for()
        page.wait_for_function("s => (document.querySelector('#trained-sentence input') || {}).value === s", arg=sentence)
        page.wait_for_function("n => document.querySelectorAll('#trained-heatmaps .al-opened-map .al-y .al-label')"
                               ".length === n", arg=len(sentence.split()))
        assert [t.split(" ", 1)[1] for t in trained_shown(page)] == sentence.split()
        assert page.locator("#trained-heatmaps .al-warning").count() == 0  # every word known
    finally:
        page.context.close()
    page = new_page(browser, f"{app_url}?sentence=the%20zebra%20slept&weights=trained")
    try:  # a word the tiny model never saw: said as the panel says it for a typed sentence, the rest drawn
        page.get_by_role("tab", name="Attention", selected=True).wait_for()
        page.wait_for_function("() => [...document.querySelectorAll('#trained-heatmaps .al-warning')]"
                               ".some((w) => w.textContent.includes(\"'zebra'\"))")
        assert "never saw" in page.locator("#trained-heatmaps .al-warning").first.inner_text()
        assert [t.split(" ", 1)[1] for t in trained_shown(page)] == ["the", "zebra", "slept"]
    finally:
        page.context.close()


def test_copy_link_while_the_trained_model_is_shown_writes_weights_trained(browser, app_url):
    from core.lab.trained_view import EXAMPLES
    from core.ui import attention_tab

    page = new_page(browser, app_url)
    try:
        open_tab(page, "Attention")
        drawn(page)
        page.get_by_text("trained tiny model", exact=True).click()
        trained_shown(page)
        sentence = page.locator("#trained-sentence input").input_value()
        page.locator("#trained-link-copy").click()
        page.locator(".al-link-pop.al-shown").wait_for()
        query = {k: v[0] for k, v in parse_qs(urlsplit(page.locator("#lab-link-url").input_value()).query).items()}
        assert query["weights"] == "trained" and query["sentence"] == sentence and query["tab"] == "attention"
        assert sentence == EXAMPLES[0] and sentence != attention_tab.SENTENCE  # the trained panel's, not the other's
    finally:
        page.context.close()


def chinese(n: int, seed: int = 31) -> str:
    """n Chinese characters drawn at random (the worst case for compression): a sentence the app accepts."""
    import random

    pick = random.Random(seed)
    return "".join(chr(pick.randint(0x4E00, 0x9FA5)) for _ in range(n))


def test_copy_link_of_a_1000_character_chinese_sentence_opens(browser, app_url):
    """Percent-encoded it would be 9 KB, past the 8 KB the server reads (a 414): the page writes it as ?z=."""
    from core.serve.errors import MAX_URL_BYTES

    sentence = chinese(1000)
    page = new_page(browser, app_url)
    try:
        open_tab(page, "Attention")
        drawn(page)
        type_sentence(page, sentence)
        page.locator("#lab-link-copy").click()
        page.locator(".al-link-pop.al-shown").wait_for()
        url = page.locator("#lab-link-url").input_value()
        parts = urlsplit(url)
        assert len(parts.path) + len(parts.query) <= MAX_URL_BYTES and parts.query.startswith("z="), len(url)
    finally:
        page.context.close()
    other = new_page(browser, url)
    try:
        assert other.goto(url).status == 200
        other.wait_for_function("s => { const t = document.querySelector('#sentence textarea');"
                                " return t && t.offsetParent && t.value === s; }", arg=sentence)
        other.wait_for_selector(f"{VIEW}[data-stamp]:not([data-stamp=''])")
    finally:
        other.context.close()


def test_copy_link_of_a_state_no_address_can_hold_says_so_in_one_sentence(browser, app_url):
    page = new_page(browser, app_url)
    try:
        open_tab(page, "Attention")
        drawn(page)
        type_sentence(page, chinese(4096))  # the most the app reads: 12 KB of UTF-8 that no deflate halves
        page.locator("#lab-link-copy").click()
        page.locator(".al-link-pop.al-shown").wait_for()
        assert page.locator(".al-link-note").inner_text() == (
            "This view's link would be longer than the 8,192 bytes the lab reads, because its sentence is long; "
            "shorten the sentence to share it.")
        assert not page.locator("#lab-link-url").is_visible() and page.evaluate("() => location.search") == ""
    finally:
        page.context.close()
