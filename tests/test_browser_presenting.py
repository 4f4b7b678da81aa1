"""A teacher presents with a clicker's keys only, wherever the focus is; the address follows the step; the presenting
mode gives the view the screen; the outline, the notes, the end screen; the handout prints one page per step."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.pages import TIMEOUT
from tests.test_browser_lessons import FITS, LEGIBLE

pytestmark = pytest.mark.browser
LESSONS = ("chapter", "v1-v2", "by-hand")
NEXT_KEYS = ("ArrowRight", "PageDown", " ")
BACK_KEYS = ("ArrowLeft", "PageUp")
MATRICES = ("heatmaps", "trained", "stage", "mask", "dropout")  # a query-by-key matrix of tokens
TOGGLES = ("causal", "scaled", "mistake", "mode")  # a step's checkboxes and radios (the sentence is a text field)
# How much of the screen's height the step's drawn view takes, and whether the app's header or tabs show.
SHARE = """() => {
  const r = document.querySelector('#lesson-view .al-root'), b = r && r.getBoundingClientRect();
  const seen = (s) => { const e = document.querySelector(s); return !!(e && e.offsetParent); };
  return { share: b ? b.height / innerHeight : 0, heads: r ? r.querySelectorAll('.al-head').length : 0,
    drawn: !!(r && r.querySelector('canvas, svg')),
    header: seen('#app-header'), tabs: [...document.querySelectorAll(
    '[role=tab]')].some((t) => t.offsetParent && t.getBoundingClientRect().height > 0) };
}"""


@pytest.fixture(scope="module")
def shelf():
    from core.registry import load_registry
    from core.serve import lessons

    return lessons.load(load_registry())


def new_page(browser, app_url, query="", lang="en-US", size=(1024, 768)):
    page = browser.new_context(locale=lang, viewport={"width": size[0], "height": size[1]}).new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{app_url}{query}")
    page.wait_for_selector("#lesson[data-step]:not([data-step=''])", state="attached")
    page.lang = "zh-CN" if lang.startswith("zh") else "en"
    return page


def at_step(page, name: str, k) -> None:
    page.wait_for_selector(f"#lesson[data-lesson='{name}'][data-step='{k}']", state="attached")


def stays(page, name: str, k) -> None:
    """The step shown is k, and still is a moment later (a key moved it once, not twice)."""
    at_step(page, name, k)
    page.wait_for_timeout(700)
    assert page.locator(f"#lesson[data-lesson='{name}'][data-step='{k}']").count() == 1


def go(page, app_url, name: str, k: int) -> None:
    page.goto(f"{app_url}?lesson={name}&step={k}")
    at_step(page, name, k)


def jump(page, app_url, name: str, k: int) -> None:
    """Step k of lesson name: in the page when it shows that lesson (as its outline does), else loaded."""
    if page.locator(f"#lesson[data-lesson='{name}']").count() == 0:
        return go(page, app_url, name, k)
    page.evaluate("k => window.AttnLabLesson.jump(k)", k - 1)
    at_step(page, name, k)


SAID = """() => [(document.querySelector('#lesson-view .al-root') || {dataset: {}}).dataset.stamp || '',
  (document.querySelector('#lesson-check') || {}).innerText || '']"""


def drawn(page) -> str:
    page.wait_for_selector("#lesson-view .al-root[data-stamp]:not([data-stamp=''])")
    return page.locator("#lesson-view .al-root").get_attribute("data-stamp")


def toggle(page, control: str) -> None:
    """Click the step's control with the mouse, as a teacher does ("now turn the mask off"), and wait for the step to
    follow it (its view redrawn, or its check said again: a step may have no view)."""
    said = page.evaluate(SAID)
    if control in ("causal", "scaled"):
        page.locator(f"#lesson-{control} input[type=checkbox]").click()
    else:
        page.locator(f"#lesson-{control} label:not(:has(input:checked))").first.click()
    page.wait_for_function(f"old => {{ const now = ({SAID})(); return now[0] !== old[0] || now[1] !== old[1]; }}",
                           arg=said)


def test_after_clicking_a_steps_checkbox_or_radio_the_clickers_keys_still_move_the_lesson(browser, app_url, shelf):
    page = new_page(browser, app_url)
    n = 0
    for name in LESSONS:
        lesson = shelf.get(name, "en")
        for k, step in enumerate(lesson.steps, start=1):
            for control in (c for c in step.controls if c in TOGGLES):
                jump(page, app_url, name, k)  # (one load per lesson, not per control)
                if page.locator("#lesson[data-phase=ask]").count():
                    page.keyboard.press("ArrowRight")  # the question's next press reveals the view and its controls
                    page.wait_for_selector("#lesson:not([data-phase])")
                toggle(page, control)
                key = NEXT_KEYS[n % len(NEXT_KEYS)]
                page.keyboard.press(key)  # Space must not flip the box back, → must not pick the next radio
                stays(page, name, k + 1 if k < len(lesson.steps) else "end")
                page.keyboard.press(BACK_KEYS[n % len(BACK_KEYS)])
                at_step(page, name, k)
                n += 1
    assert n >= 10  # (every built-in lesson has controls: the chapter's masks, v1-v2's mistakes, by-hand's switches)
    page.context.close()


def test_space_on_a_focused_button_does_its_own_job_once_and_after_a_click_it_is_the_clickers(browser, app_url):
    page = new_page(browser, app_url)
    go(page, app_url, "chapter", 3)
    page.locator("#lesson-back").focus()  # reached by the keyboard: Space presses Back, once
    page.keyboard.press(" ")
    stays(page, "chapter", 2)
    page.locator("#lesson-next").focus()
    page.keyboard.press(" ")
    stays(page, "chapter", 3)  # (Next pressed once, not also the page's Next)
    page.locator("#lesson-back").click()  # clicked with the mouse: the next Space is the clicker's
    stays(page, "chapter", 2)
    page.keyboard.press(" ")
    stays(page, "chapter", 3)
    page.context.close()


def test_a_thumbnail_clicked_then_the_clicker_moves_on_once(browser, app_url, shelf):
    """v1-v2's four heads at 1024×768, not presented: too many for every label side by side (one row or two), so one
    head big and the others as thumbnails (tests/test_browser_lessons.py says why)."""
    page = new_page(browser, app_url)
    lesson = shelf.get("v1-v2", "en")
    k = next(i for i, st in enumerate(lesson.steps, start=1) if st.state.get("heads", 0) >= 4)
    go(page, app_url, "v1-v2", k)
    if page.locator("#lesson[data-phase=ask]").count():
        page.keyboard.press("PageDown")
        page.wait_for_selector("#lesson:not([data-phase])")
    page.locator("#lesson-view .al-thumb").nth(1).click()
    page.wait_for_function("() => document.querySelector('#lesson-view .al-head').dataset.head === '1'")
    page.wait_for_timeout(1000)  # (a while later, a keyboard's turn)
    page.locator("#lesson-view .al-thumb").nth(2).focus()  # a keyboard's Space on a thumbnail picks its head
    page.keyboard.press(" ")
    page.wait_for_function("() => document.querySelector('#lesson-view .al-head').dataset.head === '2'")
    stays(page, "v1-v2", k)
    page.locator("#lesson-view .al-thumb").nth(3).click()
    page.keyboard.press(" ")  # after a click: the clicker's Next, once
    stays(page, "v1-v2", k + 1)
    page.context.close()


def test_the_picker_changes_the_lesson_only_when_another_is_chosen(browser, app_url, shelf):
    page = new_page(browser, app_url)
    go(page, app_url, "chapter", 5)
    page.locator("#lesson-picker input").click()  # opened, then left: Gradio's dropdown fires its input on blur
    page.mouse.click(page.viewport_size["width"] - 8, page.viewport_size["height"] - 8)  # elsewhere on the page
    stays(page, "chapter", 5)
    page.locator("#lesson-picker input").focus()
    page.keyboard.press("Tab")
    stays(page, "chapter", 5)
    page.locator("#lesson-picker input").click()
    page.get_by_role("option", name=shelf.get("by-hand", "en").title).click()
    stays(page, "by-hand", 1)
    page.context.close()


def test_the_address_follows_the_step_and_a_reload_keeps_it(browser, app_url):
    page = new_page(browser, app_url, "?lesson=by-hand&step=2")
    page.keyboard.press("ArrowRight")
    at_step(page, "by-hand", 3)  # (step 3 asks its question first: the loop below reveals it)
    while page.locator("#lesson[data-step='3']").count() == 0 or page.locator("#lesson[data-phase=ask]").count():
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(300)
    page.wait_for_function("() => location.search.includes('step=3')")
    query = parse_qs(urlsplit(page.url).query)
    assert query["lesson"] == ["by-hand"] and query["step"] == ["3"]
    page.reload()
    at_step(page, "by-hand", 3)
    page.goto(app_url)  # the bare address stays bare until the presenter moves, then names the step
    at_step(page, "chapter", 1)
    assert page.evaluate("() => location.search") == ""
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => location.search.startsWith('?lesson=chapter&step=')")
    page.context.close()


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_a_lesson_or_step_that_is_not_there_says_so_in_one_line(browser, app_url, lang):
    page = new_page(browser, app_url, "?lesson=chapter&step=99", lang=lang)
    at_step(page, "chapter", 1)
    note = page.locator("#lesson-failed .al-lesson-note")
    note.wait_for()
    text = note.inner_text().strip()
    assert "99" in text and "\n" not in text
    assert ("no step" in text) if lang == "en-US" else not re.search(r"[A-Za-z]{3,}", text.replace("chapter", ""))
    page.goto(f"{app_url}?lesson=nope&step=2")
    line = page.locator("#lesson-text .al-lesson-missing")
    line.wait_for()
    assert "nope" in line.inner_text()
    page.context.close()


def test_each_lesson_ends_on_a_screen_that_lists_its_steps_and_opens_any(browser, app_url, shelf):
    page = new_page(browser, app_url)
    for name in LESSONS:
        lesson = shelf.get(name, "en")
        go(page, app_url, name, len(lesson.steps))
        for _ in range(2):  # (a question first, then its view)
            if page.locator("#lesson[data-step='end']").count():
                break
            page.keyboard.press("PageDown")
            page.wait_for_timeout(400)
        at_step(page, name, "end")
        page.wait_for_function("() => location.search.includes('step=end')")
        titles = page.locator("#lesson-text .al-jump").all_inner_texts()
        assert [re.split(r"\s+", t.strip(), maxsplit=1)[1] for t in titles] == [s.title for s in lesson.steps]
        assert page.locator("#lesson-view .al-root").evaluate("r => r.childElementCount") == 0  # no view
        page.locator("#lesson-text .al-jump").nth(2).focus()
        page.keyboard.press("Enter")
        at_step(page, name, 3)
    page.keyboard.press("ArrowLeft")
    page.goto(f"{app_url}?lesson=v1-v2&step=end")  # the end screen's address opens it
    at_step(page, "v1-v2", "end")
    page.keyboard.press("ArrowLeft")
    at_step(page, "v1-v2", len(shelf.get("v1-v2", "en").steps))
    page.context.close()


def test_the_outline_key_lists_the_steps_and_enter_jumps_and_notes_only_by_key(browser, app_url, shelf):
    page = new_page(browser, app_url, "?lesson=chapter&step=2")
    assert not page.locator("#lesson-notes").is_visible()  # the presenter's notes: not on the class's screen
    page.keyboard.press("o")
    items = page.locator("#lesson-outline .al-jump")
    items.first.wait_for(state="visible")
    assert items.count() == len(shelf.get("chapter", "en").steps)
    assert page.evaluate("() => document.activeElement.dataset.k") == "1"  # the current step has the focus
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    at_step(page, "chapter", 4)
    assert not items.first.is_visible()
    page.keyboard.press("n")
    page.locator("#lesson-notes .al-notes").wait_for(state="visible")
    page.keyboard.press("n")
    page.locator("#lesson-notes").wait_for(state="hidden")
    page.context.close()


def walked(page, app_url: str, shelf, query: str = ""):
    """Every step of every built-in lesson, each question revealed and its view drawn: (lesson, step from 1, step);
    after each, the clicker's keys (in turn) move on."""
    for name in LESSONS:
        lesson = shelf.get(name, page.lang)
        page.goto(f"{app_url}?lesson={name}&step=1{query}")
        at_step(page, name, 1)
        for k, step in enumerate(lesson.steps, start=1):
            if page.locator("#lesson[data-phase=ask]").count():
                page.keyboard.press("ArrowRight")
                page.wait_for_selector("#lesson:not([data-phase])")
            if step.view != "real-chapter":
                drawn(page)
            yield name, k, step
            page.keyboard.press(NEXT_KEYS[k % len(NEXT_KEYS)])
            at_step(page, name, k + 1 if k < len(lesson.steps) else "end")


@pytest.mark.parametrize("size", [(1024, 768), (1280, 720)])
@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_presenting_gives_the_view_the_screen_on_every_step(browser, app_url, shelf, size, lang):
    """?present=1: no header, no tabs; every step walked with the keys fits the screen, its view's labels legible, and
    every step's drawn view (one head, maps side by side, a chart) takes at least 60 % of the screen's height."""
    page = new_page(browser, app_url, "?lesson=chapter&step=1&present=1", lang=lang, size=size)
    shares, others = {}, {}
    for name, k, step in walked(page, app_url, shelf, "&present=1"):
        seen = page.evaluate(SHARE)
        assert not seen["header"] and not seen["tabs"], (name, k)
        assert page.evaluate(FITS) == [], (name, k, step.title)
        assert page.evaluate(LEGIBLE) == [], (name, k, step.title)
        if seen["drawn"]:  # (a real-model step with no such model configured says how to configure one: no view)
            (shares if seen["heads"] == 1 and step.view in MATRICES else others)[(name, k, step.view)] = round(
                seen["share"], 2)
        assert parse_qs(urlsplit(page.url).query).get("present") == ["1"]
    print(f"\nview's share of the screen's height at {size} ({lang}): one head {min(shares.values())} to "
          f"{max(shares.values())} ({len(shares)} steps); heads side by side or a chart {min(others.values())} to "
          f"{max(others.values())} ({len(others)} steps)")
    low = {key: s for key, s in {**shares, **others}.items() if s < 0.6}
    assert not low, low
    page.context.close()


# 150 % zoom: the step's view first, near the screen's top, its maps and plots within the screen, every label legible
# and in the view's width; Back and Next in reach and over nothing the view draws.
ZOOMED = """() => {
  const r = document.querySelector('#lesson-view .al-root'), b = r.getBoundingClientRect();
  const keys = ['#lesson-back', '#lesson-next'].map((s) => document.querySelector(s).getBoundingClientRect());
  const under = [...r.querySelectorAll('canvas, svg, .al-label, .al-head-title, .al-axis-title, summary, .al-legend')]
    .filter((e) => e.offsetParent || e.tagName === 'svg').map((e) => [e, e.getBoundingClientRect()])
    .filter(([, a]) => keys.some((k) => a.right > k.left + 1 && a.left < k.right - 1 && a.bottom > k.top + 1
      && a.top < k.bottom - 1)).map(([e]) => e.className.baseVal ?? e.className);
  const cut = [...r.querySelectorAll('canvas, svg.al-chart')].filter((e) => e.getBoundingClientRect().bottom > innerHeight + 1);
  return { top: b.top / innerHeight, next: keys[1].top >= 0 && keys[1].bottom <= innerHeight, cut: cut.length,
           wide: r.scrollWidth - r.clientWidth, under: under.slice(0, 3) };
}"""


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_presenting_at_150_percent_zoom_shows_each_steps_view_above_the_fold(browser, app_url, shelf, lang):
    """1024×768 at 150 % zoom is a 683×512 window: the view comes before the step's text (the presenter's), so the
    class sees it without scrolling."""
    page = browser.new_context(locale=lang, viewport={"width": 683, "height": 512}, device_scale_factor=1.5).new_page()
    page.set_default_timeout(TIMEOUT)
    page.lang = "zh-CN" if lang.startswith("zh") else "en"
    tops = {}
    for name, k, step in walked(page, app_url, shelf, "&present=1"):
        if not page.evaluate(SHARE)["drawn"]:
            continue
        seen = page.evaluate(ZOOMED)
        assert seen["next"] and seen["wide"] <= 1 and not seen["under"] and not seen["cut"], (name, k, seen)
        assert page.evaluate(LEGIBLE) == [], (name, k, step.title)
        tops[(name, k)] = round(seen["top"], 2)
    print(f"\n683×512 at 1.5 ({lang}): the view's top at {min(tops.values())} to {max(tops.values())} of the screen")
    assert max(tops.values()) <= 0.25, tops
    page.context.close()


def test_the_p_key_turns_presenting_on_and_off_and_the_address_says_so(browser, app_url):
    page = new_page(browser, app_url, "?lesson=chapter&step=2")
    assert page.evaluate(SHARE)["tabs"]
    page.keyboard.press("p")
    page.wait_for_function("() => location.search.includes('present=1')")
    assert not page.evaluate(SHARE)["tabs"] and not page.evaluate(SHARE)["header"]
    page.locator("#lesson-present").click()
    page.wait_for_function("() => !location.search.includes('present')")
    assert page.evaluate(SHARE)["tabs"]
    page.context.close()


def pdf_pages(data: bytes) -> int:
    """Pages of a PDF: pypdf where installed, else its page objects counted."""
    try:
        from io import BytesIO

        from pypdf import PdfReader

        return len(PdfReader(BytesIO(data)).pages)
    except ImportError:
        return len(re.findall(rb"/Type\s*/Page(?![s\w])", data))


@pytest.mark.parametrize("name", LESSONS)
def test_the_handout_prints_one_page_per_step(browser, app_url, shelf, name):
    page = new_page(browser, app_url, f"?lesson={name}&print=1", size=(1024, 768))
    steps = shelf.get(name, "en").steps
    page.wait_for_function("n => document.querySelectorAll('#lesson-handout .al-handout-step').length === n",
                           arg=len(steps))
    heads = page.locator("#lesson-handout .al-handout-step h2").all_inner_texts()
    assert heads == [s.title for s in steps]
    assert not page.locator("#lesson-bar").is_visible() and not page.locator("#app-header").is_visible()
    pages = pdf_pages(page.pdf(format="A4", print_background=True))
    print(f"\n{name}: {len(steps)} steps, {pages} PDF pages")
    assert pages == len(steps)
    page.context.close()


# A phone: the step's text, its view and Next within one screen's height, the view's labels 12 px and up. Back and
# Next are fixed over the screen's foot, so a view that reached under them would be hidden there: the step's span is
# measured to the top of that bar (room), not to the screen's foot; text_px: the step's text, never under 15 px.
PHONE = """() => {
  const text = document.querySelector('#lesson-text').getBoundingClientRect();
  const root = document.querySelector('#lesson-view .al-root'), view = root.getBoundingClientRect();
  const next = document.querySelector('#lesson-next').getBoundingClientRect();
  const px = [...root.querySelectorAll('.al-label')].filter((e) => e.offsetParent)
    .map((e) => parseFloat(getComputedStyle(e).fontSize));
  const body = [...document.querySelectorAll('#lesson-text p, #lesson-text li, #lesson-check p')]
    .map((e) => parseFloat(getComputedStyle(e).fontSize));
  return { span: (root.childElementCount ? view.bottom : text.bottom) - text.top, room: next.top, top: text.top,
           next: next.bottom <= innerHeight && next.top >= 0,
           wide: root.scrollWidth - root.clientWidth, px: px.length ? Math.min(...px) : null,
           text_px: body.length ? Math.min(...body) : null, thin: root.querySelectorAll('.al-label.al-thin').length };
}"""
# The step settled: its view redrawn into the room its text leaves, the text a size smaller if asked (a few frames;
# on a busy machine a late part of the step, its check, may come a moment after the view: 300 ms unchanged).
SETTLED = """() => new Promise((done) => {
  let last = "", same = 0, since = performance.now();
  const tick = () => {
    const r = document.querySelector('#lesson-view .al-root'), t = document.querySelector('#lesson-words');
    const now = [r ? r.getBoundingClientRect().bottom : 0, t.getBoundingClientRect().height].join();
    if (now === last) same += 1; else { same = 0; since = performance.now(); }
    last = now;
    if (same >= 6 && performance.now() - since >= 300) done(); else requestAnimationFrame(tick);
  };
  tick();
})"""


@pytest.mark.parametrize("size", [(390, 844), (768, 1024)])
@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_on_a_phone_or_tablet_every_step_is_followed_with_next_in_reach(browser, app_url, shelf, size, lang):
    page = new_page(browser, app_url, "?lesson=chapter&step=1", lang=lang, size=size)
    tabs = page.locator("[role=tablist]").first.bounding_box()
    assert tabs["height"] <= (40 if size[0] < 600 else 72), tabs  # the lab's tabs: one row (a phone: it scrolls), not six
    spans, smallest, texts, thinned = {}, [], [], 0
    for name, k, _step in walked(page, app_url, shelf):
        page.locator("#lesson-text").evaluate("e => e.scrollIntoView()")
        page.evaluate(SETTLED)
        seen = page.evaluate(PHONE)
        assert seen["next"] and seen["wide"] <= 1 and seen["top"] >= -1, (name, k, seen)
        thinned += seen["thin"] > 0
        if seen["px"] is not None:
            smallest.append(seen["px"])
        texts.append(seen["text_px"] or 99)
        # 1: the view ends at the top of Back and Next (the text at the screen's top, or lower: the page ends)
        spans[(name, k)] = round(seen["span"] / (seen["room"] - seen["top"]), 2)
    over = {f"{n}:{k}": v for (n, k), v in spans.items() if v > 1}
    print(f"\n{size} {lang}: labels >= {min(smallest)} px, text >= {min(texts)} px; text+view above Next on "
          f"{len(spans) - len(over)} of {len(spans)} steps; tallest {max(spans.values())} of the room; "
          f"{thinned} steps with labels thinned out; over: {over}")
    assert min(smallest) >= 12 and min(texts) >= 15
    assert not over, over
    page.context.close()
