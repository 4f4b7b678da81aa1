"""Contrast that passes WCAG 2.1 AA, measured: the numbers in the cells on every colour scale, the head colours on the
page in the light and the dark scheme, the theme's text, buttons and focus rings; and every view carrying the words
of its tables and keyboard (in each language the page speaks)."""

from __future__ import annotations

import numpy as np
import pytest

from core import i18n
from core.render import access, chapter, charts, colors, matrix
from core.render.colors import contrast, ink


@pytest.mark.kernel_free  # (the WCAG formula on colours: no torch kernel computes it)
def test_contrast_is_wcags_ratio():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#ffffff", "#ffffff") == pytest.approx(1.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # the lightest grey that passes on white
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#0072B2", "#ffffff") == contrast("#ffffff", "#0072B2")


def interpolated(stops, n=1024):
    """Every colour the page paints from these stops (web/core.js A.colormap: 1024 steps, linear between stops)."""
    rgb = np.array([[int(h[i:i + 2], 16) for i in (1, 3, 5)] for h in stops], dtype=float)
    x = np.arange(n) / (n - 1) * (len(stops) - 1)
    i = np.minimum(np.floor(x).astype(int), len(stops) - 2)
    f = (x - i)[:, None]
    out = np.round(rgb[i] + (rgb[i + 1] - rgb[i]) * f).astype(int)
    return ["#{:02x}{:02x}{:02x}".format(*tuple(c)) for c in out]


@pytest.mark.parametrize("name", sorted(colors.MAPS))
def test_every_number_drawn_in_a_cell_is_4_5_to_1_on_every_scale(name):
    cells = interpolated(colors.MAPS[name])
    worst = min(contrast(ink(c), c) for c in cells)
    assert worst >= 4.5, f"{name}: a number in a cell falls to {worst:.2f}:1"
    # the old rule (black above a luma of 140) left 23 % of viridis under 4.5:1: the choice is contrast's own
    assert all(contrast(ink(c), c) >= contrast(other, c) for c in cells for other in colors.INKS)


def test_the_other_cell_colours_take_a_number_at_4_5_to_1_too():
    for cell in (chapter.NAN_COLOR, colors.MAY_ATTEND):  # "NaN" written on orange; the mask view's colour
        assert contrast(ink(cell), cell) >= 4.5


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_head_colour_is_3_to_1_against_the_page(scheme):
    palette = colors.HEADS_LIGHT if scheme == "light" else colors.HEADS_DARK
    assert len(palette) == 8 and len(set(palette)) == 8  # eight heads, eight colours
    for background in colors.BACKGROUNDS[scheme]:
        low = {c: round(contrast(c, background), 2) for c in palette if contrast(c, background) < 3}
        assert not low, f"{scheme} on {background}: {low}"


def test_the_okabe_ito_colours_that_failed_are_the_ones_moved():
    on_white = [c for c in colors.OKABE_ITO if contrast(c, "#ffffff") < 3]
    assert on_white == ["#E69F00", "#56B4E9", "#F0E442"]  # orange, sky blue and yellow (1.3-2.3:1)
    assert colors.CATEGORICAL == colors.HEADS_LIGHT  # the server sends the light ones; a dark page swaps them


def resolved(theme, name: str) -> str:
    """A theme variable's colour, its *references followed ("*primary_700" -> "#c2410c")."""
    value = getattr(theme, name)
    while isinstance(value, str) and value.startswith("*"):
        value = getattr(theme, value[1:])
    return {"white": "#ffffff", "black": "#000000"}.get(value, value)


def dark(theme, name: str) -> str:
    return resolved(theme, name + "_dark") if getattr(theme, name + "_dark", None) else resolved(theme, name)


@pytest.fixture(scope="module")
def theme():
    from core.ui import access as page_access

    return page_access.theme()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_themes_text_and_buttons_pass_aa(theme, scheme):
    get = (lambda n: resolved(theme, n)) if scheme == "light" else (lambda n: dark(theme, n))
    page = get("background_fill_primary")
    # white on the primary buttons ("Next →", "Generate one word": 2.8:1 on orange before)
    assert contrast(get("button_primary_text_color"), get("button_primary_background_fill")) >= 4.5
    assert contrast(get("button_primary_text_color"), get("button_primary_background_fill_hover")) >= 4.5
    # help under a control, a slider's min and max, the footer (1.9:1 before)
    assert contrast(get("body_text_color_subdued"), page) >= 4.5
    assert contrast(get("body_text_color"), page) >= 4.5
    assert contrast(get("link_text_color"), page) >= 4.5
    # a focused field's ring (1.8:1 before)
    assert contrast(get("input_border_color_focus"), page) >= 3
    if scheme == "light":  # the selected tab's text is the accent (on a dark page page.css lightens it)
        assert contrast(get("color_accent"), page) >= 4.5


def test_the_dark_pages_selected_tab_is_lightened_by_the_page_css(theme):
    from core.render import web

    css = (web.ASSETS / "page.css").read_text(encoding="utf-8")
    assert ".dark [role=tab][aria-selected=true] { color: var(--primary-400)" in css
    assert contrast(resolved(theme, "primary_400"), dark(theme, "background_fill_primary")) >= 4.5


def test_every_view_kind_carries_the_words_of_its_table_and_keyboard():
    w = np.tril(np.ones((3, 3))) / np.arange(1, 4)[:, None]
    heat = matrix.attention(["a", "b", "c"], w[None], np.tril(np.ones((3, 3), dtype=bool)))
    model = matrix.model_view(["a", "b", "c"], w[None, None], [["L0 H0"]], [["d"]], (0, 0))
    chart = charts.bars(["a", "b"], [0.1, 0.2], 0, "t", "x", "y", "n")
    for labels in (heat["labels"], model["labels"], model["heatmap_labels"]):
        assert {k: labels[k] for k in access.LABELS} == access.LABELS
    assert chart["labels"]["numbers"] == access.LABELS["numbers"]


@pytest.mark.parametrize("language", [lang for lang in i18n.languages() if lang != i18n.SOURCE])
def test_the_words_of_tables_and_keyboard_are_translated(language):
    for key, msgid in access.LABELS.items():
        said = i18n.lookup(msgid, language)  # what a page in that language receives with the view's labels
        assert msgid in i18n.catalogue(language), f"{key}: {msgid!r} has no {language} translation"
        assert i18n.field_names(said) == i18n.field_names(msgid)


def test_a_cell_is_said_as_the_chapter_says_it():
    assert i18n.t(access.LABELS["cell"], q="它", k="违约金", value="0.98") == "它 → 违约金: 0.98"
    with i18n.speaking("zh-CN"):
        assert i18n.t(access.LABELS["cell"], q="它", k="违约金", value="0.98") == "它 → 违约金：0.98"
