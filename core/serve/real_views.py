"""The Real model tab's Step-through and Causality sections: the model's own layer, stage by stage (RoPE as its own
step), and the proof that no earlier row of any layer sees a later token (core.lab.real_steps), laid out for the page."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..i18n import current, mark, t
from ..lab.broken_model import Breakage
from ..lab.real_steps import FIELDS, causality, layer_steps, replacement
from ..lab.steps import formula_markdown
from ..lab.text import text_field
from ..mistakes import ConfigError, whole
from ..render import matrix, scales, tab_matrices
from . import real_models, real_variants
from .real_model import breakage, checked, network, tokens_and_ids

MESSAGES = {
    "summary": mark("**Token {position} changed.** Rows before it (0 to {last}), in every one of the {L} layers and "
                    "{H} heads: max |Δ weight| = **{earlier}**, max |Δ logit| = {logits}. Rows from it on: "
                    "max |Δ weight| = **{later}**. {verdict}"),
    "kept": mark("With the causal mask, nothing an earlier row computes can depend on a later token."),
    "leaked": mark("Without the causal mask the change reaches back: the earlier rows moved too."),
    "title": mark("L{layer}: before {earlier} · after {later}"),  # max |Δ| before the change, and from it on
    "hover": mark("query '{q}' ({i}) → key '{k}' ({j}): max |Δ weight| over the heads {value}"),
    "scale": mark("max |Δ weight| over the heads"),
    "note": mark("Token {position} '{old}' → '{new}'; each map is one layer, the largest change of any head; its "
                 "title: the largest on the rows before the change · from it on"),
    "word": mark("the replacement must be text, like ' dog' (a space first for a word inside a GPT-2 sentence)"),
}


@lru_cache(maxsize=32)
def _steps(model: str, source: str, sentence: str, b: Breakage, layer: int, head: int, language: str) -> tuple[list, list]:
    """[(formula Markdown, stage view)] of one head of one layer, in a CPU slot."""
    tokens, ids = tokens_and_ids(model, sentence)
    m = network(model)
    with real_models.computing():
        steps = layer_steps(m.model, ids, layer, head, b, real_variants.formula(m, b))
    shown = dict(zip(steps.fields(), steps.shown(tokens), strict=True))
    return ([formula_markdown(shown[f], b.scaled) if f in shown else None for f in FIELDS],
            [tab_matrices.stage(shown[f], tokens) if f in shown else None for f in FIELDS])


def step_view(sentence: Any, model: Any, causal: Any, scaled: Any, layer: Any, head: Any, ablate: Any = "[]",
              variant: Any = "", options: Any = "{}") -> tuple[list, list]:
    """(formulas, stage views), one per core.lab.real_steps.FIELDS (None for a stage this layer has not: no RoPE in
    GPT-2, no cap but in Gemma 2): Q and K before and after RoPE, V, scores, scaled, capped, masked, weights and
    context of `head` in `layer`."""
    model, sentence, causal, scaled = checked(sentence, model, causal, scaled)
    b = breakage(model, causal, scaled, ablate, variant, options)
    return _steps(model, real_models.source(model), sentence, b, whole("layer", layer), whole("head", head),
                  current())


@lru_cache(maxsize=32)
def _causality(model: str, source: str, sentence: str, b: Breakage, position: int, word: str, language: str) -> tuple[dict, str]:
    tokens, ids = tokens_and_ids(model, sentence)
    m = network(model)
    new = replacement(m.tokenizer, word, ids, position)
    with real_models.computing():
        result = causality(m.model, ids, position, new, b, real_variants.formula(m, b))
    L, H = result.before.shape[:2]
    per_layer = result.per_layer.numpy()  # (L, T, T)
    early, late = result.layer_max(earlier=True), result.layer_max(earlier=False)
    early_text, late_text = [f"{v:.2g}" for v in early], [f"{v:.2f}" for v in late]
    titles = [t(MESSAGES["title"], layer=la, earlier=early_text[la], later=late_text[la]) for la in range(L)]
    shown = list(tokens)
    shown[position] = f"{tokens[position]}→{m.tokenizer.decode([new])}"
    hi = float(per_layer.max()) or 1.0
    note = t(MESSAGES["note"], position=position, old=tokens[position], new=m.tokenizer.decode([new]))
    view = matrix.heatmaps(shown, list(per_layer), titles, scale=scales.weight_scale(0.0, hi),
                           labels={"hover": t(MESSAGES["hover"]), "warning": note},
                           legend=[{"swatch": "scale", "text": t(MESSAGES["scale"])}],
                           highlight=position, max_columns=4)
    verdict = t(MESSAGES["kept" if result.earlier == 0.0 else "leaked"])
    earlier, logits, later = f"{result.earlier:.2g}", f"{result.logits_earlier:.2g}", f"{result.later:.3f}"
    summary = t(MESSAGES["summary"], position=position, last=position - 1, L=L, H=H, earlier=earlier, logits=logits,
                later=later, verdict=verdict)
    return view, summary


def causality_view(sentence: Any, model: Any, causal: Any, scaled: Any, position: Any, word: Any,
                   ablate: Any = "[]", variant: Any = "", options: Any = "{}") -> tuple[dict, str]:
    """(every layer's max |Δ weight| map, the measured summary) with token `position` replaced by `word`."""
    model, sentence, causal, scaled = checked(sentence, model, causal, scaled)
    word = text_field("word", word)
    if not word.strip():
        raise ConfigError(t(MESSAGES["word"]))
    b = breakage(model, causal, scaled, ablate, variant, options)
    return _causality(model, real_models.source(model), sentence, b, whole("position", position), word, current())


def last_position(sentence: Any, model: Any) -> int:
    """The sentence's last token index (the position slider's end); 1 when the sentence cannot be read."""
    try:
        model, sentence, _, _ = checked(sentence, model, True, True)
        return max(len(tokens_and_ids(model, sentence)[1]) - 1, 1)
    except ConfigError:
        return 1


def causality_on_page(sentence: Any, model: Any, causal: Any, scaled: Any, position: Any, word: Any,
                      ablate: Any = "[]", variant: Any = "", options: Any = "{}") -> tuple[int, dict, str]:
    """(the slider's last position, the view, the summary): a slider left past a shorter sentence's end reads its
    last token."""
    last = last_position(sentence, model)
    return last, *causality_view(sentence, model, causal, scaled, min(whole("position", position), last), word,
                                 ablate, variant, options)


def last_layer_and_head(model: Any) -> tuple[int, int]:
    """The largest layer and head index of the model (the sliders' ends)."""
    arch = network(checked("", model, True, True)[0]).arch
    return arch.n_layers - 1, arch.n_heads - 1
