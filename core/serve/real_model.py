"""The Real model tab and /model_attention: GPT-2 (or the tiny model) on a sentence, intact beside broken.

`model="gpt2"` is the checkpoint ATTENTION_LAB_GPT2 names (a folder or a Hub id in the cache), `"tiny"` the
model trained here. The student's toggles reach every layer: the causal mask lifted, √d dropped, heads zeroed.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..config import ConfigError, choices_text, named
from ..lab.broken_model import Breakage, parse_ablate, payload, side
from ..lab.head_patterns import describe, head_patterns
from ..lab.text import text_field
from ..render import matrix, model_pack
from ..render.tokens import visible
from . import exports, slots
from .cache import DrawnCache
from .generate_inputs import GPT2, TINY, model_for, models, token_ids

NAMES = {"gpt2": GPT2, "tiny": TINY}
SOURCES = DrawnCache(max_items=1024)  # a drawn view's stamp -> (model, sentence, breakage)
TITLE = "L{layer}\u00a0H{head}\u00a0· {pattern}"  # a thumbnail: the head, the pattern it shows most (wraps after ·)
MESSAGES = {
    "model": "{value} is not one of the models; choose {choices}",
    "switch": "{value} must be true or false",
    "summary": "**Loss on this sentence**: {intact:.2f} bits per token intact, **{broken:.2f}** broken ({change}). "
               "Broken: {what}.",
    "nothing": "nothing (the intact model: switch the mask or √d off, or zero heads, to break it)",
    "mask": "the causal mask lifted in every layer (each word sees the words after it)",
    "scale": "no 1/√d_head in every layer",
    "heads": "{n} head(s) zeroed",
}


def model_names() -> list[str]:
    """The API's short names of the models this app offers: gpt2 only when ATTENTION_LAB_GPT2 is set."""
    return [short for short, long in NAMES.items() if long in models()]


def _switch(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise ConfigError(MESSAGES["switch"].format(value=named(name, value)))


@lru_cache(maxsize=64)
def _computed(model: str, sentence: str, breakage: Breakage) -> tuple:
    """(tokens, intact, broken); the intact side once per sentence, so a toggle costs one forward pass."""
    tokens, ids, intact = _intact(model, sentence)
    if breakage.intact:
        return tokens, intact, intact
    net, tokenizer, _ = model_for(NAMES[model])
    return tokens, intact, side(net, tokenizer, ids, breakage)


@lru_cache(maxsize=64)
def _intact(model: str, sentence: str) -> tuple:
    net, tokenizer, _ = model_for(NAMES[model])
    ids = token_ids(tokenizer, sentence)
    return [tokenizer.decode([i]) for i in ids], ids, side(net, tokenizer, ids, Breakage())


def _full_view(tokens: list[str], broken: Any, pairs: tuple) -> dict:
    """The model view as core.render.matrix lays it out (float32 per head), each head named by its pattern."""
    L, H = broken.weights.shape[:2]
    patterns = head_patterns(tokens, broken.weights)
    titles = [[TITLE.format(layer=la, head=h, pattern=patterns[la][h].short) + (" ✕" if (la, h) in pairs else "")
               for h in range(H)] for la in range(L)]
    descriptions = [[describe(la, h, p) for h, p in enumerate(row)] for la, row in enumerate(patterns)]
    allowed = broken.weights.abs().amax(dim=(0, 1)) > 0  # (T, T): what any head could see
    return matrix.model_view(tokens, broken.weights.numpy(), titles, descriptions, (L - 1, 0), allowed=allowed.numpy())


def png_file(shown: Any) -> str:
    """The PNG of the model view the page shows, redrawn in float32 from what made it (kept by stamp, a few
    bytes each, rather than every 0.5 MB view); ConfigError when the server no longer knows it."""
    stamp = shown.get("stamp") if isinstance(shown, dict) else None
    source = SOURCES.peek(stamp) if isinstance(stamp, str) else None
    if source is None:
        raise ConfigError(exports.EXPIRED)
    model, sentence, breakage = source
    with slots.CPU:
        tokens, _, broken = _computed(model, sentence, breakage)
    return exports.png_file(exports.remember(_full_view(tokens, broken, breakage.ablate)))


def checked(sentence: Any, model: Any, causal: Any, scaled: Any) -> tuple[str, str, bool, bool]:
    """(model, sentence, causal, scaled) as the views read them; ConfigError in one sentence otherwise."""
    if model not in model_names():
        if model == "gpt2":
            model_for(GPT2)  # its own sentence: how to switch GPT-2 on
        raise ConfigError(MESSAGES["model"].format(value=named("model", model),
                                                   choices=choices_text(f"'{m}'" for m in model_names())))
    return model, text_field("sentence", sentence), _switch("causal", causal), _switch("scaled", scaled)


def tokens_and_ids(model: str, sentence: str) -> tuple[list[str], list[int]]:
    """The sentence as the model reads it (cached with the intact forward pass)."""
    tokens, ids, _ = _intact(model, sentence)
    return tokens, ids


def network(model: str):
    """(the model, its tokenizer), loaded once."""
    net, tokenizer, _ = model_for(NAMES[model])
    return net, tokenizer


def model_attention(sentence: Any, model: Any = "gpt2", causal: Any = True, scaled: Any = True,
                    ablate: Any = "[]") -> tuple[dict, list[list], str, dict]:
    """(model view of the broken model, next-word table intact | broken, loss summary, the JSON)."""
    view, table, summary, (tokens, intact, broken) = _shown(*checked(sentence, model, causal, scaled), ablate)
    return view, table, summary, payload(tokens, intact, broken)


def model_view(sentence: Any, model: Any = "gpt2", causal: Any = True, scaled: Any = True,
               ablate: Any = "[]") -> tuple[dict, list[list], str]:
    """What the page draws: the model view, the next-word table and the summary (no JSON: the API has it)."""
    return _shown(*checked(sentence, model, causal, scaled), ablate)[:3]


def _shown(model: str, sentence: str, causal: bool, scaled: bool, ablate: Any) -> tuple:
    net = model_for(NAMES[model])[0]
    pairs = parse_ablate(ablate, len(net.blocks), net.config.n_heads)
    return _drawn(model, sentence, Breakage(causal, scaled, pairs))


@lru_cache(maxsize=64)
def _drawn(model: str, sentence: str, breakage: Breakage) -> tuple:
    """(view, table, summary, (tokens, intact, broken)), computed in a CPU slot (the page's events skip the queue)."""
    with slots.CPU:
        tokens, intact, broken = _computed(model, sentence, breakage)
    causal, scaled, pairs = breakage.causal, breakage.scaled, breakage.ablate
    full = _full_view(tokens, broken, pairs)
    view = model_pack.compact(full, broken.weights.numpy())  # the page's: ~2.5 times fewer bytes
    SOURCES.put(view["stamp"], (model, sentence, breakage))  # what the PNG export redraws it from
    table = [[rank + 1, f"{visible(iw)} ({ip:.3f})", f"{visible(bw)} ({bp:.3f})"]
             for rank, ((iw, ip), (bw, bp)) in enumerate(zip(intact.next_words, broken.next_words, strict=True))]
    what = [MESSAGES["mask"]] * (not causal) + [MESSAGES["scale"]] * (not scaled)
    what += [MESSAGES["heads"].format(n=len(pairs))] * bool(pairs)
    change = f"{broken.loss_bits - intact.loss_bits:+.2f}"
    summary = MESSAGES["summary"].format(intact=intact.loss_bits, broken=broken.loss_bits, change=change,
                                         what="; ".join(what) or MESSAGES["nothing"])
    return view, table, summary, (tokens, intact, broken)
