"""A browser whose language is Spanish reads Mistakes & interventions, Generate, Experiments and Cost in Spanish:
their static texts, what the server computes when the tab opens, and what the tab was built with (its first values),
whole at 1280x800 (a projector's size)."""

from __future__ import annotations

import pytest

from tests.conftest import ARGS, CHROMIUM
from tests.pages import TIMEOUT
from tests.test_browser_projector_tabs import CUT, overlapping, settle

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def es_page(app_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        page.goto(app_url)
        page.wait_for_selector(".tab-container[role=tablist]")
        yield page
        browser.close()


def shows(page, selector: str, text: str) -> None:
    """Wait until a shown element matching selector holds `text` (a tab's events may still be answering)."""
    page.wait_for_function("([sel, text]) => [...document.querySelectorAll(sel)].some((e) => e.offsetParent !== null"
                           " && (e.value || e.innerText || '').includes(text))", arg=[selector, text])


def test_the_mistakes_tab_reads_in_spanish_and_is_whole_at_1280(es_page, tmp_path):
    page = es_page
    assert page.evaluate("document.documentElement.lang") == "es"
    page.get_by_role("tab", name="Errores e intervenciones", exact=True).click()
    shows(page, "#card-softmax-dim-title", "Softmax sobre la dimensión equivocada")  # a card, computed for the page
    shows(page, "#card-mask-dtype-check textarea", "Con la línea equivocada, FALLA: lanza `TypeError")  # torch's words
    shows(page, "#interventions-headline", "Una cabeza puede parecer llamativa e importar poco.")
    shows(page, "#interventions-measured", "Medido una vez en")
    shows(page, "#interventions-table", "peso medio en su patrón")  # the table's columns
    shows(page, "#interventions-chart", "Peso medio en su patrón")
    assert "Encuentra el error" in page.locator(".tabitem:visible").first.inner_text()  # the static text
    assert page.locator("#card-softmax-dim-wrong").inner_text().count("dim=-2")  # the code as written
    settle(page)
    page.screenshot(path=str(tmp_path / "mistakes-es-1280x800.png"))
    assert page.evaluate(CUT) == []
    titles = page.locator("#interventions-chart .al-panel-title")
    panels = page.evaluate("() => new Set([...document.querySelectorAll('#interventions-chart .al-panel-title')]"
                           ".map((t) => t.parentNode)).size")  # (a long title wraps: one text per line)
    assert titles.count() >= 3 and panels == 3 and overlapping(page, "#interventions-chart .al-panel-title") == []


def test_the_generate_tab_reads_in_spanish_its_saved_benchmark_too(es_page):
    page = es_page
    page.get_by_role("tab", name="Generar", exact=True).click()
    shows(page, "#generate-summary textarea", "la palabra siguiente más probable es")  # computed when it opens
    shows(page, "#generate-next", "las 10 palabras siguientes más probables")
    shows(page, "#generate-cache-table", "puntuaciones por paso sin caché")
    # what the tab was built with, in English, comes again in the page's language (its first values)
    shows(page, "#generate-decode-caption", "Medido con")
    shows(page, "#generate-decode", "Tiempo por token generado")
    shows(page, "#generate-decode-table", "ms por token con la caché")
    page.get_by_text("Generar varias palabras", exact=True).click()  # (an accordion, closed)
    shows(page, "#generate-steps", "claves en la caché de cada capa")  # an empty table's columns
    settle(page)
    assert page.evaluate(CUT) == []


def test_the_cost_and_experiments_tabs_read_in_spanish(es_page):
    page = es_page
    page.get_by_role("tab", name="Coste", exact=True).click()
    shows(page, ".tabitem", "El cuadrado que crece")
    shows(page, "#cost-saved", "Crecimiento del pico de memoria por llamada")
    shows(page, ".tabitem", "Cómo se midió: B=1, d_model=128, 4 cabezas")
    settle(page)
    assert page.evaluate(CUT) == []
    page.get_by_role("tab", name="Experimentos", exact=True).click()
    shows(page, ".tabitem", "Entrenar con y sin la máscara causal")
    assert page.get_by_role("button", name="Entrenar los dos").first.is_visible()
