"""The real models the app offers, by short name, each loaded once into transformers with the lab's attention.

"tiny" (the model trained here, as transformers' GPT-2) is always there; "gpt2" is the checkpoint
ATTENTION_LAB_GPT2 names; ATTENTION_LAB_MODELS is a comma list of Hub ids (read from the Hugging Face cache: the
app downloads nothing) or folders, each offered under its id (a folder under its own name). A name the lab cannot
run (a missing id, an unsupported family) is refused at start-up from its config.json alone: one line in the log
and one sentence in the tab (`refusals`), and it is not offered.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..gpt import hub
from ..gpt.pretrained import Architecture, architecture, family_of, from_lab_gpt, load
from ..i18n import mark, t
from ..lab.tiny import tiny
from ..mistakes import ConfigError, choices_text, named
from .generate_inputs import MAX_TOKENS, token_ids
from .slots import CPU

log = logging.getLogger("attention_lab.real_models")
MODELS_ENV, GPT2_ENV = "ATTENTION_LAB_MODELS", "ATTENTION_LAB_GPT2"
TINY, GPT2 = "tiny", "gpt2"
CHINESE = "合同违约金过高，它可能存在风险。"  # the chapter's sentence: a Chinese-capable tokenizer reads it in words
MESSAGES = {
    "model": mark("{value} is not one of the models; choose {choices}"),
    "gpt2_off": mark("GPT-2 is not switched on in this app; set ATTENTION_LAB_GPT2 to a GPT-2 checkpoint folder or "
                     "Hub id (openai-community/gpt2), or name any model in ATTENTION_LAB_MODELS, and restart it"),
    "refused": mark("{name} is not offered: {why}"),
}


@dataclass(frozen=True)
class Loaded:
    """One model as every Real model view reads it."""

    name: str  # its short name in the app and the API
    model: Any  # transformers' model, the lab's attention inside
    tokenizer: Any  # encode/decode
    arch: Architecture

    @property
    def label(self) -> str:
        """How a sentence names it: its name and family ("HuggingFaceTB/SmolLM2-135M (Llama)")."""
        return self.name if self.name == TINY else f"{self.name} ({self.arch.name})"


def sources() -> dict[str, str]:
    """Short name -> what names the checkpoint (an id or a folder), as the environment says now."""
    out = {}
    gpt2 = os.environ.get(GPT2_ENV, "").strip()
    if gpt2:
        out[GPT2] = gpt2
    for entry in os.environ.get(MODELS_ENV, "").split(","):
        entry = entry.strip()
        if entry and entry not in out.values():
            out[hub.label(os.path.expanduser(entry))] = os.path.expanduser(entry)
    return out


_refused: dict[tuple, dict[str, str]] = {}
_refused_lock = threading.Lock()


def refusals() -> dict[str, str]:
    """Name -> the sentence why the lab cannot run it (from config.json alone; logged once, in English)."""
    key = tuple(sorted(sources().items()))
    with _refused_lock:
        if key not in _refused:
            found = {}
            for name, source in key:
                try:
                    family_of(hub.config_of(source), hub.label(source))
                except ConfigError as exc:
                    found[name] = str(exc)
                    log.warning("%s is not offered: %s", name, exc)
            _refused[key] = found
        return _refused[key]


def refusal_notes() -> list[str]:
    """The refusals as the tab shows them, in the reader's language (each judged again: a sentence is per language)."""
    notes = []
    for name in refusals():
        try:
            family_of(hub.config_of(sources()[name]), hub.label(sources()[name]))
        except ConfigError as exc:
            notes.append(t(MESSAGES["refused"], name=name, why=str(exc)))
    return notes


def names() -> list[str]:
    """The models this app offers: tiny, then gpt2 and ATTENTION_LAB_MODELS' (those the lab can run)."""
    refused = refusals()
    return [TINY, *(n for n in sources() if n not in refused)]


@lru_cache(maxsize=8)
def _load(source: str) -> tuple[Any, Any]:
    return load(source)


@lru_cache(maxsize=1)
def _tiny() -> tuple[Any, Any]:
    gpt, tokenizer = tiny()
    return from_lab_gpt(gpt), tokenizer


def loaded(name: Any) -> Loaded:
    """The model offered under `name`, loaded on first use; ConfigError naming the choices for one not offered."""
    if name == TINY:
        model, tokenizer = _tiny()
        return Loaded(TINY, model, tokenizer, architecture(model))
    offered = names()
    if name not in offered:
        if name == GPT2 and GPT2 not in sources():
            raise ConfigError(t(MESSAGES["gpt2_off"]))
        raise ConfigError(t(MESSAGES["model"], value=named("model", name),
                            choices=choices_text(f"'{m}'" for m in offered)))
    model, tokenizer = _load(sources()[name])
    return Loaded(name, model, tokenizer, architecture(model))


@contextmanager
def computing() -> Iterator[None]:
    """A CPU slot for a forward pass: a slot runs on one thread (two requests on two threads each ran a SmolLM2-sized
    forward ~7x slower on the shared 2-core machine than on one thread each; docs/performance.md)."""
    with CPU:
        yield


def source(name: str) -> str:
    """What the name loads now (caches key on it too: the same name may name another checkpoint after a restart of
    the variable, as tests do)."""
    return "" if name == TINY else sources().get(name, "")


def ids_of(model: Loaded, sentence: str) -> list[int]:
    """The sentence's ids for this model (refused past MAX_TOKENS: every view is T x T per head)."""
    return token_ids(model.tokenizer, sentence)


def chinese_model() -> str | None:
    """The first offered model whose tokenizer reads the chapter's sentence in words (at most one token per Chinese
    character; a byte-level tokenizer that never learnt Chinese needs two or three), or None."""
    for name in names():
        if name == TINY:
            continue
        try:
            model = loaded(name)
        except ConfigError:
            continue
        n = len([i for i in model.tokenizer.encode(CHINESE)])
        if n <= len(CHINESE):
            return name
    return None


__all__ = ["GPT2", "MAX_TOKENS", "TINY", "Loaded", "chinese_model", "ids_of", "loaded", "names", "refusal_notes",
           "computing", "refusals", "source", "sources"]
