"""The views' own access, drawn alone in Chromium (no app): each number in a cell stands out 4.5:1 from its cell,
eight heads keep their own lanes and their scheme's colours in the head view, and a notebook's views name each head
and hold its numbers as a table."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from core import notebook
from core.render import colors, matrix, scales, web
from core.render.colors import contrast

pytestmark = pytest.mark.browser



def blank(browser, scale=1, dark=False):
    """A page holding only the views' files and the server's config, at a device scale, in a light or dark page."""
    context = browser.new_context(device_scale_factor=scale, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    css = "".join((web.ASSETS / n).read_text(encoding="utf-8") for n in web.STYLES)
    code = "".join(f"<script>{(web.ASSETS / n).read_text(encoding='utf-8')}</script>" for n in web.SCRIPTS)
    page.set_content(f"<html><head>{web.config_script()}<style>{css}</style>{code}</head>"
                     f'<body class="{"dark" if dark else ""}"><div id="root" class="al-root" style="width: 1000px">'
                     "</div></body></html>")
    return context, page, errors


def test_every_number_in_a_cell_is_drawn_4_5_to_1_on_its_colour(browser):
    context, page, errors = blank(browser, scale=2)
    T = 12
    weights = np.linspace(0, 1, T * T).reshape(T, T)  # every part of the weights' scale
    signed = np.linspace(-1, 1, T * T).reshape(T, T)  # and of the signed one
    for values, scale in ((weights, scales.weight_scale()), (signed, scales.signed_scale(signed))):
        data = matrix.heatmaps([f"t{i}" for i in range(T)], [values], ["h"], scale=scale)
        page.evaluate("data => AttnLab.draw(document.getElementById('root'), data, {state: {}})", data)
        worst = page.evaluate("""(T) => {
          const c = document.querySelector('#root canvas'), g = c.getContext('2d'), cell = c.width / T;
          const lin = (x) => { x /= 255; return x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); };
          const lum = (p) => 0.2126 * lin(p[0]) + 0.7152 * lin(p[1]) + 0.0722 * lin(p[2]);
          const ratio = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
          let worst = 21;
          for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
            const d = g.getImageData(Math.round(j * cell), Math.round(i * cell), Math.round(cell), Math.round(cell)).data;
            const bg = [d[0], d[1], d[2]];  // a corner: the cell's own colour
            let ink = 1;  // the glyphs' most distinct pixel: the ink itself (device scale 2: whole pixels of it)
            for (let k = 0; k < d.length; k += 4) ink = Math.max(ink, ratio([d[k], d[k + 1], d[k + 2]], bg));
            worst = Math.min(worst, ink);
          }
          return Math.round(worst * 100) / 100;
        }""", T)
        assert page.evaluate("document.querySelector('#root canvas').dataset.valuePx") is not None  # numbers drawn
        assert worst >= 4.5, f"a number drawn at {worst}:1 on its cell"
    assert errors == []
    context.close()


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_eight_heads_keep_their_own_lanes_and_colours_in_the_head_view(browser, dark):
    context, page, errors = blank(browser, dark=dark)
    T, H = 6, 8
    w = np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]
    data = matrix.attention([f"t{i}" for i in range(T)], np.stack([w] * H), np.tril(np.ones((T, T), dtype=bool)))
    page.evaluate("data => AttnLab.draw(document.getElementById('root'), data, {state: {}})", data)
    lines = page.evaluate("""() => [...document.querySelectorAll('#root .al-hv-line')].map((l) => ({
      head: Number(l.dataset.lineHead), y1: Number(l.getAttribute('y1')), y2: Number(l.getAttribute('y2')),
      width: Number(l.getAttribute('stroke-width')), colour: l.getAttribute('stroke')}))""")
    starts = {}  # where each head's lines leave the query token: one height per head
    for line in lines:
        starts.setdefault(line["head"], set()).add(line["y1"])
    assert all(len(ys) == 1 for ys in starts.values())
    ys = sorted(y for ys in starts.values() for y in ys)
    assert len(ys) == H  # every head leaves the query token at its own height ...
    gaps = [b - a for a, b in zip(ys, ys[1:], strict=False)]
    assert min(gaps) >= max(line["width"] for line in lines) - 1e-6  # ... a lane no line is wider than
    assert min(gaps) >= 4.5
    palette = colors.HEADS_DARK if dark else colors.HEADS_LIGHT
    assert sorted({line["colour"] for line in lines}) == sorted(palette)  # the scheme's own colours (3:1 on its page)
    chips = page.evaluate("""() => [...document.querySelectorAll('#root .al-chip')].map((c) => [
      getComputedStyle(c).backgroundColor, getComputedStyle(c).color])""")
    def hex_of(css):
        return "#{:02x}{:02x}{:02x}".format(*tuple(int(v) for v in re.findall(r"[\d.]+", css)[:3]))

    assert all(contrast(hex_of(bg), hex_of(fg)) >= 4.5 for bg, fg in chips)  # a head's name on its colour
    assert page.locator("#root svg.al-hv-svg").get_attribute("aria-label")  # the head view has a name
    assert errors == []
    context.close()


def test_a_notebooks_views_name_each_head_and_hold_its_numbers(browser):
    w = torch.tril(torch.ones(2, 3, 3)) / torch.arange(1, 4)[None, :, None]  # (H, T, T)
    page = browser.new_page()
    page.set_content(notebook.head_view(w, ["它", "违约金", "风险"]).html())
    page.wait_for_selector(".al-root[data-stamp]")
    names = page.evaluate("() => [...document.querySelectorAll('.al-cells')].map((c) => c.getAttribute('aria-label'))")
    assert names == ["head 0: weight (each row sums to 1), 3 rows by 3 columns",
                     "head 1: weight (each row sums to 1), 3 rows by 3 columns"]
    page.locator(".al-numbers summary").first.click()
    page.wait_for_selector(".al-numbers table")  # (built when first opened: a busy machine builds it a moment later)
    cells = page.evaluate("() => [...document.querySelector('.al-numbers table').rows].map((r) => [...r.cells].map((c) => c.textContent))")
    assert cells[0][1:] == ["0 它", "1 违约金", "2 风险"] and cells[2][1:] == ["0.50", "0.50", "blocked"]
    page.close()
