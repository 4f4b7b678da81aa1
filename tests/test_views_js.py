"""The browser views' drawing code, run in Chromium without the app: each file says what it needs, draws the
server's dicts, and reads the CJK ranges and the palette the server sends."""

from __future__ import annotations

import numpy as np
import pytest

from core.render import charts, matrix, web
from core.text import scripts

pytestmark = pytest.mark.browser


def page_with(browser, files=web.SCRIPTS):
    """A blank page holding the server's config and these view files (inline, in this order); its errors kept."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    css = "".join((web.ASSETS / n).read_text(encoding="utf-8") for n in web.STYLES)
    code = "".join(f"<script>{(web.ASSETS / n).read_text(encoding='utf-8')}</script>" for n in files)
    page.set_content(f"<html><head>{web.config_script()}<style>{css}</style>{code}</head>"
                     f'<body><div id="root" class="al-root" style="width: 1000px"></div></body></html>')
    return page, errors


def draw(page, data: dict) -> None:
    page.evaluate("data => AttnLab.draw(document.getElementById('root'), data, {state: {}})", data)


def test_every_view_file_loads_after_core_and_names_what_it_misses_before_it(browser):
    page, errors = page_with(browser)
    assert errors == [] and page.evaluate("Object.keys(AttnLab.views).sort()") == [
        "chart", "handout", "headview", "heatmaps", "modelview"]
    page.close()
    for name in web.SCRIPTS[1:]:
        alone, errors = page_with(browser, (name,))
        assert errors and f"{name} needs core.js" in errors[0]  # not "cannot read properties of undefined"
        alone.close()


def test_heatmaps_draw_one_titled_head_each_with_escaped_tokens(browser):
    page, errors = page_with(browser)
    tokens = ["它", "<img src=x onerror=alert(1)>", "cat"]
    w = np.tril(np.ones((3, 3))) / np.arange(1, 4)[:, None]
    draw(page, matrix.heatmaps(tokens, [w, w.T], ["head 0", "head 1"]))
    heads = page.locator("#root .al-head")
    assert heads.count() == 2 and [heads.nth(i).get_attribute("data-head") for i in range(2)] == ["0", "1"]
    assert page.locator("#root .al-head-title").all_text_contents() == ["head 0", "head 1"]
    text = page.locator("#root").inner_text()
    assert "<img src=x" in text and page.locator("#root img").count() == 0  # a token is text, never HTML
    assert page.locator("#root .al-cjk").count() >= 1  # 它 stands upright
    assert errors == []
    page.close()


def test_the_browser_reads_the_servers_cjk_ranges_and_palette(browser):
    page, _ = page_with(browser)
    sample = ["它", "违", "か", "カ", "한", "，", "𠀀", "Ａ", "A", "é", "1", " "]
    upright = page.evaluate("chars => chars.map(c => AttnLab.CJK.test(c))", sample)
    assert upright == [scripts.contains(scripts.UPRIGHT, c) for c in sample]
    assert upright[:8] == [True] * 8 and upright[8:] == [False] * 4
    assert page.evaluate("AttnLab.palette") == list(web.config()["palette"])
    page.close()


def test_a_chart_without_its_own_colours_uses_the_servers_palette(browser):
    page, errors = page_with(browser)
    line = charts.series("loss", [0, 1, 2], [3.0, 2.0, 1.5])
    data = charts.chart([charts.panel("loss", charts.axis("step"), charts.axis("bits"), [line])])
    data.pop("colors")
    draw(page, data)
    strokes = page.evaluate("[...document.querySelectorAll('#root path, #root polyline')].map(e => "
                            "e.getAttribute('stroke')).filter(Boolean)")
    assert web.config()["palette"][0] in strokes and errors == []
    page.close()
