"""In Chromium: "Generate one word" grows the sentence, redraws the next-word bars, and shows the new token's rows."""

from __future__ import annotations

import pytest

from tests.pages import open_tab

pytestmark = pytest.mark.browser

TIMEOUT = 60_000  # ms; the shared 2-core machine can be slow, the checks are not about speed



def stamp(page, elem_id: str) -> str | None:
    return page.evaluate("id => { const e = document.querySelector('#' + id + ' .al-root');"
                         " return e ? e.dataset.stamp || null : null; }", elem_id)


def redrawn(page, elem_id: str, old: str | None) -> None:
    page.wait_for_function("([id, old]) => { const e = document.querySelector('#' + id + ' .al-root');"
                           " return e && e.dataset.stamp && e.dataset.stamp !== old; }", arg=[elem_id, old])


def test_generate_one_word_grows_the_sentence_and_shows_every_heads_row(browser, app_url):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(TIMEOUT)
    hosts = set()
    page.on("request", lambda r: hosts.add(r.url.split("/")[2]))
    try:
        page.goto(app_url)
        open_tab(page, "Generate")  # at 1280 px it sits behind Gradio's "More tabs" menu
        redrawn(page, "generate-next", None)  # the bars for the opening sentence
        box = page.locator("#generate-sentence textarea")
        before, bars = box.input_value(), stamp(page, "generate-next")
        assert page.locator("#generate-rows .al-root").count() == 0 or not page.locator("#generate-rows").is_visible()
        page.locator("#generate-step").click()
        page.wait_for_function("old => document.querySelector('#generate-sentence textarea').value !== old", arg=before)
        after = box.input_value()
        assert after.startswith(before + " ") and len(after.split()) == len(before.split()) + 1
        word = after.split()[-1]
        redrawn(page, "generate-rows", None)
        assert page.locator("#generate-rows [data-head]").count() == 2  # one panel per layer of the tiny model
        labels = page.locator("#generate-rows [data-head='0'] .al-x .al-label").all_inner_texts()
        assert labels[-1].endswith(word)  # the row's last key is the new word itself
        redrawn(page, "generate-cache", None)
        assert page.locator("#generate-cache [data-head]").count() == 4  # K and V of each layer
        redrawn(page, "generate-next", bars)  # the bars now predict the word after the new one
        summary = page.locator("#generate-summary textarea").input_value()
        assert f"After '{word}'" in summary
        assert hosts == {app_url.split("/")[2]}  # nothing from any other host
    finally:
        page.close()
