"""The Real model tab and /model_attention: any offered model on a sentence, intact beside broken.

`model` is "tiny" (trained here), "gpt2" (ATTENTION_LAB_GPT2) or a name from ATTENTION_LAB_MODELS
(core.serve.real_models). The student's switches reach every layer: the causal mask lifted, √d dropped, heads
zeroed, a registered variant in every layer or one (core.serve.real_variants).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..config import ConfigError
from ..i18n import current, mark, t, t_n
from ..lab.broken_model import Breakage, Side, parse_ablate, payload, side
from ..lab.head_patterns import describe, head_patterns
from ..lab.session import switch
from ..lab.text import text_field
from ..render import matrix, model_pack
from ..render.tokens import visible
from . import exports, real_models, real_variants
from .cache import DrawnCache
from .real_models import Loaded

SOURCES = DrawnCache(max_items=1024)  # a drawn view's stamp -> (model, sentence, breakage, language)
TITLE = "L{layer}\u00a0H{head}\u00a0· {pattern}"  # a thumbnail: the head, the pattern it shows most (wraps after ·)
MESSAGES = {
    "summary": mark("**{model}**, loss on this sentence: {intact:.2f} bits per token intact, **{broken:.2f}** broken "
                    "({change} bits). Broken: {what}."),
    "nothing": mark("nothing (the intact model: switch the mask or √d off, zero heads or run a variant, to break it)"),
    "mask": mark("the causal mask lifted in every layer (each word sees the words after it)"),
    "scale": mark("no scaling of the scores in every layer"),
    "variant_all": mark("the variant {variant}{options} in every layer, in the model's place"),
    "variant_one": mark("the variant {variant}{options} in layer {layer}, in the model's place"),
    "list": mark("{first}; {then}"),
    "group": mark("{description}. It reads key/value head {kv}, which query heads {first} to {last} share."),
    "window_note": mark("window {window}"),
    "global_note": mark("global"),
    "window_description": mark("{description}. This layer sees only the last {window} tokens (its sliding window)."),
}


def model_names() -> list[str]:
    """The API's names of the models this app offers: tiny, gpt2 when ATTENTION_LAB_GPT2 is set, and
    ATTENTION_LAB_MODELS'."""
    return real_models.names()


def network(model: str) -> Loaded:
    """The model offered under this name, loaded once."""
    return real_models.loaded(model)


def checked(sentence: Any, model: Any, causal: Any, scaled: Any) -> tuple[str, str, bool, bool]:
    """(model, sentence, causal, scaled) as the views read them; ConfigError in one sentence otherwise (the lab's
    own checks of a switch and a text, as every tab's: core.lab.session.switch, core.lab.text.text_field)."""
    real_models.loaded(model)  # a model not offered is named before anything else
    return model, text_field("sentence", sentence), switch("causal", causal), switch("scaled", scaled)


def breakage(model: str, causal: bool, scaled: bool, ablate: Any = "[]", variant: Any = "",
             options: Any = "{}") -> Breakage:
    """The student's switches as one Breakage (ablate pairs and the variant checked against the model)."""
    m = network(model)
    pairs = parse_ablate(ablate, m.arch.n_layers, m.arch.n_heads)
    name, opts, layer = real_variants.placed(m, variant, options, causal, scaled)
    return Breakage(causal, scaled, pairs, name, opts, layer)


def _intact(model: str, sentence: str) -> tuple:
    return _intact_of(model, real_models.source(model), sentence)


@lru_cache(maxsize=64)
def _intact_of(model: str, source: str, sentence: str) -> tuple:
    m = network(model)
    ids = real_models.ids_of(m, sentence)
    with real_models.computing():
        intact = side(m.model, m.tokenizer, ids, Breakage())
    return [m.tokenizer.decode([i]) for i in ids], ids, intact


def _computed(model: str, sentence: str, b: Breakage) -> tuple[list[str], Side, Side]:
    """(tokens, intact, broken); the intact side once per sentence, so a toggle costs one forward pass."""
    return _computed_of(model, real_models.source(model), sentence, b)


@lru_cache(maxsize=64)
def _computed_of(model: str, source: str, sentence: str, b: Breakage) -> tuple[list[str], Side, Side]:
    tokens, ids, intact = _intact(model, sentence)
    if b.intact:
        return tokens, intact, intact
    m = network(model)
    with real_models.computing():
        return tokens, intact, side(m.model, m.tokenizer, ids, b, real_variants.formula(m, b))


def tokens_and_ids(model: str, sentence: str) -> tuple[list[str], list[int]]:
    """The sentence as the model reads it (cached with the intact forward pass)."""
    tokens, ids, _ = _intact(model, sentence)
    return tokens, ids


def layer_notes(m: Loaded) -> list[str] | None:
    """Each layer's window in a few words, when any layer has one ("window 4096" / "global")."""
    windows = m.arch.windows
    if not any(windows):
        return None
    return [t(MESSAGES["window_note"], window=w) if w else t(MESSAGES["global_note"]) for w in windows]


def _full_view(m: Loaded, tokens: list[str], broken: Side, pairs: tuple) -> dict:
    """The model view as core.render.matrix lays it out (float32 per head), each head named by its pattern, a GQA
    model's heads in their key/value groups, each layer with its own mask (a sliding layer's band)."""
    L, H = broken.weights.shape[:2]
    arch = m.arch
    patterns = head_patterns(tokens, broken.weights)
    titles = [[TITLE.format(layer=la, head=h, pattern=t(patterns[la][h].short)) + (" ✕" if (la, h) in pairs else "")
               for h in range(H)] for la in range(L)]
    descriptions = []
    for la, row in enumerate(patterns):
        line = []
        for h, p in enumerate(row):
            text = describe(la, h, p)
            if arch.group > 1:
                kv = h // arch.group
                text = t(MESSAGES["group"], description=text, kv=kv, first=kv * arch.group,
                         last=(kv + 1) * arch.group - 1)
            if arch.windows[la] and arch.windows[la] < len(tokens):
                text = t(MESSAGES["window_description"], description=text, window=arch.windows[la])
            line.append(text)
        descriptions.append(line)
    allowed = broken.allowed if broken.allowed is not None else (broken.weights.abs().amax(dim=(0, 1)) > 0)
    return matrix.model_view(tokens, broken.weights.numpy(), titles, descriptions, (L - 1, 0),
                             allowed=allowed.numpy(), layer_notes=layer_notes(m), groups=arch.group)


def png_file(shown: Any) -> str:
    """The PNG of the model view the page shows, redrawn in float32 from what made it (kept by stamp, a few
    bytes each, rather than every 0.5 MB view); ConfigError when the server no longer knows it."""
    stamp = shown.get("stamp") if isinstance(shown, dict) else None
    source = SOURCES.peek(stamp) if isinstance(stamp, str) else None
    if source is None:
        raise ConfigError(exports.EXPIRED)
    model, sentence, b = source
    tokens, _, broken = _computed(model, sentence, b)
    return exports.png_file(exports.remember(_full_view(network(model), tokens, broken, b.ablate)))


def model_attention(sentence: Any, model: Any = "gpt2", causal: Any = True, scaled: Any = True, ablate: Any = "[]",
                    variant: Any = "", options: Any = "{}") -> tuple[dict, list[list], str, dict]:
    """(model view of the broken model, next-word table intact | broken, loss summary, the JSON)."""
    model, sentence, causal, scaled = checked(sentence, model, causal, scaled)
    b = breakage(model, causal, scaled, ablate, variant, options)
    view, table, summary = _drawn(model, real_models.source(model), sentence, b, current())
    tokens, intact, broken = _computed(model, sentence, b)
    return view, table, summary, payload(tokens, intact, broken, network(model).arch.as_json())


def model_view(sentence: Any, model: Any = "gpt2", causal: Any = True, scaled: Any = True, ablate: Any = "[]",
               variant: Any = "", options: Any = "{}") -> tuple[dict, list[list], str]:
    """What the page draws: the model view, the next-word table and the summary (no JSON: the API has it)."""
    model, sentence, causal, scaled = checked(sentence, model, causal, scaled)
    b = breakage(model, causal, scaled, ablate, variant, options)
    return _drawn(model, real_models.source(model), sentence, b, current())


def summary(m: Loaded, b: Breakage, intact: Side, broken: Side) -> str:
    """The loss sentence: the model, both losses, the difference, and what was broken (in the reader's language)."""
    what = [t(MESSAGES["mask"])] * (not b.causal) + [t(MESSAGES["scale"])] * (not b.scaled)
    if b.ablate:
        what.append(t_n("{n} head zeroed", "{n} heads zeroed", len(b.ablate)))
    if b.variant:
        opts = ", ".join(f"{k}={v}" for k, v in b.options)
        opts = f" ({opts})" if opts else ""
        key = "variant_all" if b.layer is None else "variant_one"
        what.append(t(MESSAGES[key], variant=b.variant, options=opts, layer=b.layer))
    listed = what[0] if what else t(MESSAGES["nothing"])
    for item in what[1:]:
        listed = t(MESSAGES["list"], first=listed, then=item)
    change = f"{broken.loss_bits - intact.loss_bits:+.2f}"
    return t(MESSAGES["summary"], model=m.label, intact=intact.loss_bits, broken=broken.loss_bits, change=change,
             what=listed)


@lru_cache(maxsize=64)
def _drawn(model: str, source: str, sentence: str, b: Breakage, language: str) -> tuple:
    """(view, table, summary) in `language` (the page's events skip the queue: the forward pass takes a CPU slot)."""
    tokens, intact, broken = _computed(model, sentence, b)
    m = network(model)
    full = _full_view(m, tokens, broken, b.ablate)
    view = model_pack.compact(full, broken.weights.numpy())  # the page's: ~2.5 times fewer bytes
    SOURCES.put(view["stamp"], (model, sentence, b))  # what the PNG export redraws it from
    table = [[rank + 1, f"{visible(iw)} ({ip:.3f})", f"{visible(bw)} ({bp:.3f})"]
             for rank, ((iw, ip), (bw, bp)) in enumerate(zip(intact.next_words, broken.next_words, strict=True))]
    return view, table, summary(m, b, intact, broken)
