"""The Generate tab's inputs: which models it offers (and loading them), raw UI/API values checked in one sentence each.

The trained tiny model is always there. GPT-2 is offered only when ATTENTION_LAB_GPT2 names a GPT-2
checkpoint folder or Hub id (core.model.load_gpt2; an id is read from the Hugging Face cache, the app
downloading nothing): without it there is no such choice and nothing ever reaches for the network.
"""

from __future__ import annotations

import math
import os
from functools import lru_cache
from typing import Any

from ..i18n import mark, t
from ..lab.text import text_field
from ..lab.tiny import tiny
from ..mistakes import ConfigError, named, whole_in
from ..model import load_gpt2
from ..seeding import SEED_MAX as MAX_SEED

ENV = "ATTENTION_LAB_GPT2"
TINY, GPT2 = "tiny model (trained here)", "GPT-2 (pretrained)"
MAX_TOKENS = 128  # a prompt longer than this is refused (the tiny model reads 64; GPT-2's trace grows as T^2)
MAX_TOP_K = 100
TEMPERATURE = (0.05, 3.0)  # 0 would be the argmax; top_k = 1 gives that
MESSAGES = {  # msgids (core.i18n)
    "model": mark("{value} is not one of the models; choose {items} or {last}"),
    "model_only": mark("{value} is not one of the models; choose {last}"),
    "gpt2_off": mark("GPT-2 is not switched on in this app; set ATTENTION_LAB_GPT2 to a GPT-2 checkpoint folder or "
                     "Hub id (openai-community/gpt2) and restart it"),
    "long": mark("the sentence has {n} tokens; the Generate tab reads at most {most}, so shorten it"),
    "temperature": mark("{value} must be a number from {low:g} to {high:g}; for the likeliest word every time, "
                        "set top_k to 1"),
}


def models() -> list[str]:
    """The model choices: the tiny model, and GPT-2 when ATTENTION_LAB_GPT2 is set (read at app start-up)."""
    return [TINY, GPT2] if os.environ.get(ENV, "").strip() else [TINY]


@lru_cache(maxsize=1)
def _gpt2(folder: str):
    """Kept loaded: a checkpoint is read from disk once, the first time GPT-2 is asked for."""
    return load_gpt2(folder)


def model_for(name: Any):
    """(model, tokenizer, words joined by spaces?) for a model choice; ConfigError for one not offered."""
    if name == TINY:
        model, tokenizer = tiny()
        return model, tokenizer, True
    if name == GPT2:
        folder = os.environ.get(ENV, "").strip()
        if not folder:
            raise ConfigError(t(MESSAGES["gpt2_off"]))
        model, tokenizer = _gpt2(os.path.expanduser(folder))
        return model, tokenizer, False
    *items, last = (f"'{m}'" for m in models())
    raise ConfigError(t(MESSAGES["model" if items else "model_only"], value=named("model", name),
                        items=", ".join(items), last=last))


def token_ids(tokenizer, sentence: str) -> list[int]:
    """The sentence's token ids, refused past MAX_TOKENS: a long prompt would hold a worker (GPT-2's trace is T^2)."""
    ids = tokenizer.encode(sentence)
    if len(ids) > MAX_TOKENS:
        raise ConfigError(t(MESSAGES["long"], n=len(ids), most=MAX_TOKENS))
    return ids


def _temperature(value: Any) -> float:
    """A finite number in TEMPERATURE; 0 is refused with the way to get the likeliest word (top_k = 1)."""
    low, high = TEMPERATURE
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or not low <= value <= high:
        raise ConfigError(t(MESSAGES["temperature"], value=named("temperature", value), low=low, high=high))
    return float(value)


def _top_k(value: Any) -> int | None:
    """A whole number up to MAX_TOP_K; 0 means every word, as the slider says."""
    k = whole_in("top_k", value, 0, MAX_TOP_K)
    return k or None  # 0 = every word


def settings(model: Any, sentence: Any, temperature: Any, top_k: Any, seed: Any) -> tuple:
    """The settings every word endpoint shares, checked in one place so each mistake reads the same everywhere."""
    model_for(model)  # a model not offered is named before anything else
    return (model, text_field("sentence", sentence), _temperature(temperature), _top_k(top_k),
            whole_in("seed", seed, 0, MAX_SEED))
