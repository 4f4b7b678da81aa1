"""The Real model tab: GPT-2 (or the tiny model) broken live by the student's toggles. Layout and wiring only."""

from __future__ import annotations

import gradio as gr

from core.serve import real_model

from .common import CPU_GROUP, CPU_LIMIT, api_accordion, export_button, user_errors, view

TITLE = "Real model"
SENTENCES = {"gpt2": "The cat sat on the mat because it was tired",  # GPT-2 reads any English
             "tiny": "the fox that the child saw was hungry , so the fox slept ."}  # the tiny model's own corpus
INTRO = """### Break a real model
A trained model, every layer and head, on your sentence. Lift the causal mask, drop the √d scaling or zero
some heads: the change reaches **every layer**, and the model's predictions say what it cost — the
likeliest next words and the sentence's loss in bits per token, intact beside broken. GPT-2 is here when
the app names one (`ATTENTION_LAB_GPT2`, docs/app.md); the tiny model trained here always is."""


def build(ctx) -> None:
    names = real_model.model_names()  # gpt2 only when ATTENTION_LAB_GPT2 names one; picking it otherwise says how
    first = "gpt2" if "gpt2" in names else "tiny"
    gr.Markdown(INTRO)
    with gr.Row():
        sentence = gr.Textbox(SENTENCES[first], label="Sentence", elem_id="real-sentence", scale=3)
        model = gr.Radio(list(real_model.NAMES), value=first, label="Model",
                         elem_id="real-model")
    with gr.Row():
        causal = gr.Checkbox(True, label="causal mask", elem_id="real-causal")
        scaled = gr.Checkbox(True, label="√d scaling", elem_id="real-scaled")
        ablate = gr.Textbox("[]", label="heads to zero: a JSON list of [layer, head], e.g. [[0, 1], [5, 3]]",
                            elem_id="real-ablate", scale=2)
    summary = gr.Markdown(elem_id="real-summary")
    words = gr.Dataframe(headers=["rank", "intact: next word (p)", "broken: next word (p)"], interactive=False,
                         label="The likeliest next words after the sentence", elem_id="real-words",
                         elem_classes=["al-big-table"])
    chart = view(None, elem_id="real-model-view")
    export_button(chart, "real-model-view")
    with api_accordion():
        payload = gr.JSON(label="JSON (the /model_attention API output)", open=False)

    @user_errors
    def model_attention(sentence: str, model: str = "gpt2", causal: bool = True, scaled: bool = True,
                        ablate: str = "[]"):
        """Every layer's weights of the broken model, its next words and loss beside the intact model's."""
        shown, table, text, numbers = real_model.model_attention(sentence, model, causal, scaled, ablate)
        return shown, {"headers": ["rank", "intact: next word (p)", "broken: next word (p)"], "data": table}, \
            text, numbers

    inputs, outputs = [sentence, model, causal, scaled, ablate], [chart, words, summary, payload]
    triggers = [ctx.tab.select, sentence.submit, model.change, causal.change, scaled.change, ablate.submit]
    gr.on(triggers, model_attention, inputs, outputs, api_name="model_attention", concurrency_id=CPU_GROUP,
          concurrency_limit=CPU_LIMIT, trigger_mode="always_last", show_progress="minimal")
