"""The app's views in a notebook: `head_view(attention, tokens)`, `model_view(attention, tokens)`, as BertViz's.

`attention` is what transformers returns with output_attentions=True (a tuple of (B, H, T, T), one per layer, any
number of layers; or the whole output, which carries `.attentions`), an AttentionTrace, one (H, T, T) or
(L, H, T, T) tensor, or a model with `tokens` a sentence: a real model from core.model.load_pretrained (GPT-2,
Llama, Qwen, Mistral, Gemma; any transformers decoder) or one of our GPTs, with `tokenizer=` or as the (model,
tokenizer) pair the loaders return. `tokens`: a list (one per position), or a string (a sentence for a model, or
tokens split at spaces; `tokenizer=` reads it as the model does). The object returned is HTML that Jupyter,
JupyterLab and VS Code display: the app's own JS and CSS inlined (no CDN, works offline), the same hover and click
as in the app, the model view's weights packed as the app packs them; `.data` holds the numbers, `.html()` a page.
"""

from __future__ import annotations

import html
import json
import uuid
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor

from .config import ConfigError
from .i18n import mark, t

MESSAGES = {
    "kind": mark("head_view and model_view take transformers' attentions (a tuple of (B, H, T, T) per layer), an "
                 "AttentionTrace, a (H, T, T) or (L, H, T, T) tensor, or a model with a sentence; got {kind}"),
    "eager": mark("transformers returned no attention weights: load the model with attn_implementation=\"eager\" "
                  "(AutoModelForCausalLM.from_pretrained(name, attn_implementation=\"eager\")) and call it with "
                  "output_attentions=True, or load it with core.model.load_pretrained"),
    "tokens": mark("the attention covers {T} positions but {n} tokens were given; pass one token per position (a "
                   "list), or tokenizer= to read a sentence as the model does"),
    "sentence": mark("a model needs its tokenizer (tokenizer=..., or the (model, tokenizer) pair load_pretrained "
                     "and load_gpt2 return) and a sentence"),
    "layer": mark("layer={layer} is out of range; choose 0 to {last}"),
    "title": mark("Every layer and head: {L} layers x {H} heads"),
    "group": mark("{description}. It reads key/value head {kv}, which query heads {first} to {last} share."),
}


def _labels(tokens: Sequence[Any]) -> list[str]:
    """The tokens as the views label them (one place: every view's labels pass through here)."""
    return [str(tok) for tok in tokens]


def _stacked(attentions: Sequence[Any]) -> Tensor:
    """transformers' per-layer attentions -> (L, H, T, T); None entries (sdpa, flash) are the eager sentence."""
    if not attentions or any(a is None for a in attentions):
        raise ConfigError(t(MESSAGES["eager"]))
    return torch.stack([a if a.dim() == 3 else a[0] for a in attentions])  # L x (B, H, T, T)


def _layers(attention: Any) -> Tensor:
    """Any accepted attention -> (L, H, T, T) floats, batch element 0."""
    if hasattr(attention, "weights") and hasattr(attention, "scores"):  # an AttentionTrace: (B, H, T, T)
        attention = attention.weights
    elif hasattr(attention, "logits") and hasattr(attention, "attentions"):  # transformers' whole output
        attention = _stacked(attention.attentions or ())
    if isinstance(attention, (tuple, list)) and attention and all(isinstance(a, Tensor) or a is None
                                                                   for a in attention):
        attention = _stacked(attention)
    if isinstance(attention, Tensor) and attention.dim() in (3, 4, 5) and attention.shape[-1] == attention.shape[-2]:
        w = attention.detach().float().cpu()
        w = w[None] if w.dim() == 3 else w  # (1, H, T, T)
        return w[:, 0] if w.dim() == 5 else w  # (L, B, H, T, T) -> (L, H, T, T)
    raise ConfigError(t(MESSAGES["kind"], kind=type(attention).__name__))


def _is_model(obj: Any) -> bool:
    return (hasattr(obj, "trace") and hasattr(obj, "blocks")) or (hasattr(obj, "config") and callable(obj)
                                                                  and hasattr(obj, "get_input_embeddings"))


def _encode(tokenizer: Any, sentence: str) -> list[int]:
    return list(tokenizer.encode(sentence))


def _decode(tokenizer: Any, i: int) -> str:
    return tokenizer.decode([i])


def _from_model(model: Any, tokens: Any, tokenizer: Any) -> tuple[Tensor, list[str], Any]:
    """A model and a sentence -> its attention (L, H, T, T), the tokens as its tokenizer reads them, its architecture
    (None for our GPT)."""
    if isinstance(model, tuple) and len(model) == 2:
        model, tokenizer = model
    if tokenizer is None or not isinstance(tokens, str):
        raise ConfigError(t(MESSAGES["sentence"]))
    ids = _encode(tokenizer, tokens)
    words = [_decode(tokenizer, i) for i in ids]
    if hasattr(model, "trace") and hasattr(model, "blocks"):  # one of our GPTs
        return model.trace(torch.tensor([ids]))[:, 0].float(), words, None
    from .gpt.lab_attention import NAME, lab_forward
    from .gpt.pretrained import architecture

    if getattr(model.config, "_attn_implementation", None) == NAME:
        return lab_forward(model, ids).weights, words, architecture(model)
    with torch.no_grad():  # a transformers model loaded as its user chose: its own attentions, when it gives them
        out = model(torch.tensor([ids]), output_attentions=True)
    return _stacked(out.attentions or ()), words, architecture(model)


def _prepare(attention: Any, tokens: Any, tokenizer: Any) -> tuple[Tensor, list[str], Any]:
    pair = isinstance(attention, tuple) and len(attention) == 2 and _is_model(attention[0])
    if pair or _is_model(attention):
        return _from_model(attention, tokens, tokenizer)
    w = _layers(attention)
    T = w.shape[-1]
    if isinstance(tokens, str):
        if tokenizer is not None:
            tokens = [_decode(tokenizer, i) for i in _encode(tokenizer, tokens)]
        else:
            tokens = tokens.split()
    words = _labels(tokens)
    if len(words) != T:
        raise ConfigError(t(MESSAGES["tokens"], T=T, n=len(words)))
    return w, words, None


def _causal(w: Tensor) -> Tensor:
    """Where every head of every layer put no weight at all: drawn as blocked, (T, T) True = may attend."""
    return (w.abs().amax(dim=(0, 1)) > 0) | torch.eye(w.shape[-1], dtype=torch.bool)


class View:
    """One view as HTML a notebook displays; its numbers in `.data` (the dict the app's browser code draws)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def _repr_html_(self) -> str:
        from .render import web

        uid = "al-" + uuid.uuid4().hex[:12]
        payload = json.dumps(self.data).replace("<", "\\u003c")  # no token can end or open a tag in the <script>
        styles = "".join((web.ASSETS / n).read_text(encoding="utf-8") for n in web.STYLES)
        code = "\n".join((web.ASSETS / n).read_text(encoding="utf-8") for n in web.SCRIPTS)
        return (f'<div id="{uid}" class="al-notebook" style="width: 100%; min-width: 480px">'
                f'<div class="al-root"></div></div><style>{styles}</style>{web.config_script()}'
                f"<script>{code}\n</script><script>(function () {{"
                f'const el = document.getElementById("{uid}"); const props = {{value: {payload}}};'
                f"window.AttnLab.mount(el, props, function () {{}}, function () {{}});}})();</script>")

    def html(self, title: str = "Attention Lab") -> str:
        """A whole page that opens by itself in a browser (a worksheet, a file to share)."""
        return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
                f"<body>{self._repr_html_()}</body></html>")


def head_view(attention: Any, tokens: Sequence[str] | str, layer: int = -1, *, tokenizer: Any = None) -> View:
    """One layer's heads as heatmaps (hover a cell, click a token) with the head view below (BertViz's)."""
    from .render import matrix

    w, words, _ = _prepare(attention, tokens, tokenizer)
    L = w.shape[0]
    if isinstance(layer, bool) or not isinstance(layer, int) or not -L <= layer < L:
        raise ConfigError(t(MESSAGES["layer"], layer=str(layer)[:20], last=L - 1))
    heads = w[layer]  # (H, T, T)
    return View(matrix.attention(words, heads.numpy(), _causal(w).numpy()))


def model_view(attention: Any, tokens: Sequence[str] | str, *, tokenizer: Any = None) -> View:
    """Every layer x head as thumbnails, each named by the pattern it shows most on this sentence; click one. The
    weights travel packed as in the app (16-bit fractions, core.render.model_pack); a GQA model's heads in groups."""
    from .lab.head_patterns import describe, head_patterns
    from .render import matrix, model_pack

    w, words, arch = _prepare(attention, tokens, tokenizer)
    L, H = w.shape[:2]
    titles = [[f"L{la} H{h}" for h in range(H)] for la in range(L)]
    group = arch.group if arch is not None else 1
    descriptions = []
    for la, row in enumerate(head_patterns(words, w)):
        line = [describe(la, h, p) for h, p in enumerate(row)]
        if group > 1:
            line = [t(MESSAGES["group"], description=d, kv=h // group, first=h // group * group,
                      last=(h // group + 1) * group - 1) for h, d in enumerate(line)]
        descriptions.append(line)
    data = matrix.model_view(words, w.numpy(), titles, descriptions, (L - 1, 0), allowed=_causal(w).numpy(),
                             groups=group)
    data["labels"]["title"] = t(MESSAGES["title"], L=L, H=H)
    return View(model_pack.compact(data, w.numpy()))
