"""The Real model tab: GPT-2 (or the tiny model) broken live by the student's toggles, in every view that fits
(model view and head view, one layer step by step, the causality check). Layout and wiring only."""

from __future__ import annotations

import gradio as gr

from core.i18n import mark
from core.serve import real_model, real_views

from .common import CPU_GROUP, CPU_LIMIT, EXPORT, EXPORTED, problem_box, user_errors, view

TITLE = mark("Real model")
HEADERS = ["rank", "intact: next word (p)", "broken: next word (p)"]
SENTENCES = {"gpt2": "The cat sat on the mat because it was tired",  # GPT-2 reads any English
             "tiny": "the fox that the child saw was hungry , so the fox slept ."}  # the tiny model's own corpus
INTRO = """### Break a real model
A trained model, every layer and head, on your sentence. Lift the causal mask, drop the √d scaling or zero some heads: the change reaches **every layer**, and the model's predictions say what it cost — the likeliest next words and the sentence's loss in bits per token, intact beside broken. Each head is named by the pattern its weights show on this sentence (measured here, never a stored label). GPT-2 is here when the app names one (`ATTENTION_LAB_GPT2`, docs/app.md); the tiny model trained here always is."""
STEPS = ("Q", "K", "V", "scores", "scaled", "masked", "weights", "context")
TEXT = {
    "steps": "Step through one layer and head of this model",
    "steps_help": "The real hidden states entering the layer, through its own weights: Q, K and V (GPT-2's c_attn "
                  "split in three), the scores, scaled, masked, the weights and the context. The toggles above "
                  "apply here too.",
    "layer": "layer", "head": "head",
    "causality": "Causality: change a later token, every layer's earlier rows stay identical",
    "causality_help": "One token of the sentence is replaced; the maps show, per layer, how far any head's "
                      "weights moved. With the causal mask the rows before the change do not move at all.",
    "position": "token to change (position)",
    "word": "replace it with (one token; GPT-2 words start with a space)",
}
OPEN_JS = "() => 'open ' + Date.now()"


def build(ctx) -> None:
    names = real_model.model_names()  # gpt2 only when ATTENTION_LAB_GPT2 names one; picking it otherwise says how
    first = "gpt2" if "gpt2" in names else "tiny"
    gr.Markdown(INTRO)
    with gr.Row():
        sentence = gr.Textbox(SENTENCES[first], label="Sentence", elem_id="real-sentence", scale=3)
        model = gr.Radio(list(real_model.NAMES), value=first, label="Model", elem_id="real-model")
    with gr.Row():
        causal = gr.Checkbox(True, label="causal mask", elem_id="real-causal")
        scaled = gr.Checkbox(True, label="√d scaling", elem_id="real-scaled")
        ablate = gr.Textbox("[]", label="heads to zero: a JSON list of [layer, head], e.g. [[0, 1], [5, 3]]",
                            elem_id="real-ablate", scale=2)
    problem = problem_box("real-problem")
    summary = gr.Markdown(elem_id="real-summary")
    words = gr.Dataframe(headers=HEADERS, interactive=False,
                         label="The likeliest next words after the sentence", elem_id="real-words",
                         elem_classes=["al-big-table"])
    chart = view(None, elem_id="real-model-view")
    with gr.Row():  # the PNG is redrawn from what made the view (the page holds it compact): not common.export_button
        export = gr.Button(EXPORT, size="sm", scale=0, min_width=220, elem_id="real-model-view-export")
        png = gr.File(label=EXPORTED, visible=False, interactive=False, elem_id="real-model-view-png")

    with gr.Accordion(TEXT["steps"], open=False, elem_id="real-steps") as steps_panel:
        gr.Markdown(TEXT["steps_help"])
        with gr.Row():
            layer = gr.Slider(0, 11, value=0, step=1, label=TEXT["layer"], elem_id="real-step-layer")
            head = gr.Slider(0, 11, value=0, step=1, label=TEXT["head"], elem_id="real-step-head")
        steps_problem = problem_box("real-steps-problem")
        formulas, stages = [], []
        for name in STEPS:
            with gr.Row(equal_height=False):
                with gr.Column(scale=1, min_width=280):
                    formulas.append(gr.Markdown(elem_id=f"real-step-formula-{name}", elem_classes=["al-formula"]))
                with gr.Column(scale=3):
                    stages.append(view(None, elem_id=f"real-step-{name}"))
        steps_open = gr.Textbox("closed", visible=False)

    with gr.Accordion(TEXT["causality"], open=False, elem_id="real-causality") as causality_panel:
        gr.Markdown(TEXT["causality_help"])
        with gr.Row():
            position = gr.Slider(1, 8, value=4, step=1, label=TEXT["position"], elem_id="real-position")
            word = gr.Textbox(" dog", label=TEXT["word"], elem_id="real-word")
        causality_problem = problem_box("real-causality-problem")
        causality_summary = gr.Markdown(elem_id="real-causality-summary")
        causality_view = view(None, elem_id="real-causality-view")
        causality_open = gr.Textbox("closed", visible=False)

    def draw(sentence, model, causal, scaled, ablate):
        """The page's call: the view, the words and the summary (the JSON, ~1.5 MB for GPT-2, stays on the server)."""
        shown, table, text = real_model.model_view(sentence, model, causal, scaled, ablate)
        return shown, {"headers": HEADERS, "data": table}, text

    def step(opened, sentence, model, causal, scaled, layer, head):
        """One layer and head of the model, stage by stage, while the section is open."""
        if not str(opened).startswith("open"):
            return tuple(gr.skip() for _ in step_outputs)
        texts, views = real_views.step_view(sentence, model, causal, scaled, layer, head)
        last_layer, last_head = real_views.last_layer_and_head(model)
        return (gr.update(maximum=last_layer), gr.update(maximum=last_head), *texts, *views)

    def check(opened, sentence, model, causal, scaled, position, word):
        """The causality check on the sentence, while the section is open."""
        if not str(opened).startswith("open"):
            return gr.skip(), gr.skip(), gr.skip()
        last, shown, text = real_views.causality_on_page(sentence, model, causal, scaled, position, word)
        return gr.update(maximum=last), shown, text

    # The page's events skip Gradio's queue (one round trip instead of a join, a stream and a message);
    # core.serve.slots bounds the CPU they use instead, and a mistake is said in the section's problem box.
    # A closed section costs a toggle nothing: the page re-stamps its "open" box after the model view is
    # drawn (no round trip), and only an open section's box changes, which redraws it.
    fast = dict(queue=False, api_visibility="private", trigger_mode="always_last", show_progress="hidden")
    main = [sentence, model, causal, scaled]
    drawn = gr.on([ctx.tab.select, sentence.submit, model.change, causal.change, scaled.change, ablate.submit],
                  user_errors(draw, unqueued=3), [*main, ablate], [chart, words, summary, problem],
                  **fast)
    step_outputs = [layer, head, *formulas, *stages]
    for panel, opened in ((steps_panel, steps_open), (causality_panel, causality_open)):
        panel.expand(None, None, opened, js=OPEN_JS)
        panel.collapse(None, None, opened, js="() => 'closed'")
        drawn.then(None, opened, opened, js="(s) => s.startsWith('open') ? 'open ' + Date.now() : undefined")
    gr.on([steps_open.change, layer.release, head.release], user_errors(step, unqueued=len(step_outputs)),
          [steps_open, *main, layer, head], [*step_outputs, steps_problem], **fast)
    gr.on([causality_open.change, position.release, word.submit], user_errors(check, unqueued=3),
          [causality_open, *main, position, word], [position, causality_view, causality_summary, causality_problem],
          **fast)

    @user_errors
    def save(shown):
        return gr.update(value=real_model.png_file(shown), visible=True)

    export.click(save, chart, png, api_visibility="private", concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)

    @user_errors
    def model_attention(sentence: str, model: str = "gpt2", causal: bool = True, scaled: bool = True,
                        ablate: str = "[]") -> tuple[str, dict]:
        """A real model broken live: (summary, JSON {"tokens", "weights" [L][H][T][T], "next_words", "loss_bits",
        "intact"}); model "gpt2" is the one ATTENTION_LAB_GPT2 names, "tiny" the model trained here."""
        _, _, text, numbers = real_model.model_attention(sentence, model, causal, scaled, ablate)
        return text, numbers

    ctx.warm.append(lambda: real_model.model_view(sentence.value, first, True, True, "[]"))  # loads GPT-2 if named
    gr.api(model_attention, api_name="model_attention", concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
