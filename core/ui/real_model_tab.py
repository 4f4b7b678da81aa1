"""The Real model tab: a real model (GPT-2, Llama, Qwen, Mistral, Gemma, or the tiny model) broken live by the
student's switches and variants, in every view that fits (model view and head view, one layer step by step with RoPE
as its own step, the causality check). Layout and wiring only."""

from __future__ import annotations

import gradio as gr

from core.i18n import mark, t
from core.lab.real_steps import FIELDS
from core.serve import real_model, real_models, real_variants, real_views

from . import lab_open
from .common import CPU_GROUP, CPU_LIMIT, EXPORT, EXPORTED, problem_box, user_errors, view
from .i18n import static

TITLE = mark("Real model")
HEADERS = [mark("rank"), mark("intact: next word (p)"), mark("broken: next word (p)")]
SENTENCES = {"tiny": "the fox that the child saw was hungry , so the fox slept ."}  # the tiny model's own corpus
ANY_SENTENCE = "The cat sat on the mat because it was tired"  # a real model reads any English
INTRO = mark("""### Break a real model
A trained model, every layer and head, on your sentence: the tiny model trained here, and the models this app names (GPT-2, Llama, Qwen, Mistral, Gemma: `ATTENTION_LAB_MODELS`, docs/app.md). Lift the causal mask, drop the √d scaling, zero some heads or run one of the lab's variants in the model's place: the change reaches **every layer**, and the model's predictions say what it cost — the likeliest next words and the sentence's loss in bits per token, intact beside broken. Each head is named by the pattern its weights show on this sentence (measured here, never a stored label); a model with grouped-query attention shows its heads in their key/value groups, and a sliding-window layer its band.""")
OWN = mark("the model's own formula")
STAGE_IDS = {"q_pre": "Q-pre", "k_pre": "K-pre", "q": "Q", "k": "K", "v": "V"}  # the page's ids (stable)
TEXT = {
    "steps": mark("Step through one layer and head of this model"),
    "steps_help": mark("The real hidden states entering the layer, through its own weights: Q and K as its projections "
                       "make them, then rotated by their positions (RoPE, in every family but GPT-2), V, the scores, "
                       "scaled, capped (Gemma 2), masked (a sliding-window layer by its band), the weights and the "
                       "context. A query head reads the key/value head of its group. The switches above apply here "
                       "too."),
    "layer": mark("layer"), "head": mark("head"),
    "causality": mark("Causality: change a later token, every layer's earlier rows stay identical"),
    "causality_help": mark("One token of the sentence is replaced; the maps show, per layer, how far any head's "
                           "weights moved. With the causal mask the rows before the change do not move at all."),
    "position": mark("token to change (position)"),
    "word": mark("replace it with (one token; GPT-2 words start with a space)"),
    "variant": mark("a variant in the model's place"),
    "options": mark("its options: a JSON object, e.g. {\"window\": 4}; add \"layer\": 3 for one layer only"),
}
OPEN_JS = "() => 'open ' + Date.now()"


def build(ctx) -> None:
    real_variants.use_registry(ctx.registry)
    names = real_models.names()  # tiny, then gpt2 and ATTENTION_LAB_MODELS' (refused ones are said below, and logged)
    first = next((n for n in names if n != real_models.TINY), real_models.TINY)
    gr.Markdown(static(INTRO))
    refused = gr.Markdown("\n\n".join(real_models.refusal_notes()), elem_id="real-refused")
    ctx.first_values([refused], lambda: "\n\n".join(real_models.refusal_notes()))
    with gr.Row():
        sentence = gr.Textbox(SENTENCES.get(first, ANY_SENTENCE), label=static("Sentence"), elem_id="real-sentence",
                              scale=3)
        model = gr.Radio(names, value=first, label=static("Model"), elem_id="real-model")
    with gr.Row():
        causal = gr.Checkbox(True, label=static("causal mask"), elem_id="real-causal")
        scaled = gr.Checkbox(True, label=static("√d scaling"), elem_id="real-scaled")
        ablate = gr.Textbox("[]", label=static("heads to zero: a JSON list of [layer, head], e.g. [[0, 1], [5, 3]]"),
                            elem_id="real-ablate", scale=2)
    with gr.Row():
        variant = gr.Dropdown([(static(OWN), ""), *((n, n) for n in ctx.registry.variants)], value="",
                              label=static(TEXT["variant"]), elem_id="real-variant")
        options = gr.Textbox("{}", label=static(TEXT["options"]), elem_id="real-options", scale=2)
    problem = problem_box("real-problem")
    summary = gr.Markdown(elem_id="real-summary")
    words = gr.Dataframe(headers=list(HEADERS), interactive=False,  # (each draw sends them in the page's language)
                         label=static("The likeliest next words after the sentence"), elem_id="real-words",
                         elem_classes=["al-big-table"])
    chart = view(None, elem_id="real-model-view")
    with gr.Row():  # the PNG is redrawn from what made the view (the page holds it compact): not common.export_button
        export = gr.Button(static(EXPORT), size="sm", scale=0, min_width=220, elem_id="real-model-view-export")
        png = gr.File(label=static(EXPORTED), visible=False, interactive=False, elem_id="real-model-view-png")

    with gr.Accordion(static(TEXT["steps"]), open=False, elem_id="real-steps") as steps_panel:
        gr.Markdown(static(TEXT["steps_help"]))
        with gr.Row():
            layer = gr.Slider(0, 11, value=0, step=1, label=static(TEXT["layer"]), elem_id="real-step-layer")
            head = gr.Slider(0, 11, value=0, step=1, label=static(TEXT["head"]), elem_id="real-step-head")
        steps_problem = problem_box("real-steps-problem")
        rows, formulas, stages = [], [], []
        for field in FIELDS:
            name = STAGE_IDS.get(field, field)
            with gr.Row(equal_height=False) as row:
                with gr.Column(scale=1, min_width=280):
                    formulas.append(gr.Markdown(elem_id=f"real-step-formula-{name}", elem_classes=["al-formula"]))
                with gr.Column(scale=3):
                    stages.append(view(None, elem_id=f"real-step-{name}"))
            rows.append(row)
        steps_open = gr.Textbox("closed", visible=False)

    with gr.Accordion(static(TEXT["causality"]), open=False, elem_id="real-causality") as causality_panel:
        gr.Markdown(static(TEXT["causality_help"]))
        with gr.Row():
            position = gr.Slider(1, 8, value=4, step=1, label=static(TEXT["position"]), elem_id="real-position")
            word = gr.Textbox(" dog", label=static(TEXT["word"]), elem_id="real-word")
        causality_problem = problem_box("real-causality-problem")
        causality_summary = gr.Markdown(elem_id="real-causality-summary")
        causality_view = view(None, elem_id="real-causality-view")
        causality_open = gr.Textbox("closed", visible=False)

    def draw(sentence, model, causal, scaled, ablate, variant, options):
        """The page's call: the view, the words and the summary (the JSON, ~1.5 MB for GPT-2, stays on the server)."""
        shown, table, text = real_model.model_view(sentence, model, causal, scaled, ablate, variant, options)
        return shown, {"headers": [t(h) for h in HEADERS], "data": table}, text

    def step(opened, sentence, model, causal, scaled, ablate, variant, options, layer, head):
        """One layer and head of the model, stage by stage, while the section is open (rows it has not: hidden)."""
        if not str(opened).startswith("open"):
            return tuple(gr.skip() for _ in step_outputs)
        texts, views = real_views.step_view(sentence, model, causal, scaled, layer, head, ablate, variant, options)
        last_layer, last_head = real_views.last_layer_and_head(model)
        shown = [gr.update(visible=text is not None) for text in texts]
        return (gr.update(maximum=last_layer), gr.update(maximum=last_head), *shown,
                *(text if text is not None else gr.skip() for text in texts),
                *(v if v is not None else gr.skip() for v in views))

    def check(opened, sentence, model, causal, scaled, ablate, variant, options, position, word):
        """The causality check on the sentence, while the section is open."""
        if not str(opened).startswith("open"):
            return gr.skip(), gr.skip(), gr.skip()
        last, shown, text = real_views.causality_on_page(sentence, model, causal, scaled, position, word, ablate,
                                                         variant, options)
        return gr.update(maximum=last), shown, text

    # The page's events skip Gradio's queue (one round trip instead of a join, a stream and a message);
    # core.serve.slots bounds the CPU they use instead, and a mistake is said in the section's problem box.
    # A closed section costs a toggle nothing: the page re-stamps its "open" box after the model view is
    # drawn (no round trip), and only an open section's box changes, which redraws it.
    fast = dict(queue=False, api_visibility="private", trigger_mode="always_last", show_progress="hidden")
    main = [sentence, model, causal, scaled, ablate, variant, options]
    lab_open.takes(ctx, "real_model_tab", {sentence: "sentence", model: "model"})  # the model a step ran, if any
    drawn = gr.on([ctx.tab.select, sentence.submit, model.change, causal.change, scaled.change, ablate.submit,
                   variant.change, options.submit],
                  user_errors(draw, unqueued=3), main, [chart, words, summary, problem], **fast)
    step_outputs = [layer, head, *rows, *formulas, *stages]
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
                        ablate: str = "[]", variant: str = "", options: str = "{}") -> tuple[str, dict]:
        """A real model broken live: (summary, JSON {"tokens", "weights" [L][H][T][T], "next_words", "loss_bits",
        "intact", "architecture" {"family", "n_layers", "n_heads", "n_kv_heads", "windows"}}); model "tiny" is the
        model trained here, "gpt2" the one ATTENTION_LAB_GPT2 names, any other a name from ATTENTION_LAB_MODELS;
        variant a registered variant run in the model's place (options: its JSON options, "layer" for one layer)."""
        _, _, text, numbers = real_model.model_attention(sentence, model, causal, scaled, ablate, variant, options)
        return text, numbers

    first_sentence = sentence.value
    ctx.filled_on_show(words)  # (its headers too, in the page's language)
    ctx.warm.append(lambda: real_model.model_view(first_sentence, first, True, True, "[]"))  # loads the first model
    gr.api(model_attention, api_name="model_attention", concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
