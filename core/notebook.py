"""The app's views in a notebook: `head_view(attention, tokens)`, `model_view(attention, tokens)`, as BertViz's.

`attention` is what transformers returns with output_attentions=True (a tuple of (B, H, T, T), one per
layer), an AttentionTrace, one (H, T, T) or (L, H, T, T) tensor, or one of our GPTs (with `tokenizer=`, or
as the (model, tokenizer) pair load_gpt2 and load_tiny return) with `tokens` a sentence. The object
returned is HTML that Jupyter, JupyterLab and VS Code display: the app's own JS and CSS inlined (no CDN,
works offline), the same hover and click as in the app; `.data` holds the numbers, `.html()` a whole page.
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

MESSAGES = {
    "kind": "head_view and model_view take transformers' attentions (a tuple of (B, H, T, T)), an AttentionTrace, "
            "a (H, T, T) or (L, H, T, T) tensor, or a GPT with a sentence; got {kind}",
    "tokens": "the attention covers {T} positions but {n} tokens were given; pass one token per position",
    "sentence": "a GPT needs its tokenizer (tokenizer=..., or the (model, tokenizer) pair load_gpt2 returns) "
                "and a sentence",
}


def _layers(attention: Any) -> Tensor:
    """Any accepted attention -> (L, H, T, T) floats, batch element 0."""
    if hasattr(attention, "weights") and hasattr(attention, "scores"):  # an AttentionTrace: (B, H, T, T)
        attention = attention.weights
    if isinstance(attention, (tuple, list)) and attention and all(isinstance(a, Tensor) for a in attention):
        attention = torch.stack([a if a.dim() == 3 else a[0] for a in attention])  # L x (B, H, T, T)
    if isinstance(attention, Tensor) and attention.dim() in (3, 4, 5) and attention.shape[-1] == attention.shape[-2]:
        w = attention.detach().float().cpu()
        w = w[None] if w.dim() == 3 else w  # (1, H, T, T)
        return w[:, 0] if w.dim() == 5 else w  # (L, B, H, T, T) -> (L, H, T, T)
    raise ConfigError(MESSAGES["kind"].format(kind=type(attention).__name__))


def _from_model(model: Any, tokens: Any, tokenizer: Any) -> tuple[Tensor, list[str]]:
    """A GPT and a sentence -> its attention (L, H, T, T) and the tokens as the tokenizer reads them."""
    if isinstance(model, tuple) and len(model) == 2:
        model, tokenizer = model
    if tokenizer is None or not isinstance(tokens, str):
        raise ConfigError(MESSAGES["sentence"])
    ids = tokenizer.encode(tokens)
    weights = model.trace(torch.tensor([ids]))  # (L, B, H, T, T)
    return weights[:, 0].float(), [tokenizer.decode([i]) for i in ids]


def _prepare(attention: Any, tokens: Any, tokenizer: Any) -> tuple[Tensor, list[str]]:
    gpt = isinstance(attention, tuple) and len(attention) == 2 and hasattr(attention[0], "trace")
    if gpt or (hasattr(attention, "trace") and hasattr(attention, "blocks")):
        return _from_model(attention, tokens, tokenizer)
    w = _layers(attention)
    tokens = [str(t) for t in tokens]
    if len(tokens) != w.shape[-1]:
        raise ConfigError(MESSAGES["tokens"].format(T=w.shape[-1], n=len(tokens)))
    return w, tokens


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

    w, words = _prepare(attention, tokens, tokenizer)
    L = w.shape[0]
    if not -L <= layer < L:
        raise ConfigError(f"layer={layer} is out of range; choose 0 to {L - 1}")
    heads = w[layer]  # (H, T, T)
    return View(matrix.attention(words, heads.numpy(), _causal(w).numpy()))


def model_view(attention: Any, tokens: Sequence[str] | str, *, tokenizer: Any = None) -> View:
    """Every layer x head as thumbnails, each named by the pattern it shows most on this sentence; click one."""
    from .lab.broken_model import describe_heads
    from .render import matrix

    w, words = _prepare(attention, tokens, tokenizer)
    L, H = w.shape[:2]
    titles = [[f"L{la} H{h}" for h in range(H)] for la in range(L)]
    data = matrix.model_view(words, w.numpy(), titles, describe_heads(words, w), (L - 1, 0),
                             allowed=_causal(w).numpy())
    data["labels"]["title"] = f"Every layer and head: {L} layers x {H} heads"
    return View(data)
