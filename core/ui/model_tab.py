"""The Model tab: a GPT-2-sized preset over any variant; where its parameters live and what its KV cache costs."""

from __future__ import annotations

import gradio as gr

from core.i18n import mark, t
from core.model import PRESETS
from core.serve.plugins import counted_size
from core.serve.views import model_chart

from . import endpoints
from .attention_tab import variant_choices
from .common import CPU_GROUP, CPU_LIMIT, api_accordion, export_button, problem_box, user_errors, view
from .i18n import static

TITLE = mark("Model")
PARTS_HEADERS = [mark("part"), mark("parameters"), mark("share")]
COMPARE_HEADERS = ["", mark("multi-head (reference)"), mark("this variant")]


def build(ctx) -> None:
    registry = ctx.registry
    gr.Markdown(static("""### From layer to model
A GPT is token and position embeddings, `n_layers` blocks (LayerNorm → attention → residual,
LayerNorm → MLP 4× → residual), a final LayerNorm and an output head tied to the token embedding.
Only the attention layer comes from the plugin registry. The counts below come from building
the real model on PyTorch's *meta* device (shapes, no memory): the GPT-2 presets match the
published checkpoints exactly. Grouped-query attention shrinks the K/V projections and the KV
cache; a sliding window keeps the parameters but caps how many tokens the cache must hold."""))
    with gr.Row():
        preset = gr.Dropdown(list(PRESETS), value="gpt2-small", label=static("Preset"),
                             elem_id="model-preset")  # (the presets' names, in every language)
        variant = gr.Dropdown(variant_choices(registry), value="gqa", label=static("Attention variant"),
                              elem_id="model-variant", scale=2)  # (a variant's title whole, in Spanish too)
        n_kv = gr.Number(value=4, precision=0, minimum=1, label=static("n_kv_heads (GQA; must divide n_heads)"),
                         elem_id="model-kv")
        window = gr.Number(value=256, precision=0, minimum=1, label=static("window (sliding window)"),
                           elem_id="model-window")
    problem = problem_box("model-problem")
    summary = gr.Markdown(elem_id="model-summary")
    chart = view(None, elem_id="model-chart")
    export_button(chart, "model-chart")
    with gr.Row():
        # (no headers until the tab is first shown: they come with the values, in the page's language)
        parts = gr.Dataframe(interactive=False, label=static("Where the parameters are"),
                             elem_classes=["al-big-table"], wrap=True, elem_id="model-parts")
        compare = gr.Dataframe(interactive=False, wrap=True,
                               label=static("Against plain multi-head"), elem_classes=["al-big-table"],
                               elem_id="model-compare",
                               column_widths=["40%", "30%", "30%"])  # (fits half of 1024 px: cells wrap)
    with api_accordion():
        payload = gr.JSON(label=static("JSON (the /model_size API output)"), open=False)

    @user_errors
    def size(preset: str, variant: str, n_kv_heads: float, window: float):
        """Parameter breakdown and KV-cache size for a preset over a variant."""
        parts, compare, summary, numbers = counted_size(registry, preset, variant, n_kv_heads, window)
        return (model_chart(numbers), {"headers": [t(h) for h in PARTS_HEADERS], "data": parts},
                {"headers": [t(h) if h else h for h in COMPARE_HEADERS], "data": compare}, summary, numbers)

    inputs, outputs = [preset, variant, n_kv, window], [chart, parts, compare, summary, payload]
    ctx.first_values([parts, compare], lambda: (gr.skip(), gr.skip()))  # none to send: filled when the tab is shown
    ctx.warm.append(lambda: counted_size(registry, *(c.value for c in inputs)))  # GPT-2 counted on the meta device
    triggers = [*(c.change for c in inputs), *([ctx.tab.select] if getattr(ctx, "tab", None) else [])]
    endpoints.publish(size, "model_size", inputs, outputs, concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
    # filled when the tab is first opened; the page's own events skip the queue (counted on the meta device,
    # cached: milliseconds; a finished queued event would cost every later event of the page, docs/app.md)
    gr.on(triggers, user_errors(size, unqueued=len(outputs)), inputs, [*outputs, problem], queue=False,
          api_visibility="private", trigger_mode="always_last", show_progress="hidden")
