"""What the browser tests share: a page on the app, the view's stamp, and the steps a student takes."""

from __future__ import annotations

TIMEOUT = 60_000  # ms; the shared 2-core machine can be slow, the checks are not about speed
VIEW = "#attention-heatmaps .al-root"
LESSONS = ("chapter", "v1-v2", "by-hand")  # the built-in lessons
TABS = ["Attention", "Step through", "Causality", "Weight transfer", "Masking & scaling", "Mistakes & interventions",
        "Plugins", "Cost", "Model", "Generate", "Real model", "Experiments"]  # every lab tab, in order


def open_page(browser, app_url, width=1400, height=1000, tab="Attention"):
    """A page on the app, on `tab` (opened by name: the landing page is the Lesson tab), its view drawn."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.dialogs, page.hosts = [], set()
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("request", lambda r: page.hosts.add(r.url.split("/")[2] if "://" in r.url else r.url[:5]))
    page.set_default_timeout(TIMEOUT)
    page.goto(app_url)
    if tab is None:
        return page
    open_tab(page, tab)
    if tab == "Attention":
        page.wait_for_selector(f"{VIEW}[data-stamp]:not([data-stamp=''])")
    return page


def stamp(page, view=VIEW) -> str:
    return page.locator(view).first.get_attribute("data-stamp")


def redrawn(page, old: str, view=VIEW) -> str:
    """Wait until the view has drawn something else than `old`."""
    page.wait_for_function("([sel, old]) => { const v = document.querySelector(sel); "
                           "return v && v.dataset.stamp && v.dataset.stamp !== old; }", arg=[view, old])
    return stamp(page, view)


def type_sentence(page, text: str) -> None:
    old = stamp(page)
    page.locator("#sentence textarea").fill(text)
    redrawn(page, old)


def textbox(page, elem_id: str) -> str:
    return page.locator(f"#{elem_id} textarea").input_value()


def cell_centre(page, head: int, i: int, j: int, view="#attention-heatmaps") -> tuple[float, float]:
    """Where cell (query i, key j) of a head is on screen: the canvas is T x T square cells."""
    canvas = page.locator(f"{view} [data-head='{head}'] canvas")
    box = canvas.bounding_box()
    T = page.locator(f"{view} [data-head='{head}'] .al-x .al-label").count()
    cell = box["width"] / T
    return box["x"] + (j + 0.5) * cell, box["y"] + (i + 0.5) * cell


def problem(page, words: str, box: str = "attention-problem") -> str:
    """The sentence an unqueued event pins when it cannot draw a setting (a toast-like box, plain text); `words`
    is a piece of it, or a list of pieces of which one must be there."""
    pieces = [words] if isinstance(words, str) else list(words)
    page.wait_for_function("([box, pieces]) => { const t = document.querySelector('#' + box + ' textarea'); "
                           "return t && t.offsetParent && pieces.some((w) => t.value.includes(w)); }", arg=[box, pieces])
    return page.locator(f"#{box} textarea").input_value()


def open_tab(page, name: str) -> None:
    """Click a tab by its title (every tab is in sight: the bar wraps rather than hide one in a menu)."""
    page.get_by_role("tab", name=name, exact=True).click()


# Every view of the open tab drawn (its stamp written), or empty.
DRAWN = """() => {
  const tab = [...document.querySelectorAll('.tabitem')].find((e) => getComputedStyle(e).display !== 'none');
  if (!tab) return true;
  const roots = [...tab.querySelectorAll('.al-root')].filter((r) => r.offsetParent !== null);
  return roots.every((r) => r.dataset.stamp || !r.parentElement.textContent.trim() && !r.childElementCount);
}"""


def settle(page) -> None:
    """The open tab's views drawn and its events done (a short wait: a tab without views settles at once)."""
    page.wait_for_function("() => !document.querySelector('.progress-text, .eta-bar')", timeout=TIMEOUT)
    try:
        page.wait_for_function(DRAWN, timeout=20_000)
    except Exception:  # noqa: BLE001 - a view that never draws is what the checks then see
        pass
    page.wait_for_timeout(400)


def tab_name(tab: str, lang: str) -> str:
    from core.i18n import lookup

    return lookup(tab, "zh-CN") if lang == "zh" else tab


def reveal(page) -> None:
    """A step that opens on its question for the class (`ask:`): the next press shows its view and check."""
    page.wait_for_selector("#lesson[data-step]:not([data-step=''])", state="attached")
    if page.locator("#lesson[data-phase=ask]").count():
        page.locator("body").press("ArrowRight")
        page.wait_for_selector("#lesson:not([data-phase])", state="attached")


def show_lesson(page, app_url: str, lesson: str) -> None:
    """A lesson's first step, opened by its link, its view drawn."""
    page.goto(f"{app_url}?lesson={lesson}&step=1")
    reveal(page)
    page.wait_for_selector("#lesson-view .al-root[data-stamp]:not([data-stamp=''])")
    settle(page)


def show_tab(page, app_url: str, tab: str, lang: str = "en") -> None:
    """A lab tab, clicked by its title in the page's language (the app opened first if the page is elsewhere)."""
    if "?" in page.url or not page.url.startswith(app_url):
        page.goto(app_url)
        page.wait_for_selector("[role=tab]")
    page.get_by_role("tab", name=tab_name(tab, lang), exact=True).click()
    settle(page)


SIZE = {"width": 1280, "height": 800}  # the page new_page opens


def new_page(browser, url, **context):
    page = browser.new_context(viewport=SIZE, **context).new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(url)
    return page


def drawn(page) -> None:
    page.wait_for_selector(f"{VIEW}[data-stamp]:not([data-stamp=''])")


def trained_shown(page) -> list[str]:
    """The trained panel drawn and shown (the Weights switch on the trained model): its opened head's rows."""
    page.wait_for_selector("#trained-heatmaps .al-root[data-stamp]:not([data-stamp=''])")
    page.wait_for_function("() => { const t = document.querySelector('#trained-heatmaps'); return t && t.offsetParent; }")
    assert page.locator("#weights input[value='trained tiny model']").is_checked()
    return page.locator("#trained-heatmaps .al-opened-map .al-y .al-label").all_inner_texts()
