"""The Chapter tab: the spot-the-bug cards and the intervention table, cached so a click costs milliseconds.

The cards are computed once per process and language (the first cross-device error costs torch its backtrace);
the held-out half of the interventions is measured once per process (every head ablated over many sentences);
both are warmed after start-up. A typed sentence's predictions are cached once, its words once per language.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..i18n import current, mark, t
from ..lab.ablate import MODES
from ..lab.failure_modes import KEYS, cards_payload
from ..lab.interventions import EFFECT_SENTENCES, contrast, heldout_effects, interventions_payload
from ..lab.pronoun import CHAPTER_SENTENCE
from ..lab.text import MAX_CHARS, text_field
from ..lab.trained_view import trained_view, view_note
from ..mistakes import ConfigError, named
from ..render.chapter import card_weights, effects_chart
from . import slots
from .exports import remember

INTERVENTIONS_CACHE = 128
MESSAGES = {  # msgids (core.i18n), translated where each sentence is made
    "check": mark("The check: {check}."),
    "wrong_passes": mark("On the wrong line it passes: {detail}"),
    "wrong_fails": mark("On the wrong line it FAILS: {detail}"),
    "right_passes": mark("On the fix it passes: {detail}"),
    "right_fails": mark("On the fix it FAILS: {detail}"),
    "wrong_raises": mark("On the wrong line it FAILS: it raises `{error}`"),
    "right_raises": mark("On the fix it FAILS: it raises `{error}`"),
    "mode": mark("{given} is not one of the choices; choose 'zero' or 'uniform'"),
    "headline": mark("A head can look striking and matter little. Layer {s_layer} head {s_head} puts {s_weight:.2f} "
                     "of its weight on {s_pattern}, yet {ablation} adds only {s_loss:+.3f} bits per word to the "
                     "held-out loss ({s_may:+.3f} on the word after 它 可能 / it may); layer {p_layer} head {p_head} "
                     "puts at most {p_weight:.2f} on any pattern, and the same ablation adds {p_loss:+.3f} bits per "
                     "word."),
    "headline_none": mark("With this ablation the heads that look most focused are also the ones that cost most to "
                          "remove."),
    "measured": mark("Measured once on {n_words} next words of {n_sentences} held-out sentences (never seen in "
                     "training), {n_may} of them the word after 它 可能 / it may; with every head in place the model "
                     "needs {base:.3f} bits per word ({base_may:.3f} bits on the word after 可能 / may)."),
    "intact": mark("Next word after \"{last}\" with every head: {top}."),
    "top": mark("\"{word}\" {p:.2f}"),
    "separator": mark("{first}, {then}"),  # a list of words: its comma is the language's
    "columns": (mark("head"), mark("named (held-out)"), mark("mean weight on its pattern"),
                mark("held-out loss increase (bits/word)"), mark("increase on the word after 它 可能 / it may (bits)"),
                mark("your sentence: top next word without it"),
                mark("your sentence: change in the prediction (total variation)")),
    "head": mark("layer {layer} head {head}"),
    "weight": mark("{weight:.2f} ({pattern})"),
}
NUMBERS = {"increase": "{value:+.3f}", "prediction": "{word} {p:.2f}", "variation": "{value:.3f}"}  # no words
ABLATIONS = {  # what each ablation does to a head, as the choice (its label: core.ui.i18n.static)
    "zero": mark("zero its output (the head adds nothing)"),
    "uniform": mark("uniform weights over the keys it may see (it still reads, but looks nowhere in particular)"),
}
ABLATED = {"zero": mark("zeroing its output"), "uniform": mark("making its weights uniform")}  # in the headline


@dataclass(frozen=True)
class CardView:
    """One spot-the-bug card as the tab shows it."""

    key: str
    title: str
    wrong_code: str
    right_code: str
    effect: str
    error: str  # the exact message a student meets ("" when the wrong line runs)
    check: str  # what the check asserts, then its result on the wrong line and on the fix, one per line
    note: str
    weights: dict[str, Any]  # core.render.matrix heatmaps: the wrong line's weights beside the fix's


def cards_json() -> tuple[dict[str, Any], ...]:
    """The cards as JSON (core.lab.failure_modes.cards_payload), computed once per process and language."""
    return _cards_json(current())


@lru_cache(maxsize=8)
def _cards_json(language: str) -> tuple[dict[str, Any], ...]:
    """(its texts are in `language`, the current one)"""
    cards = tuple(cards_payload())
    if tuple(c["key"] for c in cards) != KEYS:
        raise RuntimeError("failure_modes.KEYS does not list the cards in order")
    return cards


def _result(card: dict[str, Any], side: str) -> str:
    check = card[f"check_{side}"]
    if not check["passed"] and check["detail"] == card[side].get("error"):  # torch's own message, as code
        return t(MESSAGES[f"{side}_raises"], error=check["detail"])
    return t(MESSAGES[f"{side}_{'passes' if check['passed'] else 'fails'}"], detail=check["detail"])


def cards() -> tuple[CardView, ...]:
    """Every card's texts and weights view, built once per language."""
    return _cards(current())


@lru_cache(maxsize=8)
def _cards(language: str) -> tuple[CardView, ...]:
    """(its texts are in `language`, the current one)"""
    out = []
    for card in cards_json():
        check = "\n".join([t(MESSAGES["check"], check=card["check"]), _result(card, "wrong"),
                           _result(card, "right")])
        view = card_weights(card["tokens"], card["wrong"]["weights"], card["right"]["weights"],
                            hatch_wrong=card["key"] != "zero-fill")  # 0-fill leaks: its future is not masked
        out.append(CardView(card["key"], card["title"], card["wrong_code"], card["right_code"], card["effect"],
                            card["wrong"].get("error") or "", check, card["note"], view))
    return tuple(out)


def failure_modes() -> tuple[tuple[CardView, ...], list[dict[str, Any]]]:
    """The cards for the tab, and their JSON for /failure_modes."""
    shown = cards()
    for card in shown:
        remember(card.weights)
    return shown, list(cards_json())


@dataclass(frozen=True)
class InterventionsView:
    """The intervention half of the tab: headline, chart, table, the sentence's prediction, notes, the JSON."""

    headline: str
    measured: str
    chart: dict[str, Any]
    headers: list[str]  # the table's column names
    table: list[list[str]]  # one row per head
    prediction: str  # the next word with every head, then how the sentence was read (if there is anything to say)
    note: str  # how the sentence was read: segmented automatically, words the model never saw ("" when nothing)
    payload: dict[str, Any]


def mode_value(mode: Any) -> str:
    """An ablation a person picked: 'zero' or 'uniform'; ConfigError otherwise."""
    if mode not in MODES:
        raise ConfigError(t(MESSAGES["mode"], given=named("mode", mode)))
    return mode


def _headline(mode: str) -> str:
    pair = contrast(heldout_effects(), mode)
    s, p = pair.striking, pair.plain
    if s is None or p is None:
        return t(MESSAGES["headline_none"])
    return t(MESSAGES["headline"],
             s_layer=s.layer, s_head=s.head, s_weight=s.pattern_weight, s_pattern=t(s.pattern), ablation=t(ABLATED[mode]),
             s_loss=s.loss_increase[mode], s_may=s.after_may_increase[mode], p_layer=p.layer, p_head=p.head,
             p_weight=p.pattern_weight, p_loss=p.loss_increase[mode])


@lru_cache(maxsize=INTERVENTIONS_CACHE)
def _interventions(sentence: str, mode: str, language: str) -> InterventionsView:
    """The view in `language` (the current one): its numbers come from _effects, measured once per sentence."""
    with slots.CPU:  # the page's events skip the queue: the semaphore bounds their CPU (cached views take none)
        view = trained_view(sentence)  # ConfigError for an empty or too long sentence; the tokens and the note
        return _interventions_view(view, _effects(sentence, mode), mode)


@lru_cache(maxsize=INTERVENTIONS_CACHE)
def _effects(sentence: str, mode: str) -> dict[str, Any]:
    """The numbers of the view (the /interventions JSON): the held-out table and the typed sentence's predictions."""
    try:
        return interventions_payload(sentence, mode)
    except ValueError as exc:  # the typed sentence cannot be read (already named by trained_view, in practice)
        raise ConfigError(str(exc)) from None


def _interventions_view(view: Any, payload: dict[str, Any], mode: str) -> InterventionsView:
    table, typed = payload["heldout"], payload["sentence"]
    heads, effects = table["heads"], {(h["layer"], h["head"]): h for h in typed["heads"]}
    pair = contrast(heldout_effects(), mode)
    marked = None if pair.striking is None else next(
        i for i, h in enumerate(heads) if (h["layer"], h["head"]) == (pair.striking.layer, pair.striking.head))
    names = [t(MESSAGES["head"], layer=h["layer"], head=h["head"]) for h in heads]
    chart = effects_chart(names, [h["pattern_weight"] for h in heads], [h["loss_increase"][mode] for h in heads],
                          [h["after_may_increase"][mode] for h in heads], marked)
    rows = []
    for name, h in zip(names, heads, strict=True):
        e = effects[(h["layer"], h["head"])]
        rows.append([
            name, t(h["role"]), t(MESSAGES["weight"], weight=h["pattern_weight"], pattern=t(h["pattern"])),
            NUMBERS["increase"].format(value=h["loss_increase"][mode]),
            NUMBERS["increase"].format(value=h["after_may_increase"][mode]),
            NUMBERS["prediction"].format(**e["top"][0]), NUMBERS["variation"].format(value=e["total_variation"]),
        ])
    top = ""
    for word in typed["intact"]:
        one = t(MESSAGES["top"], **word)
        top = t(MESSAGES["separator"], first=top, then=one) if top else one
    measured = t(MESSAGES["measured"], n_words=table["n_words"], n_sentences=EFFECT_SENTENCES,
                 n_may=table["n_after_may"], base=table["base_loss"], base_may=table["base_after_may"])
    note = view_note(view)
    prediction = t(MESSAGES["intact"], last=view.tokens[-1], top=top)
    return InterventionsView(_headline(mode), measured, chart, [t(c) for c in MESSAGES["columns"]], rows,
                             f"{prediction}\n{note}" if note else prediction, note, payload)


def interventions(sentence: Any, mode: Any) -> InterventionsView:
    """Raw UI/API values -> the (cached) view; ConfigError (one sentence) for a sentence or mode it cannot take."""
    text = text_field("sentence", "" if sentence is None else sentence)[:MAX_CHARS]
    view = _interventions(text, mode_value(mode), current())
    remember(view.chart)
    return view


def warm() -> None:
    """The cards, the held-out table and the chapter sentence's view, before anyone asks, once."""
    failure_modes()
    interventions(CHAPTER_SENTENCE, "zero")
