"""The Attention tab's "trained tiny model" side of the weights switch. Layout and wiring only."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from core.lab.trained_view import EXAMPLES, last_layer_and_head, layer_panel
from core.render.heatmap import heatmap_grid

from .common import CPU_GROUP, CPU_LIMIT, plot, user_errors

RANDOM, TRAINED = "random, seeded", "trained tiny model"
INTRO = (
    "A 2-layer GPT trained by `attention-lab train` on the lab's synthetic corpus, shipped with the app. "
    "Each head is named from a measurement on 200 held-out sentences (its mean weight on the previous "
    "token, on itself, on the earlier mention of the same noun, ...), never from a guess. "
    "It knows only the corpus's words: pick an example or write in its style."
)


@user_errors
def show(sentence: str, layer: float, head: float):
    """Every head of one trained layer, the chosen head's measured role, and the unknown words."""
    panel = layer_panel(sentence, int(layer), int(head))
    image = heatmap_grid([w.numpy() for w in panel.weights], panel.tokens, panel.titles)
    return plot(image), panel.selected, panel.roles, panel.note


@dataclass
class TrainedPanel:
    """The hidden column, and what the switch calls to fill it when it is first shown."""

    column: gr.Column
    inputs: list
    outputs: list

    def warm(self) -> None:
        """Load the tiny model and draw its default panel before anyone asks (~0.7 s)."""
        show(*(c.value for c in self.inputs))

    def fill(self, weights: str, *values):
        """Draw the panel when the switch turns to the trained model; leave it alone otherwise."""
        return show(*values) if weights == TRAINED else tuple(gr.skip() for _ in self.outputs)


def build(ctx) -> TrainedPanel:
    """A hidden column; nothing is loaded until the switch first shows it (fast start-up)."""
    last_layer, last_head = last_layer_and_head()
    with gr.Column(visible=False) as column:
        gr.Markdown(INTRO)
        sentence = gr.Dropdown(list(EXAMPLES), value=EXAMPLES[0], allow_custom_value=True,
                               label="Sentence (the tiny model's words)", elem_id="trained-sentence")
        with gr.Row():
            layer = gr.Slider(0, last_layer, value=last_layer, step=1, label="layer", elem_id="trained-layer")
            head = gr.Slider(0, last_head, value=0, step=1, label="head", elem_id="trained-head")
        heatmaps = gr.Plot(label="Trained attention weights: every head of this layer", elem_id="trained-heatmaps")
        selected = gr.Textbox(label="What the chosen head does (measured)", interactive=False,
                              elem_id="trained-role")
        roles = gr.Textbox(label="Every head of this layer", lines=4, interactive=False)
        note = gr.Textbox(label="Notes", interactive=False)
    inputs, outputs = [sentence, layer, head], [heatmaps, selected, roles, note]
    gr.on(
        [sentence.change, layer.release, head.release], show, inputs, outputs,
        api_name="trained_attention", concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT,
        trigger_mode="always_last", show_progress="minimal",
    )
    return TrainedPanel(column, inputs, outputs)
