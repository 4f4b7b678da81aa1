"""The Real model tab: GPT-2 (or the tiny model) broken live by the student's toggles. Layout and wiring only."""

from __future__ import annotations

import gradio as gr

from core.serve import real_model

from .common import CPU_GROUP, CPU_LIMIT, export_button, user_errors, view

TITLE = "Real model"
HEADERS = ["rank", "intact: next word (p)", "broken: next word (p)"]
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
    words = gr.Dataframe(headers=HEADERS, interactive=False,
                         label="The likeliest next words after the sentence", elem_id="real-words",
                         elem_classes=["al-big-table"])
    chart = view(None, elem_id="real-model-view")
    export_button(chart, "real-model-view")

    @user_errors
    def draw(sentence: str, model: str, causal: bool, scaled: bool, ablate: str):
        """The page's call: the view, the words and the summary (the JSON, ~1.5 MB for GPT-2, stays on the server)."""
        shown, table, text, _ = real_model.model_attention(sentence, model, causal, scaled, ablate)
        return shown, {"headers": HEADERS, "data": table}, text

    inputs, outputs = [sentence, model, causal, scaled, ablate], [chart, words, summary]
    triggers = [ctx.tab.select, sentence.submit, model.change, causal.change, scaled.change, ablate.submit]
    gr.on(triggers, draw, inputs, outputs, api_visibility="private", concurrency_id=CPU_GROUP,
          concurrency_limit=CPU_LIMIT, trigger_mode="always_last", show_progress="minimal")

    @user_errors
    def model_attention(sentence: str, model: str = "gpt2", causal: bool = True, scaled: bool = True,
                        ablate: str = "[]") -> tuple[str, dict]:
        """A real model broken live: (summary, JSON {"tokens", "weights" [L][H][T][T], "next_words", "loss_bits",
        "intact"}); model "gpt2" is the one ATTENTION_LAB_GPT2 names, "tiny" the model trained here."""
        _, _, text, numbers = real_model.model_attention(sentence, model, causal, scaled, ablate)
        return text, numbers

    gr.api(model_attention, api_name="model_attention", concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
