"""The Real model tab's Step-through and Causality sections: GPT-2's own layer, stage by stage, and the proof
that no earlier row of any layer sees a later token (core.lab.real_steps), laid out for the page."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..config import ConfigError, whole
from ..lab.real_steps import causality, layer_steps, replacement
from ..lab.steps import formula_markdown
from ..lab.text import text_field
from ..render import matrix, tab_matrices
from . import slots
from .real_model import checked, network, tokens_and_ids

MESSAGES = {
    "summary": "**Token {position} changed.** Rows before it (0 to {last}), in every one of the {L} layers and "
               "{H} heads: max |Δ weight| = **{earlier}**, max |Δ logit| = {logits}. Rows from it on: "
               "max |Δ weight| = **{later}**. {verdict}",
    "kept": "With the causal mask, nothing an earlier row computes can depend on a later token.",
    "leaked": "Without the causal mask the change reaches back: the earlier rows moved too.",
    "title": "L{layer}: before {earlier} · after {later}",  # max |Δ| on the rows before the change, and from it on
    "hover": "query '{q}' ({i}) → key '{k}' ({j}): max |Δ weight| over the heads {value}",
    "scale": "max |Δ weight| over the heads",
    "note": "Token {position} '{old}' → '{new}'; each map is one layer, the largest change of any head; its title: "
            "the largest on the rows before the change · from it on",
    "word": "the replacement must be text, like ' dog' (a space first for a word inside a GPT-2 sentence)",
}


@lru_cache(maxsize=32)
def _steps(model: str, sentence: str, causal: bool, scaled: bool, layer: int, head: int) -> tuple[list, list]:
    """[(formula Markdown, stage view)] of one head of one layer, in a CPU slot."""
    tokens, ids = tokens_and_ids(model, sentence)
    with slots.CPU:
        steps = layer_steps(network(model)[0], ids, layer, head, causal, scaled)
    shown = steps.shown(tokens)
    return [formula_markdown(st, scaled) for st in shown], [tab_matrices.stage(st, tokens) for st in shown]


def step_view(sentence: Any, model: Any, causal: Any, scaled: Any, layer: Any, head: Any) -> tuple[list, list]:
    """(formulas, stage views): Q, K, V, scores, scaled, masked, weights, context of `head` in `layer`."""
    args = checked(sentence, model, causal, scaled)
    return _steps(*args, whole("layer", layer), whole("head", head))


@lru_cache(maxsize=32)
def _causality(model: str, sentence: str, causal: bool, scaled: bool, position: int, word: str) -> tuple[dict, str]:
    tokens, ids = tokens_and_ids(model, sentence)
    net, tokenizer = network(model)
    new = replacement(tokenizer, word, ids, position)
    with slots.CPU:
        result = causality(net, ids, position, new, causal, scaled)
    L, H = result.before.shape[:2]
    per_layer = result.per_layer.numpy()  # (L, T, T)
    early, late = result.layer_max(earlier=True), result.layer_max(earlier=False)
    titles = [MESSAGES["title"].format(layer=la, earlier=f"{early[la]:.2g}", later=f"{late[la]:.2f}") for la in range(L)]
    shown = list(tokens)
    shown[position] = f"{tokens[position]}→{tokenizer.decode([new])}"
    hi = float(per_layer.max()) or 1.0
    note = MESSAGES["note"].format(position=position, old=tokens[position], new=tokenizer.decode([new]))
    view = matrix.heatmaps(shown, list(per_layer), titles, scale=matrix.weight_scale(0.0, hi),
                           labels={"hover": MESSAGES["hover"], "warning": note},
                           legend=[{"swatch": "scale", "text": MESSAGES["scale"]}],
                           highlight=position, max_columns=4)
    verdict = MESSAGES["kept" if result.earlier == 0.0 else "leaked"]
    summary = MESSAGES["summary"].format(position=position, last=position - 1, L=L, H=H,
                                         earlier=f"{result.earlier:.2g}", logits=f"{result.logits_earlier:.2g}",
                                         later=f"{result.later:.3f}", verdict=verdict)
    return view, summary


def causality_view(sentence: Any, model: Any, causal: Any, scaled: Any, position: Any, word: Any) -> tuple[dict, str]:
    """(every layer's max |Δ weight| map, the measured summary) with token `position` replaced by `word`."""
    args = checked(sentence, model, causal, scaled)
    word = text_field("word", word)
    if not word.strip():
        raise ConfigError(MESSAGES["word"])
    return _causality(*args, whole("position", position), word)


def last_position(sentence: Any, model: Any) -> int:
    """The sentence's last token index (the position slider's end); 1 when the sentence cannot be read."""
    try:
        model, sentence, _, _ = checked(sentence, model, True, True)
        return max(len(tokens_and_ids(model, sentence)[1]) - 1, 1)
    except ConfigError:
        return 1

def causality_on_page(sentence: Any, model: Any, causal: Any, scaled: Any, position: Any,
                      word: Any) -> tuple[int, dict, str]:
    """(the slider's last position, the view, the summary): a slider left past a shorter sentence's end reads its
    last token."""
    last = last_position(sentence, model)
    return last, *causality_view(sentence, model, causal, scaled, min(whole("position", position), last), word)


def last_layer_and_head(model: Any) -> tuple[int, int]:
    """The largest layer and head index of the model (the sliders' ends)."""
    net = network(checked("", model, True, True)[0])[0]
    return len(net.blocks) - 1, net.config.n_heads - 1
