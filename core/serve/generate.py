"""The Generate tab's glue: which models it offers, raw UI/API values checked in one sentence each, views cached.

The trained tiny model is always there. GPT-2 is offered only when ATTENTION_LAB_GPT2 names a folder
with a Hugging Face GPT-2 checkpoint (core.model.load_gpt2 reads it offline): without it there is no
such choice and nothing ever reaches for the network.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..config import ConfigError, choices_text, named, whole_in
from ..lab import predict
from ..lab.cache_rows import cache_rows
from ..lab.cache_view import compare
from ..lab.text import text_field
from ..lab.tiny import one_thread, tiny
from ..model import PRESETS, load_gpt2
from ..render import generate_views
from .views import served

ENV = "ATTENTION_LAB_GPT2"
TINY, GPT2 = "tiny model (trained here)", "GPT-2 (pretrained)"
DECODE_SAVED = Path(__file__).resolve().parents[1] / "assets" / "decode.json"
MAX_TOKENS = 128  # a prompt longer than this is refused (the tiny model reads 64; GPT-2's trace grows as T^2)
POSITIONS = (-MAX_TOKENS, MAX_TOKENS - 1)  # what /next_words takes: -1 is the last token, -2 the one before, ...
MAX_WORDS = 32  # /generate draws at most this many words per call
MAX_TOP_K = 100
MAX_SEED = 2**31 - 1
TEMPERATURE = (0.05, 3.0)  # 0 would be the argmax; top_k = 1 gives that
CACHE_T = (256, 512, 1024, 2048, 4096)  # tokens of context for the cache table (the benchmark's T's among them)
MAX_WINDOW = 8192
VIEW_CACHE = 256
MESSAGES = {
    "model": "{value} is not one of the models; choose {choices}",
    "gpt2_off": "GPT-2 is not switched on in this app; set ATTENTION_LAB_GPT2 to a local GPT-2 checkpoint "
                "folder and restart it",
    "long": "the sentence has {n} tokens; the Generate tab reads at most {most}, so shorten it",
    "temperature": "{value} must be a number from {low:g} to {high:g}; for the likeliest word every time, "
                   "set top_k to 1",
    "preset": "{value} is not one of the presets; choose {choices}",
    "T": "{value} is not one of the lengths; choose {choices}",
    "next": "After '{word}' (position {position}) the likeliest next word is '{best}', with probability "
            "{p:.3f}; with seed {seed} the word drawn would be '{drawn}' ({q:.3f}).",
    "next_actual": "After '{word}' (position {position}) the likeliest next word is '{best}', with probability "
                   "{p:.3f}; the sentence goes on with '{actual}', which the model gives {a:.3f}.",
    "step": "Added '{word}' (probability {p:.3f}, seed {seed}). Each layer's cache now holds {n} tokens: K and V "
            "are each {shape}, {kib:.1f} KiB in all for this model ({per:,} bytes per token). This step ran one "
            "token through the model; without a cache it would run all {n} again.",
    "generated": "{n} words in {ms:.0f} ms ({per:.1f} ms a word), {cache}: '{text}'",
    "with_cache": "with the KV cache (one token run per step)",
    "without_cache": "without a cache (the whole sentence run again each step)",
    "cache_numbers": "After T = {T} tokens, per sequence, fp16. Without a cache the step that predicts token "
                     "T+1 runs all T tokens and scores the whole T x T square again; with it, it runs one token "
                     "and scores one row.",
    "decode_caption": "Measured with `attention-lab bench --decode` on this project's machine ({machine}, "
                      "{cpus} CPUs, {threads} torch thread(s), torch `{torch}`, Python {python}). From T = {low} to "
                      "{high} the cached step grew {cached:.1f}x and the uncached one {uncached:.1f}x.",
    "decode_missing": "No measured decode benchmark ships with this copy; run `attention-lab bench --decode "
                      "--out core/assets`.",
}


def models() -> list[str]:
    """The model choices: the tiny model, and GPT-2 when ATTENTION_LAB_GPT2 is set (read at app start-up)."""
    return [TINY, GPT2] if os.environ.get(ENV, "").strip() else [TINY]


@lru_cache(maxsize=1)
def _gpt2(folder: str):
    return load_gpt2(folder)


def _model(name: Any):
    """(model, tokenizer, words joined by spaces?) for a model choice; ConfigError for one not offered."""
    if name == TINY:
        model, tokenizer = tiny()
        return model, tokenizer, True
    if name == GPT2:
        folder = os.environ.get(ENV, "").strip()
        if not folder:
            raise ConfigError(MESSAGES["gpt2_off"])
        model, tokenizer = _gpt2(os.path.expanduser(folder))
        return model, tokenizer, False
    raise ConfigError(MESSAGES["model"].format(value=named("model", name),
                                         choices=choices_text(f"'{m}'" for m in models())))


def _ids(tokenizer, sentence: str) -> list[int]:
    ids = tokenizer.encode(sentence)
    if len(ids) > MAX_TOKENS:
        raise ConfigError(MESSAGES["long"].format(n=len(ids), most=MAX_TOKENS))
    return ids


def _temperature(value: Any) -> float:
    low, high = TEMPERATURE
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or not low <= value <= high:
        raise ConfigError(MESSAGES["temperature"].format(value=named("temperature", value), low=low, high=high))
    return float(value)


def _top_k(value: Any) -> int | None:
    k = whole_in("top_k", value, 0, MAX_TOP_K)
    return k or None  # 0 = every word


def _settings(model: Any, sentence: Any, temperature: Any, top_k: Any, seed: Any) -> tuple:
    _model(model)  # a model not offered is named before anything else
    return (model, text_field("sentence", sentence), _temperature(temperature), _top_k(top_k),
            whole_in("seed", seed, 0, MAX_SEED))


# ---- the top-10 next words ------------------------------------------------------------------


@dataclass(frozen=True)
class NextWordsView:
    """The bars, one sentence saying what they show, and the /next_words JSON."""

    chart: dict[str, Any]
    summary: str
    payload: dict[str, Any]


def next_words(sentence: Any, position: Any, temperature: Any, top_k: Any, seed: Any, model: Any = TINY) -> NextWordsView:
    """Raw UI/API values -> the (cached) top-10 view at `position` (-1 = the last token)."""
    model, sentence, temperature, top_k, seed = _settings(model, sentence, temperature, top_k, seed)
    position = whole_in("position", position, *POSITIONS)
    return served(_next_words(model, sentence, position, temperature, top_k, seed))


@lru_cache(maxsize=VIEW_CACHE)
def _next_words(name: str, sentence: str, position: int, temperature: float, top_k: int | None,
                seed: int) -> NextWordsView:
    model, tokenizer, _ = _model(name)
    ids = _ids(tokenizer, sentence)
    with one_thread():
        nw = predict.next_words(model, tokenizer, ids, position, temperature, top_k)
        drawn = predict.generate_word(model, tokenizer, ids[: nw.position + 1], temperature, top_k, seed)
    candidates = [{"word": c.word, "token": c.token, "probability": c.probability} for c in nw.candidates]
    actual = None if nw.actual is None else {"word": nw.actual.word, "token": nw.actual.token,
                                             "probability": nw.actual.probability}
    word, best = nw.tokens[nw.position], nw.candidates[0]
    if actual is None:
        summary = MESSAGES["next"].format(word=word, position=nw.position, best=best.word, p=best.probability,
                                          seed=seed, drawn=drawn.word, q=drawn.probability)
    else:
        summary = MESSAGES["next_actual"].format(word=word, position=nw.position, best=best.word,
                                                 p=best.probability, actual=actual["word"], a=actual["probability"])
    payload = {
        "model": name, "tokens": nw.tokens, "position": nw.position, "temperature": temperature, "top_k": top_k,
        "seed": seed, "candidates": candidates, "actual": actual,
        "drawn": {"word": drawn.word, "token": drawn.token, "probability": drawn.probability},
    }
    chart = generate_views.next_words(candidates, word, nw.position, None if actual is None else actual["word"])
    return NextWordsView(chart, summary, payload)


def positions(sentence: Any, model: Any = TINY) -> tuple[int, int]:
    """Where the position slider opens (the last token) and its top end (at least 1: a slider needs a range)."""
    _, tokenizer, _ = _model(model)
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
    return served(_step(*_settings(model, sentence, temperature, top_k, seed)))


@lru_cache(maxsize=VIEW_CACHE)
def _step(name: str, sentence: str, temperature: float, top_k: int | None, seed: int) -> StepView:
    model, tokenizer, spaced = _model(name)
    ids = _ids(tokenizer, sentence)
    with one_thread():
        st = predict.generate_word(model, tokenizer, ids, temperature, top_k, seed)
        kept = cache_rows(model, [*ids, st.token])
    grown = sentence.rstrip() + " " + st.word.strip() if spaced else sentence + st.word
    seen = st.tokens[st.attention_start:]
    rows = generate_views.attention_rows(seen, st.attention, st.word)
    cache = generate_views.cache_rows([st.tokens[p] for p in kept.positions], kept.keys, kept.values,
                                      kept.layer_shape, kept.kv_heads, kept.head_dim)
    summary = MESSAGES["step"].format(word=st.word, p=st.probability, seed=seed, n=len(kept.positions),
                                      shape=kept.layer_shape, kib=kept.cache_bytes / 1024, per=kept.bytes_per_token)
    payload = {
        "model": name, "sentence": grown, "tokens": st.tokens, "word": st.word, "token": st.token,
        "probability": st.probability, "seed": seed, "attention_tokens": seen,
        "attention": [[[round(w, 6) for w in row] for row in layer] for layer in st.attention], "cache_length": st.cache_length,
        "cache_shape": list(kept.layer_shape), "cache_bytes": kept.cache_bytes,
        "bytes_per_token": kept.bytes_per_token,
    }
    return StepView(grown, rows, cache, summary, payload)


# ---- several words: /generate ---------------------------------------------------------------------


@dataclass(frozen=True)
class GenerationView:
    """One table row per word, one sentence, the /generate JSON."""

    table: list[list]
    summary: str
    payload: dict[str, Any]


def generation(sentence: Any, n_words: Any, temperature: Any, top_k: Any, seed: Any, use_cache: Any,
               model: Any = TINY) -> GenerationView:
    """Raw values -> n_words seeded words, timed step by step (not cached: the seconds are measured now)."""
    model, sentence, temperature, top_k, seed = _settings(model, sentence, temperature, top_k, seed)
    n = whole_in("n_words", n_words, 1, MAX_WORDS)
    if not isinstance(use_cache, bool):
        raise ConfigError(f"{named('use_cache', use_cache)} must be true or false")
    net, tokenizer, _ = _model(model)
    ids = _ids(tokenizer, sentence)
    with one_thread():
        g = predict.generate(net, tokenizer, ids, n, temperature, top_k, seed, use_cache)
    table = generate_views.step_rows(g.words, g.probabilities, g.cache_lengths, g.computed, g.seconds)
    total = sum(g.seconds)
    summary = MESSAGES["generated"].format(n=n, ms=total * 1000, per=total * 1000 / n, text=g.text,
                                           cache=MESSAGES["with_cache" if use_cache else "without_cache"])
    payload = {"model": model, "temperature": temperature, "top_k": top_k, "seed": seed, **dataclasses.asdict(g)}
    return GenerationView(table, summary, payload)


# ---- the cache for a real-sized model, and the measured benchmark -----------------------------------------


@dataclass(frozen=True)
class CacheTable:
    """Multi-head, GQA and sliding window side by side for a preset at T tokens; the JSON behind it."""

    rows: list[list]
    summary: str
    payload: dict[str, Any]


def cache_table(preset: Any, n_kv_heads: Any, window: Any, T: Any) -> CacheTable:
    """Raw values -> the (cached) comparison, counted on the meta device."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ConfigError(MESSAGES["preset"].format(value=named("preset", preset), choices=choices_text(PRESETS)))
    heads = PRESETS[preset].n_heads
    return _cache_table(preset, whole_in("n_kv_heads", n_kv_heads, 1, heads),
                        whole_in("window", window, 1, MAX_WINDOW), _context(T))


def _context(T: Any) -> int:
    if isinstance(T, bool) or not isinstance(T, (int, float)) or T not in CACHE_T:
        raise ConfigError(MESSAGES["T"].format(value=named("T", T), choices=choices_text(CACHE_T)))
    return int(T)


@lru_cache(maxsize=64)
def _cache_table(preset: str, n_kv_heads: int, window: int, T: int) -> CacheTable:
    numbers = compare(PRESETS[preset], T, n_kv_heads=n_kv_heads, window=window)
    payload = {name: dataclasses.asdict(n) for name, n in numbers.items()}
    return CacheTable(generate_views.cache_table(numbers), MESSAGES["cache_numbers"].format(T=T), payload)


@dataclass(frozen=True)
class DecodeBench:
    """The saved `attention-lab bench --decode` run: chart, table rows, how and where it was measured."""

    chart: dict[str, Any] | None
    rows: list[list]
    caption: str


@lru_cache(maxsize=1)
def decode_bench(path: Path = DECODE_SAVED) -> DecodeBench:
    """Read once; a copy without the file says how to measure it."""
    try:
        saved = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return DecodeBench(None, [], MESSAGES["decode_missing"])
    meta, summary = saved.get("meta", {}), saved.get("summary", {})
    caption = MESSAGES["decode_caption"].format(
        machine=meta.get("machine", "?"), cpus=meta.get("cpus", "?"), threads=meta.get("threads", "?"),
        torch=meta.get("torch", "?"), python=meta.get("python", "?"), low=summary.get("from_T", "?"),
        high=summary.get("to_T", "?"), cached=summary.get("cached_growth", math.nan),
        uncached=summary.get("uncached_growth", math.nan))
    return DecodeBench(generate_views.decode_chart(saved), generate_views.decode_rows(saved), caption)

