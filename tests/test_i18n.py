"""English and 简体中文: every text a page shows has its Chinese, chosen by the page's language; the API stays English."""

from __future__ import annotations

import re

import pytest

from core.i18n import lookup
from core.lab.tiny import tiny
from core.ui import i18n
from tests.i18n_checks import is_name, leftover

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}
BUILT_IN = {"single-head", "multi-head", "multi-head-stacked", "gqa", "sliding-window"}  # attention_plugins/


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
        left = [w for w in leftover(value) if w.lower() not in words]
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


def test_a_sentence_with_numbers_is_made_in_the_readers_language_and_names_stay_names():
    from core.config import AttentionConfig, ConfigError

    with i18n.speaking("zh-CN"), pytest.raises(ConfigError) as err:
        AttentionConfig(d_model=16, n_heads=3)
    out = str(err.value)
    assert "n_heads=3" in out and "d_model=16" in out and not leftover(out), out
    with pytest.raises(ConfigError) as err:  # outside a request: English
        AttentionConfig(d_model=16, n_heads=3)
    assert str(err.value).startswith("n_heads=3 does")
    assert lookup("gpt2-small", "zh-CN") == "gpt2-small" and lookup("W_query.weight", "zh-CN") == "W_query.weight"


def test_a_readers_own_words_stay_as_typed_inside_a_translated_sentence():
    from core.lab.trained_view import trained_view, view_note
    from core.render.lab_charts import causality_bars

    def title(language):
        with i18n.speaking(language):  # 'head' is the student's word, not ours
            return causality_bars([0.0, 1.0], ["a", "b"], 1, "head", True)["panels"][0]["title"]

    assert "'head'" in title("zh-CN") and "因果掩码" in title("zh-CN") and not leftover(title("zh-CN"))
    assert title("en") == "Token 1 → 'head', with the causal mask" and "'head'" in title("es") != title("en")
    with i18n.speaking("zh-CN"):
        note = view_note(trained_view("the zebra or the fox slept ."))
    assert "'or', 'zebra'" in note and not leftover(note.replace("<unk>", "")), note


def test_the_chapters_terms_are_used():
    for english, term in (("Causal mask", "因果掩码"), ("Grouped-query attention", "分组查询注意力"),
                          ("Sliding window (local) attention", "滑动窗口"), ("√d scaling", "缩放")):
        assert term in lookup(english, "zh-CN"), english


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
    assert not [w for w in leftover(chinese) if w.lower() not in data_words()], chinese
    chinese = many.summary
    assert f"'{many.payload['text']}'" in chinese and "KV 缓存" in chinese, chinese  # the model's text, as written
    assert "'that'" in bars and "位置 2" in bars and not leftover(bars.replace("'that'", "")), bars


# ---- the page, static and served --------------------------------------------------------------------------


def static_texts(demo) -> list[tuple[str, object]]:
    """(where, value, block) of every text the page shows before any event: labels, help, placeholders, Markdown, buttons,
    choices' labels, tab titles (a hidden block's too: it may be shown)."""
    import gradio as gr

    out = []
    for block in demo.blocks.values():
        where = f"{type(block).__name__} {block.elem_id or ''}"
        for attr in ("label", "info", "placeholder"):
            out.append((f"{where}.{attr}", getattr(block, attr, None), block))
        if isinstance(block, (gr.Markdown, gr.Button)) and not isinstance(block, gr.DownloadButton):
            if "al-example" not in (block.elem_classes or []) and block.visible is not False:  # examples: the model's
                out.append((f"{where}.value", block.value, block))
        if isinstance(block, (gr.Dropdown, gr.Radio)) and "al-example" not in (block.elem_classes or []):
            out += [(f"{where}.choice", label, block) for label, value in (block.choices or []) if label != value]
    return out


def test_every_static_text_of_the_page_is_a_msgid_the_browser_translates(demo):
    """No plain English on the page: each static text was made with static() (a gr.I18n key; its msgid's
    translations are checked by tests/test_catalogues.py), or is a name (d_model, seed)."""
    made = {o for _, outputs, _ in demo.lab_first for o in outputs}  # server text, made in the page's language
    plain = [f"{where}: {v!r:.80}" for where, v, block in static_texts(demo) if block not in made
             if isinstance(v, str) and re.search(r"[A-Za-z]{2}", v) and not is_name(v) and not v.startswith("__i18n__")]
    assert not plain, f"{len(plain)} static texts not made with static(): {plain[:10]}"
    keyed = [v for _, v, _ in static_texts(demo) if getattr(v, "key", None) and i18n.english(v) not in plugin_titles()]
    catalogue = launch_i18n()
    assert keyed and all(k.key in catalogue["zh-CN"] and catalogue["zh-CN"][k.key] != catalogue["en"][k.key]
                         for k in keyed if not is_name(i18n.english(k)))


def launch_i18n() -> dict[str, dict[str, str]]:
    """What launch() gives Gradio's i18n: language -> key -> text."""
    return dict(i18n.catalogue().translations)


def server_texts(demo) -> list:
    """The blocks whose first value is server text (a table, a drawn view, a read-only text box)."""
    import gradio as gr

    found = []
    for block in demo.blocks.values():
        value = getattr(block, "value", None)
        if isinstance(block, gr.Dataframe) or (isinstance(block, gr.HTML) and isinstance(value, dict)) or (
                isinstance(block, gr.Textbox) and block.interactive is False and isinstance(value, str) and value):
            found.append(block)
    return found


def test_what_a_page_shows_before_any_event_is_made_again_in_the_pages_language(demo):
    """A block built with server text in English is among a tab's first values (made again in a Chinese or Spanish
    page's language), and what those make reads in Chinese."""
    made = {o for _, outputs, _ in demo.lab_first for o in outputs} | demo.lab_filled
    words, found = data_words(), []
    for block in server_texts(demo):
        if block not in made:
            english_left(block.value, found, words)
    with i18n.speaking("zh-CN"):
        for _tab, outputs, make in demo.lab_first:
            values = (make(),) if len(outputs) == 1 else make()  # (one output: its value itself, maybe a dict)
            sent = [v for v in values if not isinstance(v, dict) or v.get("__type__") != "update"]  # (gr.skip())
            english_left(sent, found, words)
    found = [f for f in found if f not in plugin_titles()]
    assert not found, f"{len(found)} texts left in English, e.g. {found[:8]}"


def plugin_titles() -> set[str]:
    """An installed plugin's titles: its own words, in the languages its author gives (never the lab's catalogues)."""
    from core.registry import load_registry

    return {v.title for n, v in load_registry().variants.items() if n not in BUILT_IN}


def test_every_variant_the_page_switches_to_is_described_in_chinese(demo):
    """The page switches a variant's description itself (no round trip), from a table built with the page."""
    import json

    switch = next(fn.js for fn in demo.fns.values() if fn.js and "about" in fn.js and "names" in fn.js)
    table = json.loads(re.search(r"const t = (\{.*\})\[name\], names", switch, re.S).group(1))
    assert {"multi-head", "gqa", "sliding-window"} <= set(table)
    words, found = data_words(), []
    for name, row in table.items():
        english, chinese = row["about"]["en"], row["about"]["zh-CN"]
        assert english and set(row["about"]) == set(i18n.LOCALES), name
        if name in BUILT_IN:  # (an installed plugin's words are its own: as its author wrote them, in every language)
            assert all(row["about"][lang] != english for lang in i18n.LOCALES if lang != "en"), name
            english_left(chinese, found, words)
        else:
            assert all(row["about"][lang] == english for lang in i18n.LOCALES), name
    assert not found, f"{len(found)} descriptions left in English, e.g. {found[:4]}"


def endpoints(client) -> dict:
    info = client.view_api(return_format="dict", print_info=False)
    return info["named_endpoints"]


def test_every_endpoint_answers_a_chinese_page_in_chinese(app_url, demo):
    from gradio_client import Client

    from core.ui.endpoints import SENT_AS

    kinds = {f"/{fn.api_name}": [type(c).__name__ for c in getattr(fn.fn, SENT_AS)]  # a gr.api endpoint's outputs
             for fn in demo.fns.values() if hasattr(fn.fn, SENT_AS)}

    zh = Client(app_url, headers=ZH, verbose=False, ssl_verify=False)
    words, found = data_words(), []
    for name, ep in endpoints(zh).items():
        if any(not p.get("parameter_has_default") for p in ep["parameters"]):
            continue
        kwargs = {p["parameter_name"]: p["parameter_default"] for p in ep["parameters"]}
        out = zh.predict(api_name=name, **kwargs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        for i, (value, ret) in enumerate(zip(outs, ep["returns"], strict=False)):
            kind = kinds[name][i] if ret.get("component") == "Api" else ret.get("component")
            if kind not in ("Json", "JSON", "File", "Downloadbutton", "DownloadButton"):
                english_left(value, found, words)
    found = [f for f in found if f not in plugin_titles()]
    assert not found, f"{len(found)} texts left in English, e.g. {found[:8]}"


def test_the_spot_the_bug_cards_read_in_chinese_and_their_code_stays_as_written():
    from core.serve.chapter import cards

    english = {card.key: card for card in cards()}
    with i18n.speaking("zh-CN"):
        for card in cards():
            for text in (f"### {card.title}", card.effect, card.check, card.note):
                assert not text or (re.search(r"[\u4e00-\u9fff]", text) and not leftover(text)), text
            if card.error:  # what torch raised is quoted as torch said it, in the check and in its own box
                assert f"`{card.error}`" in card.check and card.error == english[card.key].error
            assert (card.wrong_code, card.right_code) == (english[card.key].wrong_code, english[card.key].right_code)


@pytest.mark.parametrize("n_heads, d_model", [(3, 16)])
def test_a_mistake_is_one_chinese_sentence_for_a_chinese_page_and_english_for_a_script(app_url, client, n_heads,
                                                                                        d_model):
    from gradio_client import Client
    from gradio_client.exceptions import AppError

    zh = Client(app_url, headers=ZH, verbose=False, ssl_verify=False)
    with pytest.raises(AppError) as err:
        zh.predict("a b c", "multi-head", True, True, n_heads, d_model, 0, "{}", api_name="/attention")
    message = str(err.value)
    assert re.search(r"[\u4e00-\u9fff]", message) and not leftover(message), message
    with pytest.raises(AppError) as err:
        client.predict("a b c", "multi-head", True, True, n_heads, d_model, 0, "{}", api_name="/attention")
    assert str(err.value).startswith(f"n_heads={n_heads} does not divide d_model={d_model}")
