"""The Attention tab's "trained tiny model" side of the weights switch. Layout and wiring only."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from core.lab.trained_view import EXAMPLES, last_layer_and_head
from core.serve.trained import opening_head, trained

from .common import CPU_GROUP, CPU_LIMIT, api_accordion, export_button, user_errors, view

RANDOM, TRAINED = "random, seeded", "trained tiny model"
INTRO = (
    "A 2-layer GPT trained by `attention-lab train` on the lab's synthetic corpus, shipped with the app. "
    "Each head is named from a measurement on 200 held-out sentences (its mean weight on the previous "
    "token, on itself, on the earlier mention of the same noun, ...), never from a guess. "
    "It knows only the corpus's words: pick an example or write in its style."
)
TEXT = {
    "sentence": "Sentence (the tiny model's words)",
    "layer": "layer",
    "head": "head",
    "selected": "What the opened head does (measured)",
    "roles": "Every head of its layer",
    "notes": "Notes",
    "payload": "JSON (the /trained_attention API output)",
}


@user_errors
def show(sentence: str, layer: float, head: float):
    """Every layer x head of the trained model, the chosen head opened with its measured role; JSON last."""
    v = trained(sentence, layer, head)
    return v.model, v.selected, v.roles, v.note, v.payload


@dataclass
class TrainedPanel:
    """The hidden column, and what the switch calls to fill it when it is shown."""

    column: gr.Column
    sentence: gr.Dropdown
    inputs: list
    outputs: list
    filled: list  # the sliders, then the outputs

    def warm(self) -> None:
        """Load the tiny model, measure its heads and build the opening view before anyone asks (~0.7 s)."""
        layer, head = opening_head()
        show(self.sentence.value, layer, head)

    def fill(self, weights: str, sentence: str):
        """When the switch turns to the trained model: open its most telling head."""
        if weights != TRAINED:
            return tuple(gr.skip() for _ in self.filled)
        layer, head = opening_head()
        return (layer, head, *show(sentence, layer, head))


def build(ctx) -> TrainedPanel:
    """A hidden column; nothing is loaded until the switch first shows it (fast start-up)."""
    last_layer, last_head = last_layer_and_head()
    with gr.Column(visible=False) as column:
        gr.Markdown(INTRO)
        sentence = gr.Dropdown(list(EXAMPLES), value=EXAMPLES[0], allow_custom_value=True,
                               label=TEXT["sentence"], elem_id="trained-sentence")
        model = view(None, elem_id="trained-heatmaps")  # the opened head's role and any note are written in it
        export_button(model, "trained")
        with api_accordion():
            selected = gr.Textbox(label=TEXT["selected"], interactive=False, elem_id="trained-role")
            note = gr.Textbox(label=TEXT["notes"], interactive=False, elem_id="trained-note")
            with gr.Row():
                layer = gr.Slider(0, last_layer, value=last_layer, step=1, label=TEXT["layer"], elem_id="trained-layer")
                head = gr.Slider(0, last_head, value=0, step=1, label=TEXT["head"], elem_id="trained-head")
            roles = gr.Textbox(label=TEXT["roles"], lines=4, interactive=False)
            payload = gr.JSON(label=TEXT["payload"], open=False)
    inputs, outputs = [sentence, layer, head], [model, selected, roles, note, payload]
    gr.on(
        [sentence.change, layer.input, head.input], show, inputs, outputs,
        api_name="trained_attention", concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT,
        trigger_mode="always_last", show_progress="minimal",
    )
    return TrainedPanel(column, sentence, inputs, outputs, [layer, head, *outputs])
