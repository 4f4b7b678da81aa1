"""The Attention tab's "trained tiny model" side of the weights switch. Layout and wiring only."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from core.i18n import mark, t
from core.lab.trained_view import EXAMPLES, REFERENCE_SENTENCES, last_layer_and_head
from core.serve.trained import opening_head, trained

from .common import CPU_GROUP, CPU_LIMIT, api_accordion, export_button, user_errors, view
from .i18n import static, static_made

RANDOM, TRAINED = "random, seeded", "trained tiny model"  # the Weights switch's values (codes: a link sets them)
INTRO = mark(
    "A 2-layer GPT trained by `attention-lab train` on the lab's synthetic corpus, shipped with the app. "
    "Each head is named from a measurement on {n} held-out sentences (its mean weight on the previous "
    "token, on itself, on the earlier mention of the same noun, on the noun 它 / it refers to, ...), never from "
    "a guess. It opens on the chapter's sentence with the row of 它 lit: read where it looks. "
    "It knows only the corpus's words: pick an example or write in its style."
)


@user_errors
def show(sentence: str, layer: float, head: float):
    """Every layer x head of the trained model, the chosen head opened with its measured role; the whole model's
    JSON {"tokens", "weights": [L][H][T][T], "roles": [L][H]}, then the opened layer's JSON (last, as before)."""
    v = trained(sentence, layer, head)
    return v.model, v.selected, v.roles, v.note, v.model_json, v.payload


@dataclass
class TrainedPanel:
    """The hidden column, and what the switch calls to fill it when it is shown."""

    column: gr.Column
    sentence: gr.Dropdown
    inputs: list
    outputs: list
    filled: list  # the sliders, then the outputs
    copy_link: gr.Button  # Copy link while the trained model is shown (the random side's is in its own column)

    def warm(self) -> None:
        """Load the tiny model, measure its heads and build the opening view before anyone asks."""
        layer, head = opening_head()
        show(self.sentence.value, layer, head)

    def fill(self, weights: str, sentence: str):
        """When the switch turns to the trained model: open its most telling head."""
        if weights != TRAINED:
            return tuple(gr.skip() for _ in self.filled)
        layer, head = opening_head()
        return (layer, head, *show(sentence, layer, head))


def build(ctx, copy_label: str) -> TrainedPanel:
    """A hidden column; nothing is loaded until the switch first shows it (fast start-up). copy_label: the Copy
    link button's words (core.ui.lab_link's, which reads this module's switch values: no import back)."""
    last_layer, last_head = last_layer_and_head()
    with gr.Column(visible=False) as column:
        gr.Markdown(static_made(lambda: t(INTRO, n=REFERENCE_SENTENCES)))
        with gr.Row(equal_height=False):
            sentence = gr.Dropdown(list(EXAMPLES), value=EXAMPLES[0], allow_custom_value=True, scale=1,
                                   label=static("Sentence (the tiny model's words)"), elem_id="trained-sentence",
                                   elem_classes=["al-example"])
            copy_link = gr.Button(copy_label, size="sm", variant="secondary", elem_id="trained-link-copy",
                                  elem_classes=["al-link-copy"], scale=0, min_width=120)  # one line, by the box
        model = view(None, elem_id="trained-heatmaps")  # the opened head's role and any note are written in it
        export_button(model, "trained")
        with api_accordion():
            selected = gr.Textbox(label=static("What the opened head does (measured)"), interactive=False,
                                  elem_id="trained-role")
            note = gr.Textbox(label=static("Notes"), interactive=False, elem_id="trained-note")
            with gr.Row():
                layer = gr.Slider(0, last_layer, value=last_layer, step=1, label=static("layer"),
                                  elem_id="trained-layer")
                head = gr.Slider(0, last_head, value=0, step=1, label=static("head"), elem_id="trained-head")
            roles = gr.Textbox(label=static("Every head of its layer"), lines=4, interactive=False)
            model_json = gr.JSON(label=static("JSON: every layer and head, with each head's measured name"), open=False)
            payload = gr.JSON(label=static("JSON (the /trained_attention API output: the opened layer)"), open=False)
    inputs, outputs = [sentence, layer, head], [model, selected, roles, note, model_json, payload]
    gr.on(
        [sentence.change, layer.input, head.input], show, inputs, outputs,
        api_name="trained_attention", concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT,
        trigger_mode="always_last", show_progress="minimal",
    )
    return TrainedPanel(column, sentence, inputs, outputs, [layer, head, *outputs], copy_link)
