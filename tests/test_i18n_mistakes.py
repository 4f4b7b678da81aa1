"""Every mistake a student can make, as the sentence the code really raises, reads as one Chinese sentence."""

from __future__ import annotations

import re

import pytest

from core.lab.tiny import tiny
from core.ui import i18n
from tests.i18n_checks import leftover
from tests.test_i18n import data_words

# ---- the mistakes a student makes, each as the sentence the code really raises --------------------------------


def _raised(call, language: str = "en") -> str:
    """The one sentence a ConfigError carries when call() refuses its values, asked by a page in `language`."""
    from core.config import ConfigError

    with i18n.speaking(language), pytest.raises(ConfigError) as err:
        call()
    return str(err.value)


def _mistakes() -> dict[str, object]:
    """Representative bad values for each place a student types or picks something; each raises ConfigError."""
    import gradio as gr

    from core.config import AttentionConfig, parse_options
    from core.lab import causality, experiments, model_stats, predict, steps, trained_view
    from core.lab.session import Lab, make_request
    from core.lab.text import text_field
    from core.mistakes import whole, whole_in
    from core.registry import load_registry
    from core.serve import generate
    from core.transfer import transfer_v2_to_v1
    from core.ui.inputs import check_value

    registry = load_registry(entry_points=False)
    lab = Lab(registry)
    attention = {"sentence": "the cat sat", "variant": "multi-head", "causal": True, "scaled": True, "n_heads": 2,
                 "d_model": 16, "seed": 0, "options": "{}"}

    def request(**changed):
        return lambda: lab.run(make_request(**{**attention, **changed}))

    run = lab.run(make_request(**attention))
    with gr.Blocks():
        slider, number = gr.Slider(1, 8, label="heads"), gr.Number(minimum=0, label="seed")
        checkbox, radio = gr.Checkbox(label="causal mask"), gr.Radio(["none", "no-transpose"], label="mistake")
    return {
        "heads do not divide": lambda: AttentionConfig(d_model=16, n_heads=3),
        "d_model too small": lambda: AttentionConfig(d_model=0, n_heads=1),
        "dropout out of range": lambda: AttentionConfig(d_model=16, n_heads=2, dropout=1.5),
        "empty sentence": request(sentence="   "),
        "nothing to attend over": request(sentence="\u200b\u200b"),
        "n_heads out of range": request(n_heads=0),
        "seed not whole": request(seed=3.5),
        "seed is text": request(seed="abc"),
        "seed negative": request(seed=-1),
        "causal not a switch": request(causal="yes"),
        "unknown variant": request(variant="multihead"),
        "variant too long": request(variant="x" * 500),
        "options not JSON": request(options="{window: 3"),
        "options not KEY=VALUE": lambda: parse_options(["window"]),
        "options a list": request(options="[1, 2]"),
        "unknown option": request(variant="sliding-window", options='{"windo": 3}'),
        "option too small": request(variant="sliding-window", options='{"window": 0}'),
        "option wrong type": request(variant="sliding-window", options='{"window": "wide"}'),
        "option with a GQA mismatch": request(variant="gqa", n_heads=4, options='{"n_kv_heads": 3}'),
        "position outside": lambda: causality.probe(lab, "the cat sat", 9, "dog"),
        "replacement empty": lambda: causality.probe(lab, "the cat sat", 1, " "),
        "replacement too long": lambda: causality.probe(lab, "the cat sat", 1, "x" * 500),
        "step head missing": lambda: steps.stages(run, 9),
        "tiny model: empty": lambda: trained_view.trained_view(""),
        "tiny model: too long": lambda: trained_view.trained_view("the fox " * 200),
        "tiny model: no such head": lambda: trained_view.layer_panel("the fox slept .", 5, 9),
        "steps out of range": lambda: experiments.check_params("mask", 5, 0),
        "preset unknown": lambda: model_stats.model_size(registry, "gpt5", "gqa", 4, 256),
        "mistake unknown": lambda: transfer_v2_to_v1(None, None, mistake="transpose-twice"),
        "whole number": lambda: whole("layer", "two"),
        "whole in range": lambda: whole_in("head", 12, 0, 3),
        "text field": lambda: text_field("sentence", 12),
        "lone surrogate": lambda: text_field("sentence", "a \ud800 b"),
        "slider out of range": lambda: check_value(slider, "n_heads", 12),
        "number not finite": lambda: check_value(number, "seed", float("nan")),
        "checkbox not a switch": lambda: check_value(checkbox, "causal", "on"),
        "radio not a choice": lambda: check_value(radio, "mistake", "transpose"),
        "generate: no words": lambda: predict._ids(type("T", (), {"encode": lambda self, s: []})(), ""),
        "generate: position": lambda: predict._position(7, 3),
        "generate: temperature": lambda: predict._check_temperature(-1.0),
        "generate: model not offered": lambda: generate.next_words("the fox", -1, 1.0, 0, 0, "gpt5"),
        "generate: GPT-2 not switched on": lambda: _without_gpt2(lambda: generate.step("the fox", 1.0, 0, 0,
                                                                                       generate.GPT2)),
        "generate: sentence too long": lambda: generate.next_words("the fox " * 100, -1, 1.0, 0, 0),
        "generate: temperature out of range": lambda: generate.step("the fox", 5.0, 0, 0),
        "generate: temperature is text": lambda: generate.next_words("the fox", -1, "hot", 0, 0),
        "generate: top_k out of range": lambda: generate.next_words("the fox", -1, 1.0, 500, 0),
        "generate: position outside": lambda: generate.next_words("the fox", 5, 1.0, 0, 0),
        "generate: blank sentence": lambda: generate.step("   ", 1.0, 0, 0),
        "generate: n_words out of range": lambda: generate.generation("the fox", 100, 1.0, 0, 0, True),
        "generate: use_cache not a switch": lambda: generate.generation("the fox", 3, 1.0, 0, 0, "yes"),
        "generate: no words asked of the model": lambda: predict.generate(*tiny(), "the fox", n_words=0),
        "generate: preset unknown": lambda: generate.cache_table("gpt5", 4, 256, 1024),
        "generate: n_kv_heads does not divide": lambda: generate.cache_table("gpt2-small", 5, 256, 1024),
        "generate: T not offered": lambda: generate.cache_table("gpt2-small", 4, 256, 1000),
    }


def _without_gpt2(call):
    """call() in an app started without ATTENTION_LAB_GPT2 (the GPT-2 choice switched off)."""
    import os
    from unittest import mock

    from core.serve import generate

    with mock.patch.dict(os.environ, {generate.ENV: ""}):
        return call()


MISTAKES = _mistakes()
WORDS = data_words()


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_a_students_mistake_reads_as_one_chinese_sentence(mistake):
    chinese = _raised(MISTAKES[mistake], "zh-CN")  # made in Chinese where it is raised (core.i18n.t)
    english = _raised(MISTAKES[mistake])
    left = [w for w in leftover(chinese) if w.lower() not in WORDS]  # an example sentence stays as it is
    assert re.search(r"[\u4e00-\u9fff]", chinese) and not left, (english, chinese)
