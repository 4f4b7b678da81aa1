"""The lesson steps on a real model (core.lab.real_lessons), laid out for a lesson's screen: the chapter's sentence
in a Chinese-capable model (where 它 looks, layer × head; the head that looks hardest at 违约金, zeroed), and the
attention sink (each head's weight on the first token; the loss without it). Each view is a layer × head map."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..i18n import current, mark, t
from ..lab.real_lessons import attention_sink, pronoun_heads
from ..render import matrix, scales
from ..render.web import stamp
from . import real_models

CHAPTER = "合同违约金过高，它可能"  # the chapter's sentence, up to the word to predict
SINK = {real_models.TINY: "the fox that the child saw was hungry , so the fox slept .",  # the tiny model's words
        "": "The cat sat on the mat because it was tired, and the dog that chased it ran away"}
MESSAGES = {
    "no_model": mark("No Chinese-capable model is configured in this app, so this step has nothing to run. To see "
                     "it, fetch one once (`hf download Qwen/Qwen2.5-0.5B`), start the app with "
                     "ATTENTION_LAB_MODELS=Qwen/Qwen2.5-0.5B and open this step again."),
    "chapter": mark("**{model}**: from 它, layer {layer} head {head} looks hardest at 违约金 (weight {weight:.2f}; "
                    "the mean over every head is {mean:.2f}). Zeroed, the likeliest next word '{before}' "
                    "(p = {p:.2f}) becomes '{after}' (p = {q:.2f}; '{before}' now {kept:.2f})."),
    "chapter_title": mark("weight of 它's row on 违约金"),
    "sink": mark("**{model}**: every head's mean weight on the first token '{first}' is {mean:.2f} (the largest, "
                 "layer {layer} head {head}: {top:.2f}). Barred from it, every later token in every layer: the loss "
                 "goes from {intact:.2f} to {without:.2f} bits per token."),
    "sink_title": mark("mean weight on the first token"),
    "hover": mark("{q}, {k}: {value}"),
}


def _grid(values: np.ndarray, title: str, kind: str) -> dict:
    """(L, H) numbers as one heatmap: a row per layer (L0, L1, ...), a column per head (H0, ...), as the model view
    names them. Its stamp names the numbers, not the words: the same drawing in every language (as every view's)."""
    L, H = values.shape
    rows, cols = [f"L{la}" for la in range(L)], [f"H{h}" for h in range(H)]
    scale = scales.weight_scale(0.0, max(float(values.max()), 1e-6))
    data = matrix.heatmaps(rows, [values], [title], scale=scale, cols=cols, labels={"hover": t(MESSAGES["hover"])},
                           max_columns=1)
    data["stamp"] = stamp(kind, rows, cols, np.round(values, 6).tolist())
    return data


def chapter_step(sentence: str | None = None) -> tuple[dict | None, str]:
    """(the layer × head map of 它's weight on 违约金, the measured sentence), or (None, how to configure a model)."""
    name = real_models.chinese_model()
    if name is None:
        return None, t(MESSAGES["no_model"])
    return _chapter(name, real_models.source(name), sentence or CHAPTER, current())


@lru_cache(maxsize=16)
def _chapter(name: str, source: str, sentence: str, language: str) -> tuple[dict, str]:
    m = real_models.loaded(name)
    with real_models.computing():
        r = pronoun_heads(m.model, m.tokenizer, sentence)
    grid = r.on_noun.numpy()
    text = t(MESSAGES["chapter"], model=m.label, layer=r.best[0], head=r.best[1], weight=float(grid.max()),
             mean=float(grid.mean()), before=r.next_intact[0], p=r.next_intact[1], after=r.next_zeroed[0],
             q=r.next_zeroed[1], kept=r.intact_word_zeroed)
    return _grid(grid, t(MESSAGES["chapter_title"]), "real-chapter"), text


def sink_model(wanted: Any = None) -> str:
    """The model the sink step runs: the one named, else the first real model offered, else the tiny model."""
    offered = real_models.names()
    if wanted not in (None, ""):
        if wanted not in offered:
            real_models.loaded(wanted)  # its own sentence, with the choices
        return str(wanted)
    return next((n for n in offered if n != real_models.TINY), real_models.TINY)


def sink_step(sentence: str | None, model: Any = None) -> tuple[dict, str]:
    """(the layer × head map of the weight on the first token, the measured sentence with the loss without it); no
    sentence: one the model reads (the tiny model knows only its corpus' words)."""
    name = sink_model(model)
    sentence = sentence or SINK.get(name, SINK[""])
    return _sink(name, real_models.source(name), sentence, current())


@lru_cache(maxsize=16)
def _sink(name: str, source: str, sentence: str, language: str) -> tuple[dict, str]:
    m = real_models.loaded(name)
    real_models.ids_of(m, sentence)  # a sentence past the token limit: refused in one sentence
    with real_models.computing():
        r = attention_sink(m.model, m.tokenizer, sentence)
    grid = r.on_first.numpy()
    flat = int(grid.argmax())
    layer, head = divmod(flat, grid.shape[1])
    text = t(MESSAGES["sink"], model=m.label, first=r.tokens[0], mean=float(grid.mean()), layer=layer, head=head,
             top=float(grid.max()), intact=r.loss_intact, without=r.loss_without)
    return _grid(grid, t(MESSAGES["sink_title"]), "sink"), text

