"""A real Chromium (Debian's, never a downloaded one) drives the app the way a student does."""

from __future__ import annotations

import os
import shutil

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]
TIMEOUT = 60_000  # ms; the shared 2-core machine can be slow, the checks are not about speed


@pytest.fixture(scope="module")
def browser():
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.fail(f"Chromium not found at {CHROMIUM}; install it with `apt-get install -y chromium`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, app_url):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.dialogs, page.hosts = [], set()
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("request", lambda r: page.hosts.add(r.url.split("/")[2] if "://" in r.url else r.url[:5]))
    page.set_default_timeout(TIMEOUT)
    page.goto(app_url)
    page.wait_for_selector("#heatmaps img")
    yield page
    page.close()


def heatmap_src(page) -> str:
    return page.locator("#heatmaps img").first.get_attribute("src")


def wait_src_change(page, old: str) -> str:
    page.wait_for_function(
        "old => { const i = document.querySelector('#heatmaps img'); return i && i.src !== old; }", arg=old
    )
    return heatmap_src(page)


def textbox(page, elem_id: str) -> str:
    return page.locator(f"#{elem_id} textarea").input_value()


def test_typing_updates_heatmaps_and_the_mask_toggle_changes_them(page):
    first = heatmap_src(page)
    assert first.startswith("data:image/png;base64,")
    assert textbox(page, "check") == "every row sums to 1; weight above the diagonal: 0"

    page.locator("#sentence textarea").fill("Dogs chase cats around the garden")
    typed = wait_src_change(page, first)
    assert typed != first

    page.locator("#causal input[type=checkbox]").uncheck()
    unmasked = wait_src_change(page, typed)
    assert unmasked != typed
    page.wait_for_function("() => document.querySelector('#check textarea').value.includes('leaks')")
    assert page.hosts <= {app_host(page), "data:"}  # no CDN fonts, themes or analytics


def app_host(page) -> str:
    return page.url.split("/")[2]


def test_transfer_verdict_shows(page):
    page.get_by_role("tab", name="Weight transfer").click()
    page.wait_for_function(
        "() => { const t = document.querySelector('#transfer-verdict textarea'); "
        "return t && t.value.startsWith('equivalent'); }"
    )
    page.locator("#transfer-mistake").get_by_label("no-transpose").check()
    page.wait_for_function(
        "() => document.querySelector('#transfer-verdict textarea').value.includes('weight.T')"
    )


def test_html_in_the_sentence_runs_no_script(page):
    before = heatmap_src(page)
    hostile = '<img src=x onerror=alert(1)> <script>alert(2)</script> hi'
    page.locator("#sentence textarea").fill(hostile)
    wait_src_change(page, before)
    page.wait_for_timeout(500)  # give a would-be onerror handler time to fire
    assert page.dialogs == []
    assert page.locator("img[src='x']").count() == 0
    assert not page.evaluate("() => [...document.scripts].some(s => s.textContent.includes('alert('))")
    page.get_by_role("tab", name="Step through").click()  # the tokens become table headers and row labels there
    page.wait_for_function(
        "() => [...document.querySelectorAll('td, th')].some(e => e.offsetParent && e.innerText.includes('onerror'))")
    page.wait_for_timeout(500)
    assert page.dialogs == [] and page.locator("img[src='x']").count() == 0
    page.get_by_role("tab", name="Attention").click()
    assert page.locator("#sentence textarea").input_value() == hostile  # kept as text


def test_html_in_an_error_message_runs_no_script(page):
    page.locator("#options textarea").fill('{"<img src=x onerror=alert(3)>": 1}')
    page.get_by_text("unknown option").first.wait_for()  # the gr.Error toast, as text
    page.wait_for_timeout(500)
    assert page.dialogs == []
    assert page.locator("img[src='x']").count() == 0


def test_variant_controls_come_from_the_registry(page):
    before = heatmap_src(page)
    page.locator("#variant input").click()
    page.get_by_role("option", name="Sliding window (local) attention").click()
    page.wait_for_function(
        "() => document.querySelector('#options textarea').value === '{\"window\": 4, \"stride\": 0}'")
    assert page.locator("#opt-sliding-window-window").is_visible()
    wait_src_change(page, before)
    page.locator("#variant input").click()
    page.get_by_role("option", name="Single head (CausalAttention)").click()
    page.wait_for_function("() => document.querySelector('#options textarea').value === '{}'")
    assert not page.locator("#opt-sliding-window-window").is_visible()
    page.wait_for_function("() => document.querySelector('#n_heads input[type=range]').disabled")


def test_weights_switch_shows_the_trained_model_with_measured_head_roles(page):
    page.get_by_text("trained tiny model", exact=True).click()
    page.wait_for_selector("#trained-heatmaps img")
    page.wait_for_function("() => document.querySelector('#trained-role textarea').value.includes('head')")
    role = textbox(page, "trained-role")
    assert role.startswith("Layer 1 head 0:") and "held-out sentences" in role
    assert not page.locator("#heatmaps").is_visible()  # the random view is hidden meanwhile
    page.get_by_text("random, seeded", exact=True).click()
    page.wait_for_selector("#heatmaps img")
