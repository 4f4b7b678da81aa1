"""The Attention, Step through, Causality, Masking, Weight transfer and Model tabs in every language the app speaks:
each view, sentence and mistake is made in the request's language (no English left), and a cache never hands one
language's words to another."""

from __future__ import annotations

import json
import re

import pytest

from core import i18n
from core.config import ConfigError
from core.lab.session import Lab
from core.registry import load_registry
from tests.i18n_checks import leftover
from tests.test_i18n import data_words

OTHERS = [lang for lang in i18n.languages() if lang != i18n.SOURCE]
SENTENCE = "The cat sat on the mat because it was tired"
CHAPTER = "合同 违约金 过高 ， 它 可能 存在 风险"
# Words a Spanish page shows as English does (the same word, a name or a unit): a string made only of these may
# read the same in both languages.
SAME_IN_SPANISH = {"total", "embeddings", "mlp", "token", "tokens", "mib", "softmax", "one-hot", "nats", "autograd",
                   "multi-head", "gpt", "layernorm", "json", "api", "v1", "v2", "png"}
DATA_KEYS = {"rows", "cols", "tokens", "stamp", "kind", "values", "blocked", "extra", "f32", "u8", "shape", "type",
             "swatch", "__type__", "softmax", "scale", "categories_data"}  # numbers, tokens and codes, not words


@pytest.fixture(scope="module")
def registry():
    return load_registry(entry_points=False)


@pytest.fixture(scope="module")
def lab(registry):
    return Lab(registry)


def shown(lab, registry) -> dict[str, object]:
    """Every view, sentence and table of the six tabs (and a few mistakes), made in the current language."""
    from core.lab import model_stats, transfer_report
    from core.serve import trained, views
    from core.ui import attention_tab, transfer_tab

    out: dict[str, object] = {}
    v = views.attention(lab, SENTENCE)
    out["attention"] = [v.heatmaps, v.mask, v.check]
    out["attention gqa"] = views.attention(lab, SENTENCE, "gqa", n_heads=4, options='{"n_kv_heads": 2}').heatmaps
    out["attention, long"] = views.attention(lab, " ".join(["word"] * 30)).heatmaps  # colours fitted: its legend
    out["attention, no heads"] = views.attention(lab, "a b c", "single-head", n_heads=2).note
    out["attention, segmented"] = views.attention(lab, "这份合同中的违约金过高，它可能存在风险").note
    out["attention, cut"] = views.attention(lab, "a " * 80).note
    for name, options in (("sliding-window", '{"window": 3, "stride": 2}'), ("gqa", '{"n_kv_heads": 1}'),
                          ("multi-head", "{}")):
        s = views.step(lab, SENTENCE, name, name != "multi-head", True, 2, 16, 0, options, 1)
        out[f"step {name}"] = [s.sharing, *[formula for formula, _ in s.stages], *[data for _, data in s.stages]]
    s = views.step(lab, SENTENCE, "multi-head", False, False, 1, 16, 0, "{}", 0)
    out["step, no mask, not scaled"] = [s.sharing, *[formula for formula, _ in s.stages]]
    for causal in (True, False):
        c = views.causality(lab, SENTENCE, 3, "dog", causal)
        out[f"causality {causal}"] = [c.bars, c.dependency, c.summary]
    m = views.masking(lab, "The cat sat on the mat")
    out["masking"] = [m.three, m.three_summary, m.sqrt_d, m.sqrt_d_summary]
    tv = trained.trained(CHAPTER, 1, 0)
    out["trained"] = [tv.model, tv.selected, tv.roles]
    out["trained, unknown words"] = trained.trained("the zebra slept .", 0, 1).note

    class Ctx:
        pass

    ctx = Ctx()
    ctx.registry = registry
    for mistake in ("none", "no-transpose", "swap-query-key"):
        *tables, verdict, others, _payload = transfer_tab._outputs(ctx, 123, 3, 2, mistake)
        out[f"transfer {mistake}"] = [tables[0]["headers"], verdict, others["headers"], others["data"]]
    out["transfer, failed copy"] = transfer_report.v2_to_v1(123, 3, 4, "no-transpose").verdict
    parts, compare, summary, numbers = model_stats.model_size(registry, "gpt2-xl", "gqa", 4, 256)
    from core.serve.views import model_chart

    out["model"] = [parts, compare, summary, model_chart(numbers)]
    out["about"] = attention_tab._about(registry, "gqa")
    out["mistakes"] = [_raised(call) for call in _mistakes(lab)]
    return out


def _raised(call) -> str:
    with pytest.raises(ConfigError) as err:
        call()
    return str(err.value)


def _mistakes(lab):
    from core.lab import causality, steps, trained_view
    from core.lab.session import make_request
    from core.lab.text import text_field

    run = lab.run(make_request("the cat sat"))
    return [lambda: make_request("   "), lambda: make_request("a", causal="yes"),
            lambda: causality.probe(lab, "the cat sat", 9, "dog"), lambda: causality.probe(lab, "the cat sat", 1, " "),
            lambda: steps.stages(run, 9), lambda: trained_view.trained_view(""),
            lambda: trained_view.layer_panel("the fox slept .", 5, 9), lambda: text_field("sentence", "a \ud800 b")]


def strings(value, path="") -> list[tuple[str, str]]:
    """(where, text) for every text a person reads in a value (tokens, numbers and codes left out)."""
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [s for k, v in value.items() if k not in DATA_KEYS for s in strings(v, f"{path}.{k}")]
    if isinstance(value, (list, tuple)):
        return [s for i, v in enumerate(value) for s in strings(v, f"{path}[{i}]")]
    return []


def english_words(text: str, words: set[str]) -> list[str]:
    """The words of text a reader of another language would read in English (names, the model's words excepted);
    typeset maths ($$...$$) is maths, but for the words in its \\text{...}."""
    maths = re.findall(r"\$\$(.*?)\$\$", text, re.S)
    text = " ".join([re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S),
                     *(said for m in maths  # (d_{\text{head}}: a name)
                       for said in re.findall(r"(?<!_\{)\\text\{([^}]*)\}", m))])
    return [w for w in leftover(text) if w.lower() not in words]


@pytest.fixture(scope="module")
def english(lab, registry):
    return shown(lab, registry)


@pytest.mark.parametrize("language", OTHERS)
def test_every_view_sentence_and_mistake_of_the_six_tabs_is_in_the_pages_language(lab, registry, english, language):
    with i18n.speaking(language):
        said = shown(lab, registry)
    words, left = data_words(), []
    for what, value in said.items():
        theirs = dict(strings(english[what]))
        for where, text in strings(value):
            english_text = theirs.get(where)
            if language == "zh-CN":  # no English word left (names, tokens and the model's words excepted)
                if english_words(text, words):
                    left.append(f"{what}{where}: {text[:120]}")
            elif text == english_text and [w for w in english_words(text, words) if w.lower() not in SAME_IN_SPANISH]:
                left.append(f"{what}{where}: {text[:120]}")  # still the English sentence
    assert not left, f"{len(left)} texts not in {language}:\n" + "\n".join(left[:30])


@pytest.mark.parametrize("language", OTHERS)
def test_a_view_asked_in_one_language_then_another_comes_back_in_each(lab, registry, language):
    """The caches (core.serve.views, the trained view, the transfer reports) keep each language's words apart."""
    from core.lab import transfer_report
    from core.serve import trained, views

    def labels():
        v = views.attention(lab, "the dog sat")
        return (v.heatmaps["labels"]["x"], v.mask["labels"]["title"], v.check,
                views.step(lab, "the dog sat", "gqa", True, True, 2, 16, 0, '{"n_kv_heads": 1}', 0).sharing,
                views.causality(lab, "the dog sat", 1, "cat").summary, views.masking(lab, "the dog sat").three_summary,
                trained.trained("the fox slept .", 0, 0).selected, transfer_report.v2_to_v1(7, 3, 2, "none").verdict,
                transfer_report.other_transfers(registry, 7)[1].title)

    first = labels()
    with i18n.speaking(language):
        theirs = labels()
    again = labels()
    with i18n.speaking(language):
        theirs_again = labels()
    assert first == again and theirs == theirs_again
    assert all(a != b for a, b in zip(first, theirs, strict=True)), list(zip(first, theirs, strict=True))
    with i18n.speaking(language):
        assert theirs[0] == i18n.t("key (attended to)") != "key (attended to)"


def test_the_typeset_formulas_keep_their_maths_and_look_up_their_words(lab):
    from core.lab import steps
    from core.lab.session import make_request

    run = lab.run(make_request(SENTENCE))
    by_language = {}
    for language in i18n.languages():
        with i18n.speaking(language):
            by_language[language] = {s.field: s for s in steps.stages(run, 0)}
    english = by_language["en"]
    assert english["masked"].latex == steps.LATEX["masked"]  # the English words, as before
    for language in OTHERS:
        masked = by_language[language]["masked"].latex
        maths = re.sub(r"\\text\{[^}]*\}", "", masked)
        assert maths == re.sub(r"\\text\{[^}]*\}", "", english["masked"].latex), (language, masked)
        assert masked != english["masked"].latex and "may attend" not in masked
        assert by_language[language]["q"].latex == english["q"].latex  # no words in it: the same maths
        assert by_language[language]["scores"].name != "scores" and by_language[language]["scores"].field == "scores"


def test_the_page_switches_a_variants_description_into_its_own_language(registry):
    from core.ui.attention_tab import _switch_js

    js = _switch_js(registry, ["gqa"])
    table = json.loads(re.search(r"const t = (\{.*\})\[name\], names", js, re.S).group(1))
    for name, row in table.items():
        assert set(row["about"]) == set(i18n.languages()), name
        for language in OTHERS:
            v = registry.variants[name]
            with i18n.speaking(language):
                assert row["about"][language] == "\n".join(i18n.lookup(x) for x in (v.summary, v.notes) if x)
    assert table["gqa"]["about"]["es"] != table["gqa"]["about"]["en"] != table["gqa"]["about"]["zh-CN"]
    assert "langs.find" in js and "t.about[said]" in js  # picked by the page's language, English when it has none


@pytest.mark.parametrize("language", OTHERS)
def test_the_attention_tabs_first_values_are_made_in_the_pages_language(demo, language):
    """A page in another language gets the tab's first values made anew in it; a Chinese page opens on the chapter's
    sentence, whose own change draws its views (so none are sent for the English one)."""
    from core.ui import attention_tab

    heatmaps = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "attention-heatmaps")
    (_, outputs, make), = [f for f in demo.lab_first if heatmaps in f[1]]
    with i18n.speaking(language):
        values = make()
    assert len(values) == len(outputs)
    if language in attention_tab.OPENS_ON:
        assert values[0] == {"__type__": "update"} and values[1] == {"__type__": "update"}  # gr.skip()
    else:
        assert values[0]["labels"]["x"] == i18n.lookup("key (attended to)", language) != "key (attended to)"
        assert values[1]["labels"]["title"] == i18n.lookup("Mask: which keys each query may attend to", language)
    check, about = values[2], values[4]
    with i18n.speaking(language):
        assert check == i18n.t("{rows}; weight above the diagonal: {future}", rows=i18n.t("every row sums to 1"),
                               future=i18n.t("0 in every row"))
    assert about and about != attention_tab._about(load_registry(), "multi-head")  # (made in English out here)


@pytest.mark.parametrize("language", OTHERS)
def test_the_six_tabs_static_texts_are_in_every_catalogue(demo, language):
    """Labels, help, Markdown and choices the browser shows in its own language (gr.I18n, core.ui.i18n.static)."""
    from core.ui import i18n as page

    keys = page.catalogue().translations_dict[language]
    words = data_words()
    mine = {"Attention", "Sentence", "causal mask", "divide scores by √d_head", "Variant (from the plugin registry)",
            "random, seeded", "trained tiny model", "Heads and band", "What changed", "What the curves show",
            "Verdict", "Where the parameters are", "Sentence (the tiny model's words)"}
    found = {text: keys[key] for key, text in page._ENGLISH.items() if text in mine}
    assert set(found) == mine
    assert all(found[t] != t for t in mine), found
    option = next(key for key, text in page._ENGLISH.items() if text.startswith("n_kv_heads: key/value heads"))
    assert keys[option].startswith("n_kv_heads") and keys[option] != page._ENGLISH[option]  # its name, then its help
    if language == "zh-CN":
        assert not english_words(keys[option], words), keys[option]
    intro = next(key for key, text in page._ENGLISH.items() if text.startswith("A 2-layer GPT trained"))
    assert "600" in keys[intro] and keys[intro] != page._ENGLISH[intro]
