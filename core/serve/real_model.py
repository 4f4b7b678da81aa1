"""The Real model tab and /model_attention: GPT-2 (or the tiny model) on a sentence, intact beside broken.

`model="gpt2"` is the checkpoint ATTENTION_LAB_GPT2 names (a folder or a Hub id in the cache), `"tiny"` the
model trained here. The student's toggles reach every layer: the causal mask lifted, √d dropped, heads zeroed.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..config import ConfigError, choices_text, named
from ..lab.broken_model import Breakage, describe_heads, parse_ablate, payload, side
from ..lab.text import text_field
from ..render import matrix
from .generate_inputs import GPT2, TINY, model_for, models, token_ids

NAMES = {"gpt2": GPT2, "tiny": TINY}
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


def model_attention(sentence: Any, model: Any = "gpt2", causal: Any = True, scaled: Any = True,
                    ablate: Any = "[]") -> tuple[dict, list[list], str, dict]:
    """(model view of the broken model, next-word table intact | broken, loss summary, the JSON)."""
    if model not in model_names():
        if model == "gpt2":
            model_for(GPT2)  # its own sentence: how to switch GPT-2 on
        raise ConfigError(MESSAGES["model"].format(value=named("model", model),
                                                   choices=choices_text(f"'{m}'" for m in model_names())))
    sentence = text_field("sentence", sentence)
    net = model_for(NAMES[model])[0]
    pairs = parse_ablate(ablate, len(net.blocks), net.config.n_heads)
    breakage = Breakage(_switch("causal", causal), _switch("scaled", scaled), pairs)
    tokens, intact, broken = _computed(model, sentence, breakage)
    L, H = broken.weights.shape[:2]
    titles = [[f"L{la} H{h}" + (" ✕" if (la, h) in pairs else "") for h in range(H)] for la in range(L)]
    allowed = broken.weights.abs().amax(dim=(0, 1)) > 0  # (T, T): what any head could see
    view = matrix.model_view(tokens, broken.weights.numpy(), titles, describe_heads(tokens, broken.weights),
                             (L - 1, 0), allowed=allowed.numpy())
    table = [[rank + 1, f"{iw} ({ip:.3f})", f"{bw} ({bp:.3f})"]
             for rank, ((iw, ip), (bw, bp)) in enumerate(zip(intact.next_words, broken.next_words, strict=True))]
    what = [MESSAGES["mask"]] * (not causal) + [MESSAGES["scale"]] * (not scaled)
    what += [MESSAGES["heads"].format(n=len(pairs))] * bool(pairs)
    change = f"{broken.loss_bits - intact.loss_bits:+.2f}"
    summary = MESSAGES["summary"].format(intact=intact.loss_bits, broken=broken.loss_bits, change=change,
                                         what="; ".join(what) or MESSAGES["nothing"])
    return view, table, summary, payload(tokens, intact, broken)
