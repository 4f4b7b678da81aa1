"""A lab link's address read back: every key the Attention tab has, each bad value skipped with its one sentence."""

from __future__ import annotations

import json
import re

import pytest

from core.lab.text import MAX_CHARS
from core.registry import load_registry
from core.ui import i18n, lab_link, trained_panel
from tests.i18n_checks import leftover

D_MODELS = (4, 8, 16, 32, 64)


@pytest.fixture(scope="module")
def variants():
    return load_registry(entry_points=False).variants


def read(params, variants):
    return lab_link.read(params, variants, (1, 8), D_MODELS)


def test_every_key_of_a_link_reaches_its_control(variants):
    link = read({"sentence": "这份合同中的违约金过高", "variant": "sliding-window", "causal": "false", "scaled": "1",
                 "heads": "4", "d_model": "32", "seed": "7", "options": '{"window": 2, "stride": 3}', "tab": "step"},
                variants)
    assert link.problems == ()
    assert link.values == {"sentence": "这份合同中的违约金过高", "variant": "sliding-window", "causal": False,
                           "scaled": True, "heads": 4, "d_model": 32, "seed": 7,
                           "options": json.dumps({"window": 2, "stride": 3})}
    assert link.options == {"window": 2, "stride": 3} and link.tab == "step"
    assert list(link.values) == list(lab_link.KEYS)  # in the Attention inputs' order


def test_a_key_the_link_leaves_out_is_left_as_the_page_has_it(variants):
    link = read({"sentence": "the dog ran", "causal": "FALSE"}, variants)
    assert link.values == {"sentence": "the dog ran", "causal": False} and link.tab is None and not link.problems
    assert read({"utm_source": "mail"}, variants) == lab_link.Link()  # a key the lab does not know is no concern


def test_a_lesson_link_wins_over_the_lab_keys(variants):
    assert read({"lesson": "chapter", "step": "3", "sentence": "the dog ran", "heads": "abc"}, variants) == lab_link.Link()


BAD = {
    "heads": ("abc", "heads='abc' must be a whole number"),
    "d_model": ("7", "d_model=7 is not one of the choices; choose 4, 8, 16, 32 or 64"),
    "seed": ("-1", "seed=-1 is out of range; choose 0 to 4294967295"),
    "causal": ("yes", "causal='yes' must be true or false"),
    "scaled": ("maybe", "scaled='maybe' must be true or false"),
    "variant": ("nope", "variant='nope' is not registered; choose one of: gqa, multi-head"),
    "sentence": ("x" * (MAX_CHARS + 1), f"sentence is longer than {MAX_CHARS:,} characters"),
    "options": ('{"windo": 3}', "unknown option 'windo'; this variant takes no options"),
    "tab": ("settings", "tab='settings' is not a tab a link opens; choose one of 'attention', 'step', 'causality'"),
    "weights": ("Trained", "weights='Trained' is not a Weights switch a link sets; choose 'random' or 'trained'"),
}


@pytest.mark.parametrize("key", sorted(BAD))
def test_a_bad_value_is_skipped_with_its_sentence_and_the_rest_is_kept(variants, key):
    raw, sentence = BAD[key]
    params = {"sentence": "the dog ran", "heads": "4", key: raw}
    link = read(params, variants)
    assert len(link.problems) == 1 and link.problems[0].startswith(sentence), link.problems
    assert key not in link.values and (key == "tab" or link.tab is None) and link.weights is None
    kept = {k: v for k, v in {"sentence": "the dog ran", "heads": 4}.items() if k != key}
    assert {k: link.values[k] for k in kept} == kept


@pytest.mark.parametrize("weights", ["trained", "random"])
def test_the_weights_key_sets_the_weights_switch_and_keeps_the_sentence(variants, weights):
    link = read({"sentence": "合同 违约金 过高 ， 它 可能 存在 风险", "weights": weights, "tab": "attention"}, variants)
    assert link.weights == weights and not link.problems and link.tab == "attention"
    assert link.values == {"sentence": "合同 违约金 过高 ， 它 可能 存在 风险"}  # (the weights are no Attention input)
    assert lab_link.WEIGHTS[weights] == {"trained": trained_panel.TRAINED, "random": trained_panel.RANDOM}[weights]
    assert read({"weights": weights}, variants).weights == weights  # alone, too
    assert read({"lesson": "chapter", "weights": weights}, variants) == lab_link.Link()  # a lesson link wins


def test_the_copy_link_writes_weights_only_when_the_trained_model_is_shown():
    js = lab_link.copy_js("trained-link-copy")
    assert f'switch_ === "{trained_panel.TRAINED}" ? "trained" : undefined' in js
    assert 'getElementById("trained-link-copy")' in js and "TRAINED" not in js and "BUTTON" not in js
    assert "weights}" in lab_link.replace_js({"trained": "attention_tab"})  # Open in the lab keeps it too


def test_options_are_checked_against_the_links_own_variant(variants):
    ok = read({"variant": "gqa", "heads": "4", "options": '{"n_kv_heads": 2}'}, variants)
    assert ok.options == {"n_kv_heads": 2} and not ok.problems
    for options, said in (('{"window": 0}', "option window=0 is too small"), ("{window: 3", "JSON object"),
                          ("{" * 2000, "longer than 1,000 characters"), ('{"n_kv_heads": 2}', "unknown option")):
        link = read({"variant": "sliding-window", "options": options}, variants)
        assert "options" not in link.values and not link.options and said in link.problems[0], (options, link)
        assert link.values == {"variant": "sliding-window"}


def test_every_problem_is_said_in_one_sentence_in_the_pages_language(variants):
    link = read({key: raw for key, (raw, _) in BAD.items()}, variants)
    assert len(link.problems) == len(BAD)
    english = lab_link.said(link.problems)
    assert english.startswith("Not taken from the link: ") and english.endswith(".")
    assert english.count("; tab=") == 1 and english.count("; weights=") == 1 and "\n" not in english
    with i18n.speaking("zh-CN"):  # as a page's request reads its link: in the page's language
        chinese = lab_link.said(read({key: raw for key, (raw, _) in BAD.items()}, variants).problems)
    assert chinese.startswith("链接中这些设置没有采用：") and chinese.endswith("。")
    assert not leftover(re.sub(r"choose one of: [^；]*|'x+…'", "", chinese)), chinese
    assert lab_link.said([]) == ""


def test_a_value_no_browser_sends_is_refused_never_raised(variants):
    link = read({"sentence": "a \ud800 b", "heads": "1e999", "seed": "nan", "d_model": "", "options": "[1]"}, variants)
    assert set(link.values) == set() and len(link.problems) == 5


def test_the_link_texts_read_in_chinese_and_spanish():
    from core import i18n as core_i18n
    from core.serve.link_state import MESSAGES as STATE

    for text in [*lab_link.TEXT.values(), lab_link.MESSAGES["skipped"], STATE["zipped"]]:
        for language in ("zh-CN", "es"):
            assert core_i18n.lookup(text, language) != text, (language, text)
    js = lab_link.copy_js()
    assert "链接已复制" in js and "Link copied" in js and "Enlace copiado" in js


def zipped(params: dict) -> str:
    """What the page's Copy link writes for a long state (core/ui/link_js.py): JSON, deflate-raw, base64url."""
    import base64
    import zlib

    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = packer.compress(json.dumps(params).encode()) + packer.flush()
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def test_a_long_link_is_one_deflated_parameter_read_back_whole(variants):
    sentence = "这份合同中的违约金过高，它可能存在风险。" * 50  # 1,000 characters
    state = {"sentence": sentence, "variant": "gqa", "causal": "false", "heads": "4", "options": '{"n_kv_heads": 2}',
             "tab": "step"}
    z = zipped(state)
    assert len(z) < 8000 < len(sentence.encode()) * 3  # percent-encoded, it would be 9 KB
    link = read({"z": z}, variants)
    assert not link.problems and link.tab == "step" and link.options == {"n_kv_heads": 2}
    assert link.values["sentence"] == sentence and link.values["causal"] is False and link.values["heads"] == 4
    assert read({"z": z, "heads": "2"}, variants).values["heads"] == 2  # a plain key beside it wins


@pytest.mark.parametrize("z", [
    "not base64 at all!", zipped({"sentence": ["a", "list"]}), zipped(["a"]), "AAAA",
    zipped({"sentence": "a" * 70_000}),  # inflates past 64 KB: refused before it is read whole
    zipped({"sentence": "x"})[:-4],  # cut short
])
def test_a_z_the_page_did_not_write_is_one_sentence_and_the_page_opens(variants, z):
    link = read({"z": z}, variants)
    assert link.values == {} and link.problems == ("z= is not a link this lab wrote; copy the link again",)
