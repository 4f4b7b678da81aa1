"""The plugin contract's, the kit's, the server's and the Plugins tab's sentences in the reader's language.

Each is asked under core.i18n.speaking (what an event, a middleware or a worker sets for a request) and must come
back in Chinese or Spanish, with the names and values the reader sent kept as they are; outside a request, English.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import gradio as gr
import pytest

from core.config import AttentionConfig, Option
from core.i18n import lookup, speaking
from core.mistakes import ConfigError, whole_in
from core.registry import load_registry

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import hostile_plugins  # noqa: E402  (scripts/: shared with the reliability suite)

pytest_plugins = ["core.testing"]  # install_plugin

CJK = re.compile(r"[\u4e00-\u9fff]")
SPANISH = re.compile(r"\b(de|la|el|en|un|una|lo|los|las|que|pero|con|por|para|es|está|esta|debe|elige|se|su|ya)\b")
ENGLISH = re.compile(r"\b(the|is|are|must|choose|not|of|and|with|was|did|has|its|could|than)\b")  # filler words
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|\b\w+=\S+|\(B=[^)]*\)")  # values and names as sent
LANGUAGES = ["zh-CN", "es"]


def raised(call, language: str | None = None) -> str:
    """The sentence call() raises as a ConfigError, made in `language` (English outside a request)."""
    with speaking(language), pytest.raises(ConfigError) as err:
        call()
    return str(err.value)


def in_language(text: str, language: str, english: str) -> None:
    """text is english's sentence said in language: Chinese characters, or Spanish words and no English ones
    (the values, names and code the reader sent or reads in every language excepted)."""
    bare = QUOTED.sub(" ", text)
    said = CJK.search(bare) if language == "zh-CN" else SPANISH.search(bare)
    assert text != english and said and not ENGLISH.search(bare), (language, text)


@pytest.fixture(scope="module")
def registry():
    return load_registry(entry_points=False)


# ---- core/config.py, mistakes.py, registry.py, plugin_collect.py, variant.py: the sentences every tab shows -------

MISTAKES = {
    "heads do not divide": (lambda r: AttentionConfig(d_model=16, n_heads=3), ["n_heads=3", "d_model=16", "16"]),
    "out of range": (lambda r: whole_in("seed", 12, 0, 3), ["seed=12", "0", "3"]),
    "a list where a number goes": (lambda r: whole_in("seed", [1, 2], 0, 3), ["seed", "2"]),
    "option too small": (lambda r: Option("window", 4, minimum=1, maximum=64).validate(0), ["window=0", "64"]),
    "option of the wrong type": (lambda r: Option("window", 4).validate("wide"), ["window='wide'"]),
    "unknown option": (lambda r: r.build("sliding-window", AttentionConfig(options={"windw": 3})),
                       ["'windw'", "stride", "window"]),
    "unknown variant": (lambda r: r.get("mulit-head"), ["'mulit-head'", "'multi-head'", "attention_lab"]),
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_a_config_mistake_is_said_in_the_readers_language_with_the_values_as_sent(registry, mistake, language):
    call, kept = MISTAKES[mistake]
    english = raised(lambda: call(registry))
    said = raised(lambda: call(registry), language)
    in_language(said, language, english)
    assert all(k in said for k in kept), said
    assert "\n" not in said


def test_a_list_of_choices_is_joined_in_the_readers_words():
    with speaking("zh-CN"):
        assert raised(lambda: AttentionConfig(d_model=16, n_heads=3), "zh-CN").endswith("1、2、4、8 或 16")
    assert raised(lambda: AttentionConfig(d_model=16, n_heads=3), "es").endswith("1, 2, 4, 8 o 16")
    assert raised(lambda: AttentionConfig(d_model=16, n_heads=3)).endswith("1, 2, 4, 8 or 16")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_plugins_load_error_is_said_to_each_reader_in_their_language(install_plugin, monkeypatch, language):
    """The registry is loaded once (English, at start-up); its errors are said when shown, to whoever reads them."""
    install_plugin("broken", "import does_not_exist\n", dist="lab-broken")
    install_plugin("badname", """
from core import AttentionModule, Option, Variant, hookimpl

@hookimpl
def register_attention_variants(register):
    register(Variant(name="Bad Name", title="t", summary="s", build=AttentionModule))
    register(Variant(name="bad-range", title="t", summary="s", build=AttentionModule,
                     options=(Option("window", 3, minimum=5, maximum=2),)))
""", dist="lab-badname")
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "broken,badname,missing-one")
    registry = load_registry()
    english = [str(e) for e in registry.errors]
    assert [e.plugin for e in registry.errors] == ["missing-one", "broken", "badname", "badname"]
    assert english[2].startswith("badname (variant): variant 'Bad Name' has a name 'Bad Name' must be lower-case")
    with speaking(language):
        said = [str(e) for e in registry.errors]
        stages = [lookup(e.stage) for e in registry.errors]
    for text, record, e, stage in zip(said, english, registry.errors, stages, strict=True):
        in_language(text, language, record)
        assert text.startswith(e.plugin) and stage != e.stage and e.reason in record  # the record stays English
    assert "ModuleNotFoundError: No module named 'does_not_exist'" in said[1]  # Python's words, as Python said them
    assert "'Bad Name'" in said[2] and "'bad-name'" in said[2]
    assert "'bad-range'" in said[3] and "window" in said[3] and "5" in said[3] and "2" in said[3]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_variant_that_fails_to_build_is_said_with_its_plugin_and_line(registry, language):
    from core.variant import Variant, construct

    def build(config):
        raise RuntimeError("needs a GPU")

    v = Variant(name="gpu-only", title="t", summary="s", build=build, plugin="odd")
    english = raised(lambda: construct(v))
    said = raised(lambda: construct(v), language)
    in_language(said, language, english)
    assert "RuntimeError: needs a GPU" in said and "odd" in said and "test_i18n_said.py:" in said


# ---- the conformance kit, whose checks run in child processes ----------------------------------------------------

@pytest.mark.parametrize("language", LANGUAGES)
def test_the_kits_report_is_made_in_the_callers_language_in_its_child_processes(language):
    """A check runs in a child process that knows the caller's language; its report and rows read in it."""
    from core.kit.conformance import check_variant
    from core.kit.report import report_rows
    from core.variant import Variant
    from tests.test_conformance import ReadsTheFuture

    variant = Variant(name="no-mask", title="t", summary="s", build=ReadsTheFuture)
    only = ["causal forward (perturbation)", "shapes, NaN and inf"]
    english = check_variant(variant, only=only)
    assert str(english).startswith("no-mask: FAILED (2 checks)")
    assert "causal forward (perturbation): forward reads the future: token" in str(english)
    with speaking(language):
        report = check_variant(variant, only=only)
        rows = {r[0]: r for r in report_rows(report)}
        text = str(report)
    in_language(text, language, str(english))
    assert text.startswith("no-mask") and "forward" in text and "T=" in text and "d_model=16" in text
    causal = lookup("causal forward (perturbation)", language)
    assert causal != "causal forward (perturbation)" and rows[causal][1] == lookup("FAIL", language) != "FAIL"
    assert rows[lookup("shapes, NaN and inf", language)][1] == lookup("pass", language) != "pass"
    in_language(rows[causal][3], language, english.found["causal forward (perturbation)"])


# ---- a plugin's worker: its faults, and a plugin switched off ----------------------------------------------------

def test_a_plugin_switched_off_is_said_to_each_reader_in_their_language():
    from core.lab.session import make_request
    from core.serve import plugins
    from core.serve.plugins import AppLab, PluginFault

    hang = [p for p in hostile_plugins.PLUGINS if p.__name__ == "hostile-hang"]
    lab = AppLab(load_registry(entry_points=False, plugins=hang))
    lab.guard.timeouts["view"] = 0.5
    try:
        for i, language in enumerate(["zh-CN", "es", None][: plugins.FAILURES_TO_SWITCH_OFF]):
            with speaking(language), pytest.raises(PluginFault) as err:
                lab.run(make_request(f"try {i}", "hostile-hang"))
            if language:  # the time limit's sentence, in the language of the request that waited for it
                in_language(str(err.value), language, "plugin 'hostile-hang' did not answer within 0.5 s; the lab "
                                                      "stopped it.")
                assert "'hostile-hang'" in str(err.value) and "0.5" in str(err.value)
        english = plugins.switched_off_text(lab.registry)
        assert english.startswith("plugin 'hostile-hang' is switched off for this run: it did not answer within 0.5 s")
        for language in LANGUAGES:  # switched off once, said to each reader in theirs
            with speaking(language):
                said = plugins.switched_off_text(lab.registry)
                with pytest.raises(PluginFault) as err:
                    lab.run(make_request("once more", "hostile-hang"))
            in_language(said, language, english)
            assert str(err.value) == said and "'hostile-hang'" in said and "3" in said
    finally:
        lab.guard.close()
    with speaking("es"):
        assert plugins.switched_off_text(load_registry(entry_points=False)) == "Ninguno: todos los complementos responden."


# ---- the server's own answers: middleware, the controls' checks, the apology ------------------------------------

def _answer(middleware, headers: list[tuple[bytes, bytes]]) -> tuple[int, str]:
    sent = []

    async def app(scope, receive, send):
        raise AssertionError("the middleware answers itself")

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(middleware(app)({"type": "http", "method": "POST", "path": "/x", "headers": headers}, receive, send))
    return sent[0]["status"], json.loads(sent[1]["body"])["detail"]


@pytest.mark.parametrize("headers, language", [
    ([(b"cookie", b"session=1; lab_lang=es")], "es"),  # the page's language, kept by the page in a cookie
    ([(b"accept-language", b"zh-CN,zh;q=0.9")], "zh-CN"),  # no cookie yet: the browser's
    ([(b"cookie", b"lab_lang=zh-CN"), (b"accept-language", b"es-MX")], "zh-CN"),  # Gradio's Settings switch wins
])
def test_a_request_the_middleware_refuses_is_told_why_in_its_pages_language(headers, language):
    from core.serve.limits import MAX_BODY_BYTES, TOO_LARGE, BodyLimit

    too_big = [(b"content-length", str(MAX_BODY_BYTES + 1).encode())]
    status, english = _answer(BodyLimit, too_big)
    assert status == 413 and english == TOO_LARGE  # a script: English, as documented
    status, said = _answer(BodyLimit, too_big + headers)
    assert status == 413 and said == lookup(TOO_LARGE, language)
    in_language(said, language, english)


def test_the_middlewares_language_cookie_is_the_one_the_page_writes():
    from core.serve.limits import COOKIE
    from core.ui import i18n as ui_i18n

    assert COOKIE == ui_i18n.COOKIE and f'"{COOKIE}=' in ui_i18n.LANG_SCRIPT


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("block, value, kept", [
    (gr.Slider(1, 8, step=1), 9, ["n_heads=9", "1", "8"]),
    (gr.Slider(1, 8, step=1), [4], ["n_heads", "1"]),
    (gr.Number(minimum=0), -1, ["n_heads=-1", "0"]),
    (gr.Radio(["none", "no-transpose"]), "transpose", ["n_heads='transpose'", "'none'", "'no-transpose'"]),
    (gr.Dataset(samples=[["a"], ["b"]], components=[gr.Textbox()]), 5, ["n_heads=5", "2"]),
])
def test_a_value_its_control_cannot_hold_is_said_in_the_readers_language(block, value, kept, language):
    from core.ui.inputs import check_value

    english = raised(lambda: check_value(block, "n_heads", value))
    said = raised(lambda: check_value(block, "n_heads", value), language)
    in_language(said, language, english)
    assert all(k in said for k in kept), said


@pytest.mark.parametrize("language", LANGUAGES)
def test_too_few_values_and_a_bugs_apology_are_said_in_the_readers_language(language):
    from types import SimpleNamespace

    from core.ui.blocks_seams import check_inputs
    from core.ui.common import APOLOGY, sentence_of

    fn = SimpleNamespace(inputs=[gr.Textbox(), gr.Slider(1, 8)], input_parameter_names=["sentence", "n_heads"])
    english = raised(lambda: check_inputs(fn, ["a"]))
    said = raised(lambda: check_inputs(fn, ["a"]), language)
    in_language(said, language, english)
    assert "sentence, n_heads" in said and "1" in said and "2" in said
    with speaking(language):
        apology = sentence_of(RuntimeError("torch internals"), "a test")
    assert apology == lookup(APOLOGY, language) != APOLOGY and "torch" not in apology


# ---- the Plugins tab and the page's static words -----------------------------------------------------------------

@pytest.mark.parametrize("language", LANGUAGES)
def test_the_plugins_tabs_tables_are_made_in_the_pages_language(registry, language):
    from core.ui.plugins_tab import tables

    english = tables(registry)
    with speaking(language):
        said = tables(registry)
    for en, table in zip(english, said, strict=True):
        assert all(h == "ms" or h != e for h, e in zip(table["headers"], en["headers"], strict=True)), table["headers"]
    variants = {row[0]: row for row in said[1]["data"]}
    assert variants["gqa"][1] == lookup("Grouped-query attention", language) != "Grouped-query attention"
    assert variants["gqa"][4] == lookup("ok", language)
    assert said[0]["data"] == [[*row[:4], row[4]] for row in english[0]["data"]]  # names, packages: as they are


def test_a_third_party_variants_words_stay_as_its_author_wrote_them():
    from core.kit.report import variant_rows
    from core.variant import Variant

    registry = load_registry(entry_points=False)
    for name, title in (("peeks", "<b>Peeks</b>"), ("same-words", "Attention")):  # (even words a msgid shares)
        registry.variants[name] = Variant(name=name, title=title, summary="s", build=lambda c: None, plugin="odd")
    with speaking("es"):
        rows = {row[0]: row for row in variant_rows(registry)}
    assert rows["peeks"][1] == "<b>Peeks</b>" and rows["same-words"][1] == "Attention"
    assert rows["gqa"][1] == lookup("Grouped-query attention", "es") != "Grouped-query attention"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_built_in_variants_words_have_every_language(registry, language):
    for v in registry.variants.values():
        for text in (v.title, v.summary, v.notes, *(o.help for o in v.options), *v.formulas.values()):
            assert lookup(text, language) != text, (v.name, text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_page_header_and_every_tab_title_are_keys_the_page_resolves_in_its_language(demo, language):
    from core.ui import i18n as ui_i18n
    from core.ui.app import TABS

    catalogue = ui_i18n.catalogue().translations[language]
    header = "# Attention Lab\nThe attention layer of GPT-style models, one stage at a time."
    titles = [__import__(m, fromlist=["TITLE"]).TITLE for m in TABS]
    for title in [*titles, header]:
        assert catalogue[ui_i18n.key(title)] == lookup(title, language) != title, title
    shown = {getattr(b.label, "key", b.label) for b in demo.blocks.values() if isinstance(b, gr.Tab)}
    assert {ui_i18n.key(t) for t in titles} <= shown  # each tab's title is a key, not English text
    assert any(b.value == str(ui_i18n.static(header)) for b in demo.blocks.values() if isinstance(b, gr.Markdown))
