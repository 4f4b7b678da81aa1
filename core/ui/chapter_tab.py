"""Mistakes & interventions: the chapter's failure modes as spot-the-bug cards, and what each trained head is
worth when taken out (do not mythologise attention weights). Layout and wiring only."""

from __future__ import annotations

import gradio as gr

from core.i18n import mark
from core.lab.ablate import MODES
from core.lab.failure_modes import KEYS
from core.lab.pronoun import CHAPTER_PAIR, CHAPTER_SENTENCE
from core.serve import chapter

from . import endpoints, lab_open
from .common import CPU_GROUP, CPU_LIMIT, api_accordion, problem_box, user_errors, view
from .i18n import static

TITLE = mark("Mistakes & interventions")
SENTENCES = (  # what the intervention view predicts after: the chapter's sentence up to 可能, then the pair
    "合同 违约金 过高 ， 它 可能",
    *CHAPTER_PAIR,
    "the report 's figure was too high , so it may",
    CHAPTER_SENTENCE,
)
TEXT = {  # msgids: the page shows each in its own language (core.ui.i18n.static)
    "bugs_title": mark("## Spot the bug"),
    "bugs_intro": mark("The chapter's minimal causal attention, run just now on the first five words of its sentence "
                       "(合同 违约金 过高 ， 它), once as written and once with ONE line changed. Each card shows the "
                       "wrong line, what it does to the weights (or the error torch raises), the one-line fix, and "
                       "the check that catches it: run on both versions every time the card is built."),
    "wrong": mark("The wrong line"),
    "right": mark("The fix (one line)"),
    "error": mark("What torch says when the wrong line runs"),
    "check": mark("The check that catches it"),
    "interventions_title": mark("## Do not mythologise attention weights"),
    "interventions_intro": mark("The trained tiny model's eight heads. Left: how much weight each head puts on the "
                                "pattern it is named after (query → key matching, measured on held-out text). Then: "
                                "how much worse the model predicts held-out text when that head is taken out. A "
                                "large weight is not a large effect: read the two side by side. The marked head is "
                                "the headline's striking one."),
    "sentence": mark("Sentence for the next-word prediction (the tiny model's words)"),
    "mode": mark("Ablation: how a head is taken out"),
    "prediction": mark("The model's next word after your sentence"),
    "notes": mark("Notes"),
    "cards_json": mark("JSON (the /failure_modes API output)"),
    "payload": mark("JSON (the /interventions API output)"),
}


def build(ctx) -> None:
    gr.Markdown(static(TEXT["bugs_title"]))
    gr.Markdown(static(TEXT["bugs_intro"]))
    slots = []  # per card: title, wrong line, fix, error, effect, check, note, weights
    for key in KEYS:
        with gr.Group(elem_id=f"card-{key}", elem_classes=["al-card"]):
            title = gr.Markdown(elem_id=f"card-{key}-title", elem_classes=["al-card-title"])
            with gr.Column():  # the lines full width: a long mask line must not be cut at 1280 px
                wrong = gr.Code(language="python", label=static(TEXT["wrong"]), interactive=False, lines=1, wrap_lines=True,
                                elem_id=f"card-{key}-wrong")
                right = gr.Code(language="python", label=static(TEXT["right"]), interactive=False, lines=1, wrap_lines=True,
                                elem_id=f"card-{key}-right")
                error = gr.Code(label=static(TEXT["error"]), interactive=False, lines=1, visible=False, wrap_lines=True,
                                elem_id=f"card-{key}-error")
            with gr.Row(equal_height=False):
                with gr.Column(scale=2, min_width=360):
                    effect = gr.Markdown(elem_id=f"card-{key}-effect")
                    check = gr.Textbox(label=static(TEXT["check"]), lines=3, interactive=False, elem_id=f"card-{key}-check")
                    note = gr.Markdown(visible=False, elem_id=f"card-{key}-note")
                with gr.Column(scale=3, min_width=360):
                    weights = view(None, elem_id=f"card-{key}-weights")
        slots.append([title, wrong, right, error, effect, check, note, weights])

    gr.Markdown(static(TEXT["interventions_title"]))
    problem = problem_box("interventions-problem")
    headline = gr.Markdown(elem_id="interventions-headline", elem_classes=["al-headline"])
    gr.Markdown(static(TEXT["interventions_intro"]))
    with gr.Row():
        sentence = gr.Dropdown(list(SENTENCES), value=SENTENCES[0], allow_custom_value=True, label=static(TEXT["sentence"]),
                               elem_id="interventions-sentence", elem_classes=["al-example"], scale=2)
        mode = gr.Radio([(static(chapter.ABLATIONS[m]), m) for m in MODES], value=MODES[0], label=static(TEXT["mode"]),
                        elem_id="interventions-mode", scale=3)
    chart = view(None, elem_id="interventions-chart")
    table = gr.Dataframe(headers=list(chapter.MESSAGES["columns"]), interactive=False, wrap=True,  # (events: headers too)
                         elem_id="interventions-table")
    prediction = gr.Textbox(label=static(TEXT["prediction"]), interactive=False, lines=2, elem_id="interventions-prediction")
    measured = gr.Markdown(elem_id="interventions-measured")
    with api_accordion():
        note = gr.Textbox(label=static(TEXT["notes"]), interactive=False, elem_id="interventions-note")
        cards_json = gr.JSON(label=static(TEXT["cards_json"]), open=False)
        payload = gr.JSON(label=static(TEXT["payload"]), open=False)

    @user_errors
    def show_cards():
        """Every card: its title, the two lines, the error (if any), what it does, the check, a note, the weights;
        then the cards' JSON."""
        shown, data = chapter.failure_modes()
        out = []
        for card in shown:
            out.extend([f"### {card.title}", card.wrong_code, card.right_code,
                        gr.update(value=card.error, visible=bool(card.error)), card.effect, card.check,
                        gr.update(value=card.note, visible=bool(card.note)), card.weights])
        return (*out, data)

    @user_errors
    def failure_modes():
        """The chapter's failure modes as JSON: per card the wrong and right line, the effect, the check on both."""
        _, data = chapter.failure_modes()
        return data

    @user_errors
    def interventions(sentence, mode="zero"):
        """Each trained head's mean weight on its pattern beside the held-out loss increase when it is ablated
        ('zero': output zeroed; 'uniform': weights uniform over allowed keys), and the typed sentence's next word."""
        v = chapter.interventions(sentence, mode)
        return v.headline, v.chart, {"headers": v.headers, "data": v.table}, v.prediction, v.measured, v.note, v.payload

    lab_open.takes(ctx, "chapter_tab", {sentence: "sentence", mode: "mode"})  # (a failure step: its card in sight)
    queued = dict(concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
    card_outputs = [*(c for slot in slots for c in slot), cards_json]
    outputs = [headline, chart, table, prediction, measured, note, payload]
    endpoints.publish(failure_modes, "failure_modes", [], [cards_json], **queued)
    endpoints.publish(interventions, "interventions", [sentence, mode], outputs, **queued)
    # The page's own events skip the queue, as the Attention tab's do (a finished queued event would leave its
    # inputs in every later event's walk, docs/app.md); core.serve.slots bounds their CPU; a mistake is said in
    # the problem box.
    fast = dict(queue=False, api_visibility="private", trigger_mode="always_last", show_progress="hidden")
    drawn = user_errors(interventions, unqueued=len(outputs))
    gr.on([sentence.change, mode.change], drawn, [sentence, mode], [*outputs, problem], **fast)
    ctx.tab.select(user_errors(show_cards, unqueued=len(card_outputs)), None, [*card_outputs, problem], **fast).then(
        drawn, [sentence, mode], [*outputs, problem], **fast)
    ctx.filled_on_show(table)  # (its headers too, in the page's language)
    ctx.warm.append(chapter.warm)  # the cards and the held-out table, once per process
