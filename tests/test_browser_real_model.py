"""The Real model tab in Chromium: every head named on its thumbnail, one opened big, the toggles, the step-through
and the causality sections, a mistake said in one sentence."""

from __future__ import annotations

import pytest

from tests.pages import TIMEOUT, open_tab

pytestmark = pytest.mark.browser
VIEW = "#real-model-view .al-root"


def _page(browser, app_url, width=1280, height=800):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(TIMEOUT)
    page.goto(app_url)
    open_tab(page, "Real model")
    page.wait_for_selector(f"{VIEW} .al-thumb")
    return page


def _redrawn(page, view: str, old: str | None) -> str:
    page.wait_for_function("([sel, old]) => { const v = document.querySelector(sel); "
                           "return v && v.dataset.stamp && v.dataset.stamp !== old; }", arg=[view, old])
    return page.locator(view).get_attribute("data-stamp")


def test_every_head_is_a_named_thumbnail_and_one_click_opens_it(browser, app_url):
    page = _page(browser, app_url)
    try:
        heads = page.locator("#real-model-view .al-model-head")
        layers = {heads.nth(i).get_attribute("data-layer") for i in range(heads.count())}
        assert heads.count() >= 4 and heads.count() % len(layers) == 0  # every layer x head
        titles = [t.replace("\xa0", " ") for t in page.locator("#real-model-view .al-model-title").all_inner_texts()]
        names = ("prev", "sink", "self", "dup", "induct", "spread")
        assert all(t.startswith("L") and " · " in t and t.split(" · ")[1] in names for t in titles), titles
        heads.nth(1).click()
        assert page.locator("#real-model-view .al-model-head").nth(1).get_attribute("aria-pressed") == "true"
        opened = page.locator("#real-model-view .al-opened .al-view-title").first.inner_text().replace("\xa0", " ")
        assert titles[1] in opened
        assert "mean weight" in page.locator("#real-model-view .al-description").inner_text() or \
            "spread out" in page.locator("#real-model-view .al-description").inner_text()
        old = page.locator(VIEW).get_attribute("data-stamp")
        page.locator("#real-causal input").click()  # the mask lifted in every layer: redrawn, loss said
        _redrawn(page, VIEW, old)
        page.wait_for_function("() => document.querySelector('#real-summary').innerText.includes('causal mask lifted')")
        page.locator("#real-model-view-export").click()  # the PNG of the view on the page (sent compact)
        link = page.locator("#real-model-view-png a").first
        link.wait_for()
        assert link.get_attribute("href").split("?")[0].endswith(".png")
        page.locator("#real-ablate textarea").fill("nope")
        page.locator("#real-ablate textarea").press("Enter")
        page.wait_for_function("() => (document.querySelector('#real-problem textarea') || {}).value?.includes('JSON list')")
    finally:
        page.close()


def test_the_step_through_and_causality_sections_show_the_real_layer(browser, app_url):
    page = _page(browser, app_url, 1920, 1080)
    try:
        page.locator("#real-steps").get_by_text("Step through one layer and head").click()
        _redrawn(page, "#real-step-weights .al-root", None)
        page.wait_for_function("() => document.querySelector('#real-step-formula-Q').innerText.includes('c_attn')")
        assert page.locator("#real-step-masked .al-root").get_attribute("data-stamp")
        page.locator("#real-causality").get_by_text("Causality: change a later token").click()
        _redrawn(page, "#real-causality-view .al-root", None)
        page.wait_for_function("() => document.querySelector('#real-causality-summary').innerText.includes("
                               "'nothing an earlier row computes')")
        text = page.locator("#real-causality-summary").inner_text()
        assert "max |Δ weight| = 0," in text  # exactly zero on every earlier row of every layer
        old = page.locator("#real-causality-view .al-root").get_attribute("data-stamp")
        page.locator("#real-causal input").click()  # without the mask the change reaches back
        _redrawn(page, "#real-causality-view .al-root", old)
        page.wait_for_function("() => document.querySelector('#real-causality-summary').innerText.includes('reaches back')")
    finally:
        page.close()


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)])
def test_the_model_view_fits_the_screen(browser, app_url, size):
    page = _page(browser, app_url, *size)
    try:
        wide = page.evaluate("() => { const v = document.querySelector('#real-model-view'); "
                             "return v.scrollWidth <= v.clientWidth + 1; }")
        assert wide
    finally:
        page.close()


@pytest.fixture(scope="module")
def gemma_app(tmp_path_factory):
    """An app whose first real model is a Gemma 2 (a sliding layer and a global one, 4 query heads over 2 KV heads),
    named by ATTENTION_LAB_MODELS as a teacher names one: app.py in its own process, as `make run` starts it."""
    import os
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    from tests.conftest import free_port
    from tests.real_families import save

    folder = tmp_path_factory.mktemp("models") / "gemma-toy"
    save("gemma2", folder)
    root, port = Path(__file__).resolve().parents[1], free_port()
    env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "ATTENTION_LAB_WARM": "0", "PYTHONPATH": str(root),
           "ATTENTION_LAB_MODELS": str(folder), "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    env.pop("ATTENTION_LAB_GPT2", None)
    server = subprocess.Popen([sys.executable, "app.py"], cwd=root, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(1200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.terminate()
        server.wait(timeout=60)


def test_a_gqa_model_with_sliding_layers_shows_its_groups_its_bands_and_rope_as_a_step(browser, gemma_app):
    page = _page(browser, gemma_app, 1280, 800)
    try:
        assert page.locator("#real-model input[value='gemma-toy']").is_checked()  # the first real model opens
        labels = page.locator("#real-model-view .al-model-layer").all_inner_texts()
        assert labels == ["layer 0 · window 3", "layer 1 · global"]
        assert page.locator("#real-model-view .al-model-row").first.locator(".al-model-group-gap").count() == 1
        page.locator("#real-model-view .al-model-head[data-layer='0']").nth(3).click()  # a sliding layer's head
        described = page.locator("#real-model-view .al-description").inner_text()
        assert "key/value head 1, which query heads 2 to 3 share" in described and "last 3 tokens" in described
        page.locator("#real-steps").get_by_text("Step through one layer and head").click()
        _redrawn(page, "#real-step-capped .al-root", None)  # Gemma 2's cap: a stage of its own
        page.wait_for_function("() => document.querySelector('#real-step-formula-Q').innerText.includes('RoPE')")
        assert "before any rotation" in page.locator("#real-step-formula-Q-pre").inner_text()
        assert page.locator("#real-step-Q-pre .al-root").get_attribute("data-stamp")
    finally:
        page.close()
