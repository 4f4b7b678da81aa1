"""Every student, measured in Chromium: axe-core's WCAG 2.1 A and AA rules find nothing on any tab (English and Chinese,
light and dark); a keyboard alone walks a lesson and the Attention tab, hearing each cell and reading each head's
numbers (the /attention JSON's own), and every control on the way shows its focus; what changes is announced.
docs/accessibility.md says what this covers and what it does not (the phone: test_browser_reflow.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.pages import LESSONS, TABS, TIMEOUT, VIEW, open_tab, redrawn, reveal, show_lesson, show_tab, stamp

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[1]
AXE = Path(os.environ.get("ATTENTION_LAB_AXE", ROOT / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js"))
RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SENTENCE = "The cat sat on the mat because it was tired"


def axe_script() -> Path:
    if not AXE.is_file():
        pytest.fail(f"axe-core is not installed at {AXE}: `make test` installs it from the npm registry "
                    "(npm install --prefix .venv/axe axe-core@4), or set ATTENTION_LAB_AXE to its axe.min.js.")
    return AXE


def violations(page) -> list[str]:
    """axe-core's WCAG 2.1 A and AA violations on the page as it is, each view's first table of numbers opened."""
    page.evaluate("() => document.querySelectorAll('.al-root').forEach((r) => {"
                  " const d = r.querySelector('details.al-numbers'); if (d && d.offsetParent) d.open = true; })")
    page.wait_for_timeout(200)
    if not page.evaluate("() => !!window.axe"):
        page.add_script_tag(path=str(axe_script()))
    found = page.evaluate("""async (tags) => {
      const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
      return r.violations.map((v) => `${v.id} (${v.nodes.length}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
    }""", RULES)
    return found


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_axe_finds_no_wcag_2_1_aa_violation_on_any_tab(browser, app_url, lang, scheme):
    axe_script()
    context = browser.new_context(locale="zh-CN" if lang == "zh" else "en-US", color_scheme=scheme,
                                  viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    found = {}
    try:
        for lesson in LESSONS:
            show_lesson(page, app_url, lesson)
            assert page.evaluate("document.body.classList.contains('dark')") == (scheme == "dark")
            found[f"Lesson {lesson}"] = violations(page)
        for tab in TABS:
            show_tab(page, app_url, tab, lang)
            found[tab] = violations(page)
    finally:
        context.close()
    assert {k: v for k, v in found.items() if v} == {}


# ---- the keyboard ---------------------------------------------------------------------------------------------------

# The focused element's ring: an outline, or a box-shadow ring (Gradio's text fields), and its contrast against what
# is behind it (the first ancestor with a background). WCAG 2.1's 1.4.11: 3:1.
RING = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).slice(0, 4).map(Number);
  const lin = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  const lum = (c) => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  let bg = [255, 255, 255];
  for (let p = e.parentElement; p; p = p.parentElement) {
    const c = rgb(getComputedStyle(p).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) { bg = c.slice(0, 3); break; }
  }
  const cs = getComputedStyle(e);
  const name = e.tagName + (e.id ? '#' + e.id : '') + '.' + [...e.classList].slice(0, 2).join('.') + ' ' +
    (e.getAttribute('aria-label') || e.textContent || e.value || '').trim().slice(0, 30);
  const rings = [];
  if (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2) rings.push(rgb(cs.outlineColor).slice(0, 3));
  const shadow = cs.boxShadow.match(/rgba?\\([^)]*\\)\\s+0px\\s+0px\\s+0px\\s+([\\d.]+)px/);
  if (shadow && parseFloat(shadow[1]) >= 2) rings.push(rgb(shadow[0]).slice(0, 3));
  const best = Math.max(0, ...rings.map((c) => ratio(c, bg)));
  return {name, ratio: Math.round(best * 100) / 100};
}"""


def walk(page, until: str, most: int = 80) -> list[dict]:
    """Tab from where the focus is until an element matching `until` has it; each stop's ring on the way."""
    stops = []
    for _ in range(most):
        page.keyboard.press("Tab")
        page.wait_for_timeout(250)  # (a button's colours, its ring's among them, ease in over 0.2 s)
        ring = page.evaluate(RING)
        if ring:
            stops.append(ring)
        if page.evaluate("(sel) => !!document.activeElement && document.activeElement.matches(sel)", until):
            return stops
    raise AssertionError(f"{until} was not reached in {most} presses of Tab: {[s['name'] for s in stops][-12:]}")


def faint(stops: list[dict]) -> list[dict]:
    return [s for s in stops if s["ratio"] < 3]


def live(page, view: str) -> str:
    """What the view's live region says now (after its short pause)."""
    page.wait_for_timeout(120)
    return page.locator(f"{view} .al-root > .al-live").first.text_content()


def table_of(page, view: str, head: int) -> list[list[str]]:
    page.wait_for_selector(f'{view} .al-head[data-head="{head}"] table')  # (built when its <details> opens)
    return page.evaluate("""([view, head]) => {
      const t = document.querySelector(`${view} .al-head[data-head="${head}"] table`);
      return [...t.rows].map((r) => [...r.cells].map((c) => c.textContent));
    }""", [view, head])


@pytest.fixture
def keyboard_page(browser, app_url):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    yield page
    context.close()


def test_a_keyboard_alone_walks_the_attention_tab_and_hears_the_jsons_numbers(keyboard_page, app_url, client):
    page = keyboard_page
    page.goto(app_url)
    open_tab(page, "Attention")
    page.wait_for_selector(f"{VIEW}[data-stamp]:not([data-stamp=''])")
    answer = client.predict(SENTENCE, api_name="/attention")[-1]  # the public API's own numbers
    tokens, weights = answer["tokens"], answer["weights"]  # [H][T][T]
    page.locator("#weights input").first.focus()
    stops = walk(page, "#attention-heatmaps .al-cells")  # Tab reaches the first head...
    assert not faint(stops), faint(stops)  # ... and every control on the way shows a ring of 3:1 or more
    assert len(stops) >= 8  # (the weights, the sentence, the variant, the switches, the heads, d_model, seed, ...)
    head0 = page.locator("#attention-heatmaps .al-cells").first
    assert head0.get_attribute("aria-label") == f"head 0: weight (each row sums to 1), {len(tokens)} rows by {len(tokens)} columns"
    for key in ("ArrowDown", "ArrowDown", "ArrowRight"):
        page.keyboard.press(key)
    said = live(page, "#attention-heatmaps")
    assert said == f"{tokens[2]} → {tokens[1]}: {weights[0][2][1]:.2f}"  # the cell, said as the API has it
    lit = page.evaluate("""() => ({
      rows: [...document.querySelectorAll('#attention-heatmaps .al-hl-row:not([hidden])')].map((b) => b.dataset.index),
      cols: [...document.querySelectorAll('#attention-heatmaps .al-hl-col:not([hidden])')].map((b) => b.dataset.index),
      y: [...document.querySelectorAll('#attention-heatmaps .al-y .al-label.al-on')].map((l) => l.dataset.index),
      x: [...document.querySelectorAll('#attention-heatmaps .al-x .al-label.al-on')].map((l) => l.dataset.index)})""")
    heads = len(weights)
    assert lit == {"rows": ["2"] * heads, "cols": ["1"] * heads, "y": ["2"] * heads, "x": ["1"] * heads}  # every head
    tip = page.locator("#attention-heatmaps .al-root > .al-tip")
    assert tip.is_visible() and tip.inner_text() == said  # shown to a sighted keyboard user too
    page.keyboard.press("Escape")
    assert tip.is_hidden()  # Esc closes it
    page.keyboard.press("Enter")  # picks the row's token
    assert live(page, "#attention-heatmaps") == f"{tokens[2]} picked: its row and column are lit in every head"
    assert page.locator("#attention-heatmaps .al-head").first.evaluate("(h) => h.querySelector('.al-hl-row').dataset.index") == "2"
    page.keyboard.press("ArrowRight")  # the cursor moves on: (2, 2)
    assert live(page, "#attention-heatmaps") == f"{tokens[2]} → {tokens[2]}: {weights[0][2][2]:.2f}"
    page.keyboard.press("ArrowRight")  # (2, 3): above the diagonal, blocked by the mask
    assert live(page, "#attention-heatmaps") == f"{tokens[2]} → {tokens[3]}: blocked by the mask"
    for h in range(heads):  # each head's "Numbers", opened by keyboard: a table of the API's numbers
        stops = walk(page, f"#attention-heatmaps .al-head[data-head='{h}'] summary")
        assert not faint(stops), faint(stops)
        page.keyboard.press("Enter")
        rows = table_of(page, "#attention-heatmaps", h)
        assert rows[0][1:] == [f"{j} {t}" for j, t in enumerate(tokens)]  # columns named by their tokens
        assert [r[0] for r in rows[1:]] == [f"{i} {t}" for i, t in enumerate(tokens)]  # rows too
        for i, row in enumerate(rows[1:]):
            for j, cell in enumerate(row[1:]):
                if j > i:
                    assert cell == "blocked" and weights[h][i][j] == 0
                else:
                    assert float(cell) == pytest.approx(weights[h][i][j], abs=0.005)
    caption = page.locator("#attention-heatmaps .al-head[data-head='0'] caption").inner_text()
    assert caption == "head 0: weight (each row sums to 1). Rows: query (attending); columns: key (attended to)."


def test_the_check_line_is_a_live_region_and_a_refused_setting_is_announced(keyboard_page, app_url):
    page = keyboard_page
    page.goto(app_url)
    open_tab(page, "Attention")
    page.wait_for_selector(f"{VIEW}[data-stamp]:not([data-stamp=''])")
    check = page.locator("#attention-heatmaps .al-check")
    assert check.get_attribute("aria-live") == "polite" and check.get_attribute("role") == "status"
    handle = check.element_handle()
    old = stamp(page)
    page.locator("#causal input[type=checkbox]").focus()
    page.keyboard.press("Space")  # the mask off, by keyboard
    redrawn(page, old)
    page.wait_for_function("() => document.querySelector('#attention-heatmaps .al-check-text').textContent.includes('leaks')")
    assert handle.evaluate("(e) => e.isConnected")  # the same region, its words changed: a screen reader says them
    page.locator("#n_heads input[type=range]").focus()
    page.keyboard.press("ArrowRight")  # 2 -> 3 heads: 3 does not divide d_model=16
    page.wait_for_function("() => (document.querySelector('#al-alert') || {}).textContent?.includes('does not divide')")
    alert = page.locator("#al-alert")
    assert alert.get_attribute("role") == "alert"
    assert alert.text_content().startswith("n_heads=3 does not divide d_model=16")


def test_a_keyboard_alone_walks_a_lesson_and_hears_each_step(keyboard_page, app_url):
    page = keyboard_page
    page.goto(f"{app_url}?lesson=chapter&step=1")
    reveal(page)  # (its question first)
    page.wait_for_selector("#lesson-view .al-root[data-stamp]:not([data-stamp=''])")
    page.wait_for_selector("#lesson-where[aria-live=polite]")  # the step line is a live region
    where = page.locator("#lesson-where")
    handle = where.element_handle()
    stops = walk(page, "#lesson-next")
    assert not faint(stops), faint(stops)
    page.keyboard.press("Enter")
    page.wait_for_selector("#lesson[data-step='2']")
    assert handle.evaluate("(e) => e.isConnected")  # one region, its words changed: the new step is said
    said = " ".join(where.text_content().split())
    title = page.locator("#lesson-text h2").inner_text()
    assert re.fullmatch(r"step 2 of \d+ " + re.escape(title), said)  # ... with the step's title
    assert page.locator("#lesson-check").get_attribute("aria-live") == "polite"  # the step's check too
    stops = walk(page, "#lesson-view .al-cells")  # Tab reaches the step's view
    assert not faint(stops), faint(stops)
    rows = page.evaluate("() => [...document.querySelector('#lesson-view .al-ycol').querySelectorAll('.al-label')]"
                         ".map((l) => l.title)")
    page.keyboard.press("ArrowRight")  # within the head: a cell, not the next step
    said = re.fullmatch(r"(.+) → (.+): (-?\d+\.\d+|blocked by the mask|NaN)", live(page, "#lesson-view"))
    assert said and said[1] in rows and page.locator("#lesson[data-step='2']").count() == 1
    stops = walk(page, "#lesson-view summary")  # its numbers, by keyboard
    page.keyboard.press("Enter")
    head = page.locator("#lesson-view .al-head").first.get_attribute("data-head")
    table = table_of(page, "#lesson-view", int(head))
    assert [r[0] for r in table[1:]] == [f"{i} {t}" for i, t in enumerate(rows)]
    assert all(re.fullmatch(r"-?\d+\.\d+|blocked|NaN", c) for r in table[1:] for c in r[1:])
    page.keyboard.press("Escape")
    page.locator("#lesson-next").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#lesson[data-step='3']")
    assert re.match(r"step 3 of \d+", where.text_content().strip())


def test_an_error_toast_is_said_in_the_alert_region(keyboard_page, app_url):
    page = keyboard_page
    page.goto(f"{app_url}?sentence=a%20b%20c&heads=abc")  # a lab link with a value no control takes: a toast
    page.get_by_test_id("toast-body").filter(has_text="heads='abc' must be a whole number").wait_for()
    page.wait_for_function("() => (document.querySelector('#al-alert') || {}).textContent?.includes("
                           "\"heads='abc' must be a whole number\")")
    assert page.locator("#al-alert").get_attribute("role") == "alert"
