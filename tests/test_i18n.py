"""English and 简体中文: every text a page shows has its Chinese, chosen by the page's language; the API stays English."""

from __future__ import annotations

import re

import pytest

from core.lab.tiny import tiny
from core.ui import i18n
from core.ui.localize import first_values

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}


def data_words() -> set[str]:
    """Words that are the model's data, not the app's text: the tiny corpus's vocabulary and the example sentences."""
    from core.lab.text import EXAMPLES
    from core.lab.trained_view import EXAMPLES as TINY

    words = set(tiny()[1].vocab)
    from core.lab.failure_modes import PAD

    classic = "Your journey starts with one step"  # the v1/v2 chapter's own sentence, quoted in the transfer tab
    for sentence in (*EXAMPLES, *TINY, classic, PAD):  # PAD: the cards' padding token
        words.update(re.findall(r"[A-Za-z]+", sentence))
    return {w.lower() for w in words}


def english_left(value, found: list[str], words: set[str]) -> list[str]:
    """Walk an output (not the API's JSON) and collect the texts a Chinese reader would still read in English."""
    skip = {"rows", "cols", "tokens", "stamp", "kind", "values", "blocked", "extra", "f32", "u8", "shape", "type",
            "swatch", "__type__", "softmax"}  # a swatch names its colour for the page ("scale", "blocked"); "update":
    # codes; softmax: the scores and the selectors of the checkboxes a view follows
    if isinstance(value, str):
        left = [w for w in i18n.leftover(value) if w.lower() not in words]
        if left and not re.fullmatch(r"\d+ \S+", value):
            found.append(value[:160])
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in skip:
                english_left(v, found, words)
    elif isinstance(value, (list, tuple)):
        for v in value:
            english_left(v, found, words)
    return found


# ---- translating ------------------------------------------------------------------------------------------


def test_a_pages_language_comes_from_its_cookie_then_from_the_browser():
    class Req:
        def __init__(self, cookies, headers):
            self.cookies, self.headers = cookies, headers

    assert i18n.locale_of(Req({}, {"accept-language": "zh-CN,zh;q=0.9,en;q=0.8"})) == "zh-CN"
    assert i18n.locale_of(Req({}, {"accept-language": "en-GB,en;q=0.9"})) == "en"
    assert i18n.locale_of(Req({"lab_lang": "zh-CN"}, {"accept-language": "en-US"})) == "zh-CN"  # Settings switch
    assert i18n.locale_of(Req({"lab_lang": "en"}, {"accept-language": "zh-CN"})) == "en"
    assert i18n.locale_of(None) == "en"  # a script: English, as documented


def test_a_sentence_with_numbers_is_translated_by_its_template_and_names_stay_names():
    with i18n.speaking("zh-CN"):
        out = i18n.tr("n_heads=3 does not divide d_model=16; choose 1, 2, 4, 8 or 16")
    assert "n_heads=3" in out and "d_model=16" in out and not i18n.leftover(out), out
    assert i18n.tr("n_heads=3 does not divide d_model=16; choose 1, 2, 4, 8 or 16") .startswith("n_heads=3 does")
    assert i18n.tr("gpt2-small", "zh-CN") == "gpt2-small" and i18n.tr("W_query.weight", "zh-CN") == "W_query.weight"


def test_a_readers_own_words_stay_as_typed_inside_a_translated_sentence():
    title = i18n.tr("Token 3 → 'head', with the causal mask", "zh-CN")  # 'head' is the student's word, not ours
    assert "'head'" in title and "因果掩码" in title and not i18n.leftover(title), title
    note = i18n.tr("Words the tiny model never saw, read as <unk>: 'zebra', 'or'.", "zh-CN")
    assert "'zebra', 'or'" in note and not i18n.leftover(note), note
    assert i18n.tr("Token 3 → 'dog', with the causal mask", "en") == "Token 3 → 'dog', with the causal mask"


def test_the_chapters_terms_are_used():
    for english, term in (("Causal mask", "因果掩码"), ("Grouped-query attention", "分组查询注意力"),
                          ("Sliding window (local) attention", "滑动窗口"), ("√d scaling", "缩放")):
        assert term in i18n.tr(english, "zh-CN"), english


def test_the_generate_tabs_sentences_keep_their_numbers_and_the_models_words_whole():
    from core.serve import generate

    sentence = "the fox that the child saw was"
    with i18n.speaking("zh-CN"):  # asked by a Chinese page
        step = generate.step(sentence, 1.0, 0, 0)
        many = generate.generation(sentence, 3, 1.0, 0, 0, True)
        bars = generate.next_words(sentence, 2, 1.0, 0, 0).summary
    shape = str(tuple(step.payload["cache_shape"]))
    chinese = step.summary
    assert f"'{step.payload['word']}'" in chinese and shape in chinese and "随机种子" in chinese, chinese
    assert not [w for w in i18n.leftover(chinese) if w.lower() not in data_words()], chinese
    chinese = many.summary
    assert f"'{many.payload['text']}'" in chinese and "KV 缓存" in chinese, chinese  # the model's text, as written
    assert "'that'" in bars and "位置 2" in bars and not i18n.leftover(bars.replace("'that'", "")), bars


# ---- the page, static and served --------------------------------------------------------------------------


def test_every_static_text_of_the_page_has_its_chinese(demo):
    assert demo.lab_texts, "the page's texts were not collected"
    missing = sorted(t[:120] for t in demo.lab_texts if i18n.missing(t))
    assert not missing, f"{len(missing)} texts without Chinese, e.g. {missing[:10]}"


def test_what_a_page_shows_before_any_event_reads_in_chinese(demo):
    words, found = data_words(), []
    blocks, values = first_values(list(demo.blocks.values()))
    from core.ui.localize import translated

    with i18n.speaking("zh-CN"):
        for block, value in zip(blocks, values, strict=True):
            english_left(translated(block, value), found, words)
    assert not found, f"{len(found)} texts left in English, e.g. {found[:8]}"


def test_every_variant_the_page_switches_to_is_described_in_chinese(demo):
    """The page switches a variant's description itself (no round trip), from a table built with the page."""
    import json

    switch = next(fn.js for fn in demo.fns.values() if fn.js and "about" in fn.js and "names" in fn.js)
    table = json.loads(re.search(r"const t = (\{.*\})\[name\], names", switch, re.S).group(1))
    assert {"multi-head", "gqa", "sliding-window"} <= set(table)
    words, found = data_words(), []
    for name, row in table.items():
        english, chinese = row["about"]
        assert english and chinese != english, name
        english_left(chinese, found, words)
    assert not found, f"{len(found)} descriptions left in English, e.g. {found[:4]}"


def endpoints(client) -> dict:
    info = client.view_api(return_format="dict", print_info=False)
    return info["named_endpoints"]


def test_every_endpoint_answers_a_chinese_page_in_chinese(app_url):
    from gradio_client import Client

    zh = Client(app_url, headers=ZH, verbose=False, ssl_verify=False)
    words, found = data_words(), []
    for name, ep in endpoints(zh).items():
        if any(not p.get("parameter_has_default") for p in ep["parameters"]):
            continue
        kwargs = {p["parameter_name"]: p["parameter_default"] for p in ep["parameters"]}
        out = zh.predict(api_name=name, **kwargs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        for value, ret in zip(outs, ep["returns"], strict=False):
            if ret.get("component") not in ("Json", "JSON", "File", "Downloadbutton", "DownloadButton"):
                english_left(value, found, words)
    assert not found, f"{len(found)} texts left in English, e.g. {found[:8]}"


def test_the_spot_the_bug_cards_read_in_chinese_and_their_code_stays_as_written():
    import gradio as gr

    from core.serve.chapter import cards
    from core.ui.localize import translated

    with i18n.speaking("zh-CN"):
        for card in cards():
            for text in (f"### {card.title}", card.effect, card.check, card.note):
                chinese = translated(gr.Markdown(), text)
                assert not text or (re.search(r"[\u4e00-\u9fff]", chinese) and not i18n.leftover(chinese)), chinese
            if card.error:  # what torch raised is quoted as torch said it, in the check and in its own box
                assert f"`{card.error}`" in translated(gr.Textbox(interactive=False), card.check)
                assert translated(gr.Code(), card.error) == card.error
            for line in (card.wrong_code, card.right_code):
                assert translated(gr.Code(language="python"), line) == line


@pytest.mark.parametrize("n_heads, d_model", [(3, 16)])
def test_a_mistake_is_one_chinese_sentence_for_a_chinese_page_and_english_for_a_script(app_url, client, n_heads,
                                                                                        d_model):
    from gradio_client import Client
    from gradio_client.exceptions import AppError

    zh = Client(app_url, headers=ZH, verbose=False, ssl_verify=False)
    with pytest.raises(AppError) as err:
        zh.predict("a b c", "multi-head", True, True, n_heads, d_model, 0, "{}", api_name="/attention")
    message = str(err.value)
    assert re.search(r"[\u4e00-\u9fff]", message) and not i18n.leftover(message), message
    with pytest.raises(AppError) as err:
        client.predict("a b c", "multi-head", True, True, n_heads, d_model, 0, "{}", api_name="/attention")
    assert str(err.value).startswith(f"n_heads={n_heads} does not divide d_model={d_model}")
