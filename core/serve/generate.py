"""The Generate tab's words: the top-10 next words, one word with what the cache holds after it, several words.

Each takes raw UI/API values, checks them (generate_inputs) and caches its view. The tab imports only this
module, so the models and inputs (generate_inputs) and the cache's cost (cache_cost) are re-exported here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..i18n import current, mark, t
from ..lab import predict
from ..lab.cache_rows import cache_rows
from ..lab.session import switch
from ..lab.text import text_field
from ..lab.threads import one_thread
from ..mistakes import whole_in
from ..render import generate_views
from . import slots
from .cache_cost import CACHE_T, DECODE_SAVED, MAX_WINDOW, CacheTable, DecodeBench, cache_table, decode_bench
from .generate_inputs import (
    ENV,
    GPT2,
    MAX_SEED,
    MAX_TOKENS,
    MAX_TOP_K,
    TEMPERATURE,
    TINY,
    model_for,
    models,
    settings,
    token_ids,
)
from .views import served

POSITIONS = (-MAX_TOKENS, MAX_TOKENS - 1)  # what /next_words takes: -1 is the last token, -2 the one before, ...
MAX_WORDS = 32  # /generate draws at most this many words per call
VIEW_CACHE = 256
MESSAGES = {  # msgids (core.i18n)
    "next": mark("After '{word}' (position {position}) the likeliest next word is '{best}', with probability "
                 "{p:.3f}; with seed {seed} the word drawn would be '{drawn}' ({q:.3f})."),
    "next_actual": mark("After '{word}' (position {position}) the likeliest next word is '{best}', with probability "
                        "{p:.3f}; the sentence goes on with '{actual}', which the model gives {a:.3f}."),
    "step": mark("Added '{word}' (probability {p:.3f}, seed {seed}). Each layer's cache now holds {n} tokens: K and "
                 "V are each {shape}, {kib:.1f} KiB in all for this model ({per:,} bytes per token). This step ran "
                 "one token through the model; without a cache it would run all {n} again."),
    "generated": mark("{n} words in {ms:.0f} ms ({per:.1f} ms a word), {cache}: '{text}'"),
    "with_cache": mark("with the KV cache (one token run per step)"),
    "without_cache": mark("without a cache (the whole sentence run again each step)"),
}


# ---- the top-10 next words ------------------------------------------------------------------


@dataclass(frozen=True)
class NextWordsView:
    """The bars, one sentence saying what they show, and the /next_words JSON."""

    chart: dict[str, Any]
    summary: str
    payload: dict[str, Any]


def next_words(sentence: Any, position: Any, temperature: Any, top_k: Any, seed: Any, model: Any = TINY) -> NextWordsView:
    """Raw UI/API values -> the (cached) top-10 view at `position` (-1 = the last token)."""
    model, sentence, temperature, top_k, seed = settings(model, sentence, temperature, top_k, seed)
    position = whole_in("position", position, *POSITIONS)
    return served(_next_words(model, sentence, position, temperature, top_k, seed, current()))


@lru_cache(maxsize=VIEW_CACHE)
def _next_words(name: str, sentence: str, position: int, temperature: float, top_k: int | None, seed: int,
                language: str) -> NextWordsView:
    """The view in `language` (the current one), drawn from the numbers _next_numbers computed once."""
    payload = _next_numbers(name, sentence, position, temperature, top_k, seed)
    word, best, actual = payload["tokens"][payload["position"]], payload["candidates"][0], payload["actual"]
    if actual is None:
        drawn = payload["drawn"]
        summary = t(MESSAGES["next"], word=word, position=payload["position"], best=best["word"],
                    p=best["probability"], seed=seed, drawn=drawn["word"], q=drawn["probability"])
    else:
        summary = t(MESSAGES["next_actual"], word=word, position=payload["position"], best=best["word"],
                    p=best["probability"], actual=actual["word"], a=actual["probability"])
    chart = generate_views.next_words(payload["candidates"], word, payload["position"],
                                      None if actual is None else actual["word"])
    return NextWordsView(chart, summary, payload)


@lru_cache(maxsize=VIEW_CACHE)
def _next_numbers(name: str, sentence: str, position: int, temperature: float, top_k: int | None,
                  seed: int) -> dict[str, Any]:
    """The /next_words JSON, computed once however many languages ask."""
    with slots.CPU:  # the page's events skip the queue: the semaphore bounds their CPU (cached views take none)
        return _next_words_payload(name, sentence, position, temperature, top_k, seed)


def _next_words_payload(name: str, sentence: str, position: int, temperature: float, top_k: int | None,
                        seed: int) -> dict[str, Any]:
    model, tokenizer, _ = model_for(name)
    ids = token_ids(tokenizer, sentence)
    with one_thread():
        nw = predict.next_words(model, tokenizer, ids, position, temperature, top_k)
        drawn = predict.generate_word(model, tokenizer, ids[: nw.position + 1], temperature, top_k, seed)
    candidates = [{"word": c.word, "token": c.token, "probability": c.probability} for c in nw.candidates]
    actual = None if nw.actual is None else {"word": nw.actual.word, "token": nw.actual.token,
                                             "probability": nw.actual.probability}
    return {
        "model": name, "tokens": nw.tokens, "position": nw.position, "temperature": temperature, "top_k": top_k,
        "seed": seed, "candidates": candidates, "actual": actual,
        "drawn": {"word": drawn.word, "token": drawn.token, "probability": drawn.probability},
    }


def positions(sentence: Any, model: Any = TINY) -> tuple[int, int]:
    """Where the position slider opens (the last token) and its top end (at least 1: a slider needs a range)."""
    _, tokenizer, _ = model_for(model)
    last = max(0, min(len(tokenizer.encode(text_field("sentence", sentence))), MAX_TOKENS) - 1)
    return last, max(last, 1)


def example_position(example: str) -> int:
    """The last token of an example written with spaces between its tokens (no model loaded to count them)."""
    return len(example.split()) - 1


# ---- one word, and what the cache holds after it ------------------------------------------------------


@dataclass(frozen=True)
class StepView:
    """The sentence with the new word, its attention rows, the cache's rows, one sentence, the JSON."""

    sentence: str
    rows: dict[str, Any]
    cache: dict[str, Any]
    summary: str
    payload: dict[str, Any]


def step(sentence: Any, temperature: Any, top_k: Any, seed: Any, model: Any = TINY) -> StepView:
    """Raw values -> one seeded word appended; the same settings give the same word in every browser."""
    return served(_step(*settings(model, sentence, temperature, top_k, seed), current()))


@lru_cache(maxsize=VIEW_CACHE)
def _step(name: str, sentence: str, temperature: float, top_k: int | None, seed: int, language: str) -> StepView:
    """The view in `language` (the current one), drawn from the word and cache _stepped computed once."""
    st, kept, spaced = _stepped(name, sentence, temperature, top_k, seed)
    grown = sentence.rstrip() + " " + st.word.strip() if spaced else sentence + st.word
    seen = st.tokens[st.attention_start:]
    rows = generate_views.attention_rows(seen, st.attention, st.word)
    cache = generate_views.cache_rows([st.tokens[p] for p in kept.positions], kept.keys, kept.values,
                                      kept.layer_shape, kept.kv_heads, kept.head_dim)
    summary = t(MESSAGES["step"], word=st.word, p=st.probability, seed=seed, n=len(kept.positions),
                shape=kept.layer_shape, kib=kept.cache_bytes / 1024, per=kept.bytes_per_token)
    payload = {
        "model": name, "sentence": grown, "tokens": st.tokens, "word": st.word, "token": st.token,
        "probability": st.probability, "seed": seed, "attention_tokens": seen,
        "attention": [[[round(w, 6) for w in row] for row in layer] for layer in st.attention], "cache_length": st.cache_length,
        "cache_shape": list(kept.layer_shape), "cache_bytes": kept.cache_bytes,
        "bytes_per_token": kept.bytes_per_token,
    }
    return StepView(grown, rows, cache, summary, payload)


@lru_cache(maxsize=VIEW_CACHE)
def _stepped(name: str, sentence: str, temperature: float, top_k: int | None, seed: int) -> tuple:
    """(the seeded word, the cache after it, whether the model's words are spaced): computed once."""
    model, tokenizer, spaced = model_for(name)
    ids = token_ids(tokenizer, sentence)
    with one_thread():
        st = predict.generate_word(model, tokenizer, ids, temperature, top_k, seed)
        kept = cache_rows(model, [*ids, st.token])
    return st, kept, spaced


# ---- several words: /generate ---------------------------------------------------------------------


@dataclass(frozen=True)
class GenerationView:
    """One table row per word, one sentence, the /generate JSON."""

    table: list[list]
    headers: list[str]  # the table's column names
    summary: str
    payload: dict[str, Any]


def generation(sentence: Any, n_words: Any, temperature: Any, top_k: Any, seed: Any, use_cache: Any,
               model: Any = TINY) -> GenerationView:
    """Raw values -> n_words seeded words, timed step by step (not cached: the seconds are measured now)."""
    model, sentence, temperature, top_k, seed = settings(model, sentence, temperature, top_k, seed)
    n = whole_in("n_words", n_words, 1, MAX_WORDS)
    use_cache = switch("use_cache", use_cache)  # (the lab's check of a checkbox value, as every tab's)
    net, tokenizer, _ = model_for(model)
    ids = token_ids(tokenizer, sentence)
    with one_thread():
        g = predict.generate(net, tokenizer, ids, n, temperature, top_k, seed, use_cache)
    table = generate_views.step_rows(g.words, g.probabilities, g.cache_lengths, g.computed, g.seconds)
    total = sum(g.seconds)
    summary = t(MESSAGES["generated"], n=n, ms=total * 1000, per=total * 1000 / n, text=g.text,
                cache=t(MESSAGES["with_cache" if use_cache else "without_cache"]))
    payload = {"model": model, "temperature": temperature, "top_k": top_k, "seed": seed, **dataclasses.asdict(g)}
    return GenerationView(table, generate_views.steps_headers(), summary, payload)


__all__ = [
    "CACHE_T", "DECODE_SAVED", "ENV", "GPT2", "MAX_SEED", "MAX_TOKENS", "MAX_TOP_K", "MAX_WINDOW", "MAX_WORDS",
    "MESSAGES", "POSITIONS", "TEMPERATURE", "TINY", "VIEW_CACHE", "CacheTable", "DecodeBench", "GenerationView",
    "NextWordsView", "StepView", "cache_table", "decode_bench", "example_position", "generation", "models",
    "next_words", "positions", "step",
]
