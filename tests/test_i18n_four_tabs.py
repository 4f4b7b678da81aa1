"""Mistakes & interventions, Generate, Experiments and Cost answer a page in its own language: each view asked in
English, then Chinese, then Spanish comes back in that language (its sentences made there, from the catalogues),
with the same numbers; what costs time (a run, a model's forward pass) is computed once for all three."""

from __future__ import annotations

import re

import pytest

from core.i18n import speaking
from tests.i18n_checks import leftover
from tests.test_i18n import data_words

CJK = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*")
LANGUAGES = ("en", "zh-CN", "es")
# words only English writes: none of them may be left in a Spanish sentence (names, code and quoted words aside)
ENGLISH = {"the", "is", "are", "with", "without", "must", "choose", "which", "when", "after", "before", "word",
           "words", "weight", "layer", "head", "heads", "step", "steps", "loss", "cache", "sentence", "not", "of",
           "and", "on", "in", "from", "its", "it", "one", "this", "that", "to", "or"}


def chinese(text: str) -> bool:
    """Chinese, no English word left (the model's words, names, numbers, code and quoted words aside)."""
    words = data_words()
    return bool(CJK.search(text)) and not [w for w in leftover(text) if w.lower() not in words]


def spanish(text: str) -> bool:
    """No word only English writes is left (code spans, quoted words and KEY=VALUE fields aside)."""
    bare = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"|“[^”]*”|\b\w+=\S*", " ", text)
    return not ENGLISH & {w.lower() for w in re.findall(r"[A-Za-z]+", bare)}


def numbers(text: str) -> list[str]:
    return NUMBER.findall(text)


def asked(fn, *args):
    """fn(*args) as a page in each language asks it: English, then Chinese, then Spanish."""
    out = {}
    for language in LANGUAGES:
        with speaking(language):
            out[language] = fn(*args)
    return out


def texts(value) -> list[str]:
    """Every string a drawn view holds for a reader (titles, axes, legends, hovers, notes)."""
    skip = {"rows", "cols", "tokens", "stamp", "kind", "values", "blocked", "extra", "f32", "u8", "shape", "swatch",
            "categories", "colors", "short", "x", "y", "type"}
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() if k not in skip or isinstance(v, dict) for t in texts(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in texts(v)]
    return []


# ---- Mistakes & interventions -------------------------------------------------------------------------------------


def test_the_cards_come_in_each_language_with_the_same_numbers_and_the_code_as_written():
    from core.serve import chapter

    cards = asked(lambda: chapter.failure_modes()[0])
    for en, zh, es in zip(cards["en"], cards["zh-CN"], cards["es"], strict=True):
        assert en.key == zh.key == es.key
        assert (en.wrong_code, en.right_code, en.error) == (zh.wrong_code, zh.right_code, zh.error) == (
            es.wrong_code, es.right_code, es.error)  # code, and what torch raised, as they are
        for field in ("title", "effect", "check", "note"):
            e, z, s = getattr(en, field), getattr(zh, field), getattr(es, field)
            if not e:
                continue
            assert z != e and s != e and chinese(z) and spanish(s), (en.key, field, z, s)
            assert numbers(z) == numbers(e) == numbers(s), (en.key, field)  # the same measurement, once
        if en.error:  # the check quotes torch's own message in every language
            assert f"`{en.error}`" in zh.check and f"`{en.error}`" in es.check
        assert [h["title"] for h in es.weights["heads"]][-1] == "con la corrección"  # the weights' titles, legend
        assert [h["title"] for h in zh.weights["heads"]][-1] == "用修正后的代码"  # and hovers too
        assert es.weights["labels"]["legend"][1]["text"] == "enmascarado con -inf: peso exactamente 0"
        assert es.weights["labels"]["hover"] == "consulta '{q}' ({i}) → clave '{k}' ({j}): peso {value}"
        assert chinese(zh.weights["labels"]["legend"][0]["text"])
    softmax = {lang: next(c for c in cards[lang] if c.key == "softmax-dim") for lang in LANGUAGES}
    assert softmax["es"].title == "Softmax sobre la dimensión equivocada" and softmax["zh-CN"].title == "在错误的维度上做 softmax"
    assert softmax["es"].check.startswith("La comprobación: cada fila suma 1")


def test_the_cards_json_speaks_the_callers_language_and_keeps_its_names_and_numbers():
    from core.serve import chapter

    data = asked(lambda: chapter.failure_modes()[1])
    for en, es in zip(data["en"], data["es"], strict=True):
        assert (en["key"], en["wrong_code"], en["tokens"], en["wrong"], en["right"]) == (
            es["key"], es["wrong_code"], es["tokens"], es["wrong"], es["right"])
        assert en["title"] != es["title"] and es["check_wrong"]["passed"] == en["check_wrong"]["passed"]


def test_the_interventions_come_in_each_language_from_one_measurement(monkeypatch):
    from core.serve import chapter

    calls = []
    real = chapter.interventions_payload
    monkeypatch.setattr(chapter, "interventions_payload", lambda *a: (calls.append(a), real(*a))[1])
    sentence = "这份报告中的指标过高，它可能"  # a sentence no other test asks: measured here
    views = asked(chapter.interventions, sentence, "uniform")
    assert calls == [(sentence, "uniform")]  # the typed sentence's predictions: computed once, worded three times
    en, zh, es = views["en"], views["zh-CN"], views["es"]
    assert en.payload == zh.payload == es.payload  # the API's names and numbers, as documented
    for field in ("headline", "measured", "prediction"):  # (the prediction's first line: the next line, how the
        e, z, s = (getattr(v, field).splitlines()[0] for v in (en, zh, es))  # sentence was read, is the Attention tab's)
        assert chinese(z.replace("it may", "").replace("may", "")) and z != e, (field, z)  # (the corpus's pair)
        assert s != e and sorted(numbers(s)) == sorted(numbers(e)) == sorted(numbers(z)), (field, s)  # (any order)
    assert es.headline.startswith("Una cabeza puede parecer llamativa e importar poco.")
    assert "hacer uniformes sus pesos" in es.headline and "把它的权重变成均匀分布" in zh.headline  # the ablation, in words
    assert es.headers[:3] == ["cabeza", "nombre (texto reservado)", "peso medio en su patrón"]
    assert all(chinese(h.replace("it may", "")) for h in zh.headers)
    for e, z, s in zip(en.table, zh.table, es.table, strict=True):
        assert e[3:] == z[3:] == s[3:]  # the measured numbers, the same cells
        assert re.fullmatch(r"capa \d cabeza \d", s[0]) and re.fullmatch(r"第 \d 层 头 \d", z[0])
    chart = {lang: views[lang].chart for lang in LANGUAGES}
    assert [p["title"] for p in chart["es"]["panels"]][:2] == ["Peso medio en su patrón",
                                                               "Pérdida reservada: aumento al quitarla"]
    assert all(CJK.search(p["title"]) for p in chart["zh-CN"]["panels"])
    assert chart["es"]["panels"][0]["x"]["categories"] == [r[0] for r in es.table]


def test_an_ablation_not_offered_is_one_sentence_in_each_language():
    from core.config import ConfigError
    from core.serve import chapter

    said = {}
    for language in LANGUAGES:
        with speaking(language), pytest.raises(ConfigError) as err:
            chapter.interventions("合同 违约金 过高 ， 它 可能", "half")
        said[language] = str(err.value)
    assert said["en"] == "mode='half' is not one of the choices; choose 'zero' or 'uniform'"
    assert chinese(said["zh-CN"]) and said["es"] == "mode='half' no es una de las opciones; elige 'zero' o 'uniform'"


# ---- Generate --------------------------------------------------------------------------------------------------


def test_the_next_words_come_in_each_language_from_one_forward_pass(monkeypatch):
    from core.lab import predict
    from core.serve import generate

    calls = []
    real = predict.next_words
    monkeypatch.setattr(predict, "next_words", lambda *a, **k: (calls.append(a), real(*a, **k))[1])
    views = asked(generate.next_words, "a bear went to the river", 3, 1.0, 0, 4)
    assert len(calls) == 1  # the numbers once; the words per language
    en, zh, es = views["en"], views["zh-CN"], views["es"]
    assert en.payload == zh.payload == es.payload
    assert chinese(zh.summary) and spanish(es.summary) and numbers(es.summary) == numbers(en.summary)
    assert es.summary.startswith("Después de 'to' (posición 3) la palabra siguiente más probable es")
    assert es.chart["panels"][0]["title"].startswith("Qué viene después de 'to' (posición 3)")
    assert [e["text"] for e in es.chart["legend"]][0] == "probabilidad"
    assert chinese(zh.chart["panels"][0]["title"]) and zh.chart["panels"][0]["x"]["label"] == "下一个词"


def test_one_generated_word_and_the_cache_it_grows_come_in_each_language():
    from core.serve import generate

    views = asked(generate.step, "the fox that the child saw", 1.0, 0, 2)
    en, zh, es = views["en"], views["zh-CN"], views["es"]
    assert en.sentence == zh.sentence == es.sentence and en.payload == es.payload
    assert chinese(zh.summary) and spanish(es.summary) and numbers(es.summary) == numbers(en.summary)
    assert es.rows["labels"]["x"] == "token anterior (clave)" and es.cache["labels"]["y"] == "token"
    assert es.cache["labels"]["note"].startswith("Cada token añade una fila a K y otra a V en cada capa")
    assert CJK.search(zh.cache["labels"]["note"]) and CJK.search(zh.rows["heads"][0]["title"])
    assert es.cache["heads"][0]["title"].startswith("K · capa 0 ")
    many = asked(generate.generation, "the fox", 2, 1.0, 0, 2, False)
    assert many["es"].headers == ["paso", "palabra", "probabilidad", "claves en la caché de cada capa",
                                  "tokens que pasan por el modelo", "ms"]
    assert "sin caché (toda la frase procesada de nuevo en cada paso)" in many["es"].summary
    assert chinese(many["zh-CN"].summary.replace(many["zh-CN"].payload["text"], ""))


def test_the_cost_of_the_cache_and_the_saved_decode_benchmark_come_in_each_language():
    from core.serve import generate

    table = asked(generate.cache_table, "gpt2-small", 4, 256, 1024)
    assert table["en"].rows == table["zh-CN"].rows == table["es"].rows  # counted once, on the meta device
    assert table["es"].summary.startswith("Tras T = 1024 tokens, por secuencia, fp16.")
    assert all(chinese(h) for h in table["zh-CN"].headers) and table["es"].headers[0] == "variante"
    bench = asked(generate.decode_bench)
    assert bench["en"].rows == bench["es"].rows
    assert bench["es"].caption.startswith("Medido con `attention-lab bench --decode` en la máquina de este proyecto")
    assert numbers(bench["es"].caption) == numbers(bench["en"].caption) == numbers(bench["zh-CN"].caption)
    assert bench["es"].chart["panels"][0]["title"].startswith("Tiempo por token generado")
    assert chinese(bench["zh-CN"].chart["panels"][0]["title"]) and bench["es"].headers[0] == "T (contexto)"


GENERATE_MISTAKES = [  # (what the student did, the call) of this area's mistakes
    ("a model not offered", lambda g: g.next_words("the fox", -1, 1.0, 0, 0, "gpt5")),
    ("a preset not offered", lambda g: g.cache_table("gpt5", 4, 256, 1024)),
    ("a length not offered", lambda g: g.cache_table("gpt2-small", 4, 256, 1000)),
    ("a temperature out of range", lambda g: g.step("the fox", 5.0, 0, 0)),
    ("a sentence too long", lambda g: g.next_words("the fox " * 100, -1, 1.0, 0, 0)),
    ("a position outside the sentence", lambda g: g.next_words("the fox", 5, 1.0, 0, 0)),
    ("use_cache not a switch", lambda g: g.generation("the fox", 3, 1.0, 0, 0, "yes")),
]


@pytest.mark.parametrize("what, call", GENERATE_MISTAKES, ids=[m[0] for m in GENERATE_MISTAKES])
def test_a_generate_mistake_is_one_sentence_in_each_language(what, call):
    from core.config import ConfigError
    from core.serve import generate

    said = {}
    for language in LANGUAGES:
        with speaking(language), pytest.raises(ConfigError) as err:
            call(generate)
        said[language] = str(err.value)
    assert said["es"] != said["en"] and spanish(said["es"]), said["es"]
    assert numbers(said["es"]) == numbers(said["en"]) and chinese(said["zh-CN"]), said


def test_a_training_refused_is_said_in_the_callers_language():
    from core.config import ConfigError
    from core.lab import experiments as ex
    from core.serve.runs import Turns

    turns = Turns(max_waiting=0)
    with turns.turn("someone"):
        for language, start in (("zh-CN", "你已经有一个训练"), ("es", "Ya tienes un entrenamiento")):
            with speaking(language), pytest.raises(ConfigError, match=f"^{start}"), turns.turn("someone"):
                pass
    with speaking("es"), pytest.raises(ConfigError, match=r"^steps=5 está fuera de rango; elige de 10 a 1000$"):
        ex.check_params("mask", 5, 0)


# ---- Experiments and Cost ----------------------------------------------------------------------------------------


SMALL = {"mask": dict(steps=20, context_length=8, d_model=16, n_heads=2, eval_every=19, seed=44),
         "scale": dict(steps=3, context_length=8, seed=44)}


def test_a_run_trains_once_and_its_chart_is_drawn_in_each_language(monkeypatch):
    from core.lab import experiments as ex
    from core.serve import experiments as served
    from core.serve import runs

    trained = []
    real = runs.apart
    monkeypatch.setattr(runs, "apart", lambda fn, *a: (trained.append(fn.__name__), real(fn, *a))[1])
    mask = ex.MaskParams(**SMALL["mask"])
    *_, run = served.shared_mask_experiment(mask)
    charts = {}
    for language in LANGUAGES:
        with speaking(language):
            (again,) = served.shared_mask_experiment(mask)  # the finished run, from the cache
            charts[language] = served.chart("mask", again)
    assert trained == ["mask_experiment"]  # one training, three languages
    for language in LANGUAGES:
        assert ("mask", mask, mask.steps, True, language) in served.DRAWN
    en, zh, es = charts["en"], charts["zh-CN"], charts["es"]
    assert [s["y"] for s in en["panels"][0]["series"]] == [s["y"] for s in es["panels"][0]["series"]]
    assert es["panels"][0]["title"] == "Pérdida honesta: cada posición predicha solo a partir de su prefijo"
    assert [e["text"] for e in es["legend"]] == ["con máscara: pérdida de entrenamiento",
                                                 "sin máscara: pérdida de entrenamiento (hace trampa)",
                                                 "con máscara: pérdida honesta", "sin máscara: pérdida honesta"]
    assert all(chinese(t) for t in texts(zh["panels"]) + texts(zh["legend"]) if not t.isdigit())


def test_the_experiments_tabs_words_come_in_each_language():
    from core.ui import experiments_tab as tab

    summary = {"steps_done": 40, "seconds": 1.5, "done": False, "stopped": True,
               "train_loss": {"masked": 2.1, "unmasked": 0.3}, "honest_loss": {"masked": 2.4, "unmasked": 4.9}}
    words = asked(tab._words, summary, False)
    assert words["es"] == ("**40 pasos en 1.5 s (detenido: no se guarda en caché).** Pérdida de entrenamiento: con "
                           "máscara 2.1, sin máscara **0.3** bits/palabra. Pérdida honesta: con máscara 2.4, sin "
                           "máscara **4.9** bits/palabra.")
    assert chinese(words["zh-CN"]) and numbers(words["zh-CN"]) == numbers(words["en"])
    scale = {"steps_done": 3, "seconds": 0.4, "done": True, "stopped": False, "max_weight": {"scaled": 0.3,
             "unscaled": 0.99}, "softmax_input_grad_norm": {"scaled": 0.1, "unscaled": 0.001}}
    words = asked(tab._scale_words, scale, True)
    assert words["es"].startswith("servido desde la caché. Peso máximo: escalado 0.3, sin escalar **0.99**")
    assert chinese(words["zh-CN"]) and numbers(words["zh-CN"]) == numbers(words["en"])


def test_the_cost_charts_and_the_saved_methods_words_come_in_each_language():
    from core.bench import cost
    from core.bench.longseq import METHOD
    from core.render.cost_plot import live_chart, saved_chart
    from core.ui import cost_tab

    saved = cost.load_saved()
    drawn = asked(saved_chart, saved)
    assert [p["title"] for p in drawn["es"]["panels"]] == ["Tiempo por llamada",
                                                          "Crecimiento del pico de memoria por llamada"]
    assert "FlexAttention, compilada, máscara por bloques" in [e["text"] for e in drawn["es"]["legend"]]
    assert all(CJK.search(p["title"]) for p in drawn["zh-CN"]["panels"])
    assert [s["y"] for s in drawn["en"]["panels"][0]["series"]] == [s["y"] for s in drawn["es"]["panels"][0]["series"]]
    rows = [{"T": 32, "naive_mib": 0.1, "windowed_mib": 0.05, "naive_ms": 1.0, "fused_ms": 0.5, "windowed_ms": 0.7}]
    live = asked(live_chart, rows, 8)
    assert live["es"]["panels"][1]["title"] == "Tiempo por llamada, medido ahora"
    assert live["es"]["panels"][0]["x"]["label"] == "longitud de la secuencia T (tokens)"
    said = asked(cost_tab.method, saved)
    assert saved["meta"]["method"] == METHOD  # the shipped run was measured the lab's way: said in the reader's words
    assert said["es"].startswith("Cómo se midió: B=1, d_model=128, 4 cabezas") and chinese(said["zh-CN"])
    other = {"meta": {"method": "one rep on a laptop"}}  # another run's own words stay as they were saved
    assert asked(cost_tab.method, other)["es"] == "Cómo se midió: one rep on a laptop"
    headers = asked(cost_tab.headers, cost_tab.SAVED_HEADERS)
    assert headers["es"] == ["camino", "T", "ms", "MiB de pico"] and headers["zh-CN"] == ["路径", "T", "ms", "峰值 MiB"]


# ---- through the app: what a Spanish page's requests get back ----------------------------------------------------------


def test_the_four_tabs_endpoints_answer_a_spanish_page_in_spanish(app_url):
    """The request's language reaches every handler, queued or not, a streamed training too; the JSON keeps its names."""
    from gradio_client import Client

    es = Client(app_url, headers={"Accept-Language": "es-ES,es;q=0.9"}, verbose=False, ssl_verify=False)
    cards = es.predict(api_name="/failure_modes")
    assert cards[0]["key"] == "softmax-dim" and cards[0]["title"] == "Softmax sobre la dimensión equivocada"
    headline, chart, table, *_ = es.predict("合同 违约金 过高 ， 它 可能", "zero", api_name="/interventions")
    assert headline.startswith("Una cabeza puede parecer llamativa") and table["headers"][0] == "cabeza"
    assert chart["panels"][0]["title"] == "Peso medio en su patrón"
    bars, summary, payload = es.predict("the fox that the child saw was", -1, 1.0, 0, 0, api_name="/next_words")
    assert summary.startswith("Después de 'was' (posición 6)") and payload["position"] == 6
    steps, said, _ = es.predict("the fox", 2, 1.0, 0, 0, True, api_name="/generate")
    assert steps["headers"][:2] == ["paso", "palabra"] and "2 palabras en" in said
    live, measured = es.predict(32, 8, api_name="/cost")
    assert live["panels"][1]["title"] == "Tiempo por llamada, medido ahora" and measured["headers"][0] == "T"
    drawn, words, data = es.predict(10, 7, api_name="/scale_experiment")  # a generator, in its worker threads
    assert data["steps_done"] == 10 and words.startswith("10 pasos en") and "Peso máximo: escalado" in words
    assert drawn["panels"][0]["title"] == "Mayor peso de una fila"
