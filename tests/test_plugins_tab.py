"""The Plugins tab: plugins, versions and errors as plain text, and the conformance kit one click away."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr
import pytest

from core import ConfigError, load_registry
from core.ui import plugins_tab

pytest_plugins = ["core.testing"]

HOSTILE = """
from core import hookimpl

@hookimpl
def register_attention_variants(register):
    raise RuntimeError("<img src=x onerror=alert(1)> **bold**")
"""
GOOD_BUT_PEEKS = """
import torch.nn.functional as F
from core import AttentionModule, Option, Variant, hookimpl

class Peeks(AttentionModule):
    def forward(self, x, key_padding_mask=None):
        q, k, v = self.project(x)
        return self.merge(F.scaled_dot_product_attention(q, k, v))

def gpu_only(config):
    raise RuntimeError("this variant needs a GPU")

@hookimpl
def register_attention_variants(register):
    register(Variant(name="peeks", title="<b>Peeks</b>", summary="reads the future", build=Peeks))
    register(Variant(name="gpu-only", title="GPU only", summary="cannot build here", build=gpu_only,
                     options=(Option("mode", "fast"),)))
    register(Variant(name="bad-default", title="Bad default", summary="its default breaks its range",
                     build=AttentionModule, options=(Option("window", 0, minimum=1),)))
"""


@pytest.fixture
def faulty_registry(install_plugin, monkeypatch):
    """Built-ins, one plugin whose hook raises HTML at us, and one whose variants misbehave."""
    install_plugin("hostile", HOSTILE, dist="lab-hostile", version="6.6.6")
    install_plugin("odd", GOOD_BUT_PEEKS, dist="lab-odd", version="1.0")
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "hostile,odd")
    return load_registry()


def components(blocks: gr.Blocks) -> dict[str, gr.components.Component]:
    return {b.elem_id: b for b in blocks.blocks.values() if getattr(b, "elem_id", None)}


def table(component) -> list[list[str]]:
    value = component.value
    return value["data"] if isinstance(value, dict) else value


def test_tab_lists_plugins_versions_and_errors_as_plain_text(faulty_registry):
    with gr.Blocks() as blocks:
        plugins_tab.build(SimpleNamespace(registry=faulty_registry))
    found = components(blocks)
    loaded = {row[0]: row for row in table(found["plugins-loaded"])}
    assert loaded["odd"][1:3] == ["lab-odd", "1.0"] and loaded["odd"][4] == "peeks, gpu-only"
    assert loaded["attention_plugins.gqa"][1] == "attention-lab"
    variants = {row[0]: row for row in table(found["plugins-variants"])}
    assert variants["peeks"][1] == "<b>Peeks</b>" and variants["peeks"][4] == "ok"
    errors = table(found["plugins-errors"])
    assert errors[0] == ["hostile", "lab-hostile 6.6.6", "hook",
                         "register_attention_variants raised RuntimeError: <img src=x onerror=alert(1)> **bold** "
                         "at fake_hostile_plugin.py:6"]
    assert errors[1][:3] == ["odd", "lab-odd 1.0", "variant"]
    for elem_id in ("plugins-loaded", "plugins-variants", "plugins-errors", "plugins-report-rows"):
        assert found[elem_id].datatype == "str"  # shown as text, never parsed as HTML or Markdown
    assert isinstance(found["plugins-report"], gr.Textbox)
    assert ("peeks", "peeks") in found["plugins-check-variant"].choices


def test_no_errors_says_so(registry):
    with gr.Blocks() as blocks:
        plugins_tab.build(SimpleNamespace(registry=registry))
    found = components(blocks)
    assert found["plugins-no-errors"].visible and not found["plugins-errors"].visible


def test_check_reports_a_module_that_reads_the_future(faulty_registry):
    summary, rows = plugins_tab.run_check(faulty_registry, "peeks")
    assert summary.startswith("peeks: FAILED")
    by_check = {r[0]: r for r in rows}
    assert by_check["causal forward (perturbation)"][1] == "FAIL"
    assert by_check["shapes, NaN and inf"][1] == "pass"
    summary, rows = plugins_tab.run_check(faulty_registry, "gpu-only")
    assert ("build: variant 'gpu-only' failed to build: RuntimeError: this variant needs a GPU "
            "(plugin odd, at fake_odd_plugin.py:11)") in summary


def test_check_of_an_unknown_variant_is_a_sentence(registry):
    with pytest.raises(ConfigError, match="variant='nope' is not registered"):
        plugins_tab.run_check(registry, "nope")


def test_the_app_starts_with_broken_plugins_and_every_good_variant_builds(faulty_registry):
    from core.ui.app import build_demo

    demo = build_demo(faulty_registry)
    assert "plugins-errors" in components(demo)
    for name in faulty_registry.variants:
        if name != "gpu-only":
            faulty_registry.build(name)
    with pytest.raises(ConfigError, match=r"^variant 'gpu-only' failed to build: RuntimeError: this variant needs a GPU "
                                          r"\(plugin odd, at fake_odd_plugin.py:11\)$"):
        faulty_registry.build("gpu-only")


def test_check_button_runs_the_kit_live(client):
    summary, rows = client.predict("gqa", api_name="/check_variant")
    assert summary.startswith("gqa: passed")
    assert {r[0]: r[1] for r in rows["data"]}["causal forward (autograd)"] == "pass"


@pytest.mark.browser
def test_in_a_browser_plugin_text_stays_text_and_check_shows_the_report(faulty_registry):
    import os
    import socket

    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    with gr.Blocks() as blocks:
        plugins_tab.build(SimpleNamespace(registry=faulty_registry))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    blocks.launch(prevent_thread_lock=True, server_name="127.0.0.1", server_port=port, quiet=True, ssr_mode=False)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            page.set_default_timeout(60_000)
            page.goto(blocks.local_url)
            errors = page.locator("#plugins-errors")
            page.wait_for_function(  # the plugin's words, shown as text in the errors table
                "() => (document.querySelector('#plugins-errors') || {}).innerText?.includes('<img src=x onerror=alert(1)> **bold**')")
            assert errors.locator("img").count() == 0 and errors.locator("strong").count() == 0
            page.locator("#plugins-check-variant input").fill("peeks")
            page.keyboard.press("Enter")
            page.locator("#plugins-check").click()
            page.wait_for_function("() => document.querySelector('#plugins-report textarea').value.startsWith('peeks: FAILED')")
            assert "forward reads the future" in page.locator("#plugins-report textarea").input_value()
            browser.close()
    finally:
        blocks.close()


@pytest.mark.browser
def test_in_a_chinese_browser_the_plugins_tab_its_tables_and_the_kits_report_read_in_chinese(faulty_registry):
    """The whole app (its first values and events in the page's language), a Chinese browser, the Plugins tab."""
    import re

    from playwright.sync_api import sync_playwright

    from core.i18n import lookup
    from core.ui.app import build_demo, launch_options
    from tests.conftest import ARGS, CHROMIUM, free_port

    cjk = re.compile(r"[\u4e00-\u9fff]")
    demo = build_demo(faulty_registry)
    demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", server_port=free_port(), quiet=True,
                **launch_options(demo))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 800}).new_page()
            page.set_default_timeout(60_000)
            page.goto(demo.local_url)
            page.get_by_role("tab", name=lookup("Plugins", "zh-CN"), exact=True).click()
            tab = page.locator("[role=tabpanel]:visible").first
            tab.get_by_text("本实验室里的每个变体").first.wait_for()  # the tab's Markdown, in the page's language
            errors = page.locator("#plugins-errors")
            page.wait_for_function(  # its first values again, in Chinese: the headers, the stage, the reason
                "() => /阶段[\\s\\S]*原因[\\s\\S]*钩子/.test(document.querySelector('#plugins-errors').innerText)")
            body = errors.inner_text()
            assert "<img src=x onerror=alert(1)> **bold**" in body  # the plugin's words: text, as written
            assert errors.locator("img").count() == 0 and errors.locator("strong").count() == 0
            assert "抛出了" in body  # "register_attention_variants raised ...", said in Chinese
            variants = page.locator("#plugins-variants").inner_text()
            assert "分组查询注意力" in variants and "<b>Peeks</b>" in variants  # a built-in's title; a plugin's own
            assert "正常" in variants
            page.locator("#plugins-check-variant input").fill("peeks")
            page.keyboard.press("Enter")
            page.locator("#plugins-check").click()
            try:
                page.wait_for_function(  # (the kit runs in the plugin's worker: up to its 120 s time limit)
                    "() => document.querySelector('#plugins-report textarea').value.startsWith('peeks：未通过')",
                    timeout=180_000)
            finally:
                page.screenshot(path="/tmp/plugins-tab-zh.png", full_page=True)
            report = page.locator("#plugins-report textarea").input_value()
            assert "forward 读到了未来" in report and "因果性：forward（扰动法）" in report, report
            rows = page.locator("#plugins-report-rows")
            page.wait_for_function("() => /检查项[\\s\\S]*结果[\\s\\S]*失败/.test("
                                   "document.querySelector('#plugins-report-rows').innerText)")
            assert cjk.search(rows.inner_text())
            page.screenshot(path="/tmp/plugins-tab-zh.png", full_page=True)
            browser.close()
    finally:
        demo.close()
