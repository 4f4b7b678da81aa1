"""The Generate tab: the next word's probabilities, one seeded word at a time, and the KV cache. Layout and wiring only."""

from __future__ import annotations

import json

import gradio as gr

from core.i18n import mark
from core.model import PRESETS
from core.render.generate_views import HEADERS, steps_headers
from core.serve import generate

from . import endpoints
from .common import CPU_GROUP, CPU_LIMIT, api_accordion, export_button, problem_box, user_errors, view
from .i18n import static

TITLE = mark("Generate")
EXAMPLES = [  # written with spaces between tokens: the tiny model knows every word
    "the fox that the child saw was",
    "合同 违约金 过高 ， 它 可能",
    "a bear went to the river with a fish . by the river , the bear ate the",
]
TEXT = {  # msgids: the page shows each in its own language (core.ui.i18n.static)
    "intro": mark("### From attention to the next word\nA GPT reads the sentence and gives every word "
                  "of its vocabulary a probability of coming next. Pick where to look with "
                  "**position**; **temperature** flattens (above 1) or sharpens (below 1) the "
                  "probabilities, **top-k** keeps only the k likeliest words. **Generate one word** "
                  "draws the next word with the **seed** (the same seed gives the whole class the "
                  "same word), appends it, and shows how it looks back at every earlier token in "
                  "every head, and the row it adds to the KV cache."),
    "model": mark("Model"),
    "tiny": mark("Tiny model (trained here)"),
    "gpt2": mark("GPT-2, pretrained (your local copy)"),
    "model_info": mark("the tiny GPT trained by the lab on its synthetic corpus (it knows only the "
                       "corpus's words)"),
    "sentence": mark("Sentence"),
    "examples": mark("Examples"),
    "position": mark("position: predict the word after this token"),
    "temperature": mark("temperature"),
    "temperature_info": mark("1 = the model's own probabilities"),
    "top_k": mark("top_k (0 = every word; 1 = always the likeliest)"),
    "seed": mark("seed (which word is drawn)"),
    "step": mark("Generate one word"),
    "summary": mark("What the bars show"),
    "step_summary": mark("The word just generated"),
    "cache_title": mark("### What the KV cache holds"),
    "cache_help": mark("Generate a word to see each layer's keys (K) and values (V), one row per "
                       "token the model has read. A new word adds one row to each; the rows above it "
                       "never change, which is why generation can keep them instead of recomputing "
                       "them."),
    "many_title": mark("Generate several words"),
    "n_words": mark("n_words (how many words to generate)"),
    "use_cache": mark("use the KV cache (the same words either way; compare the time)"),
    "many": mark("Generate"),
    "many_table": mark("One row per generated word"),
    "many_summary": mark("Generated"),
    "real_title": mark("### The cache of a real-sized model"),
    "real_help": mark("Counted on PyTorch's meta device for the preset you pick: what each layer "
                      "keeps, what one token costs, and how much one decoding step computes with and "
                      "without the cache. Grouped-query attention shares each K/V head between "
                      "several query heads; a sliding window keeps only the last window-1 keys."),
    "preset": mark("Preset"),
    "n_kv_heads": mark("n_kv_heads (GQA; must divide n_heads)"),
    "window": mark("window (sliding window)"),
    "T": mark("T: tokens already in the context"),
    "cache_table": mark("Multi-head, grouped-query and sliding-window attention at T"),
    "measured_title": mark("### Measured: one generated token, with and without the cache"),
    "measured_table": mark("Saved benchmark (core/assets/decode.json)"),
    "next_payload": mark("JSON (the /next_words API output)"),
    "step_payload": mark("JSON (the generated word)"),
    "many_payload": mark("JSON (the /generate API output)"),
    "cache_payload": mark("JSON (the cache numbers)"),
    "api_position": mark("position (-1 = the last token)"),
}


def build(ctx) -> None:
    names = {generate.TINY: static(TEXT["tiny"]), generate.GPT2: static(TEXT["gpt2"])}
    choices = [(names[m], m) for m in generate.models()]  # a label apart from the value: translated
    gr.Markdown(static(TEXT["intro"]))
    with gr.Row():
        with gr.Column(scale=1, min_width=300):
            model = gr.Radio(choices, value=generate.TINY, label=static(TEXT["model"]), info=static(TEXT["model_info"]),
                             elem_id="generate-model")
            sentence = gr.Textbox(value=EXAMPLES[0], label=static(TEXT["sentence"]), lines=2, max_lines=6,
                                  elem_id="generate-sentence")
            gr.Markdown(static(TEXT["examples"]), elem_classes=["al-examples-title"])
            with gr.Row(elem_classes=["al-examples"]):
                examples = [gr.Button(e, size="sm", variant="secondary", elem_id=f"generate-example-{i}",
                                      elem_classes=["al-example"]) for i, e in enumerate(EXAMPLES)]
            opening = generate.example_position(EXAMPLES[0])
            position = gr.Slider(0, opening, value=opening, step=1, label=static(TEXT["position"]),
                                 elem_id="generate-position")
            temperature = gr.Slider(*generate.TEMPERATURE, value=1.0, step=0.05, label=static(TEXT["temperature"]),
                                    info=static(TEXT["temperature_info"]), elem_id="generate-temperature")
            top_k = gr.Slider(0, generate.MAX_TOP_K, value=0, step=1, label=static(TEXT["top_k"]), elem_id="generate-top-k")
            seed = gr.Number(value=0, precision=0, minimum=0, maximum=generate.MAX_SEED, label=static(TEXT["seed"]),
                             elem_id="generate-seed")
            step_button = gr.Button(static(TEXT["step"]), variant="primary", elem_id="generate-step")
        with gr.Column(scale=2):
            problem = problem_box("generate-problem")
            bars = view(None, elem_id="generate-next")
            export_button(bars, "generate-next")
            summary = gr.Textbox(label=static(TEXT["summary"]), interactive=False, elem_id="generate-summary")
            step_summary = gr.Textbox(label=static(TEXT["step_summary"]), interactive=False, visible=False, lines=2,
                                      elem_id="generate-step-summary")
            rows = view(None, elem_id="generate-rows", visible=False)
    gr.Markdown(static(TEXT["cache_title"]))
    gr.Markdown(static(TEXT["cache_help"]))
    cache = view(None, elem_id="generate-cache", visible=False)
    with gr.Accordion(static(TEXT["many_title"]), open=False):
        with gr.Row():
            n_words = gr.Slider(1, generate.MAX_WORDS, value=8, step=1, label=static(TEXT["n_words"]), elem_id="generate-n")
            use_cache = gr.Checkbox(value=True, label=static(TEXT["use_cache"]), elem_id="generate-use-cache")
            many_button = gr.Button(static(TEXT["many"]), elem_id="generate-many", scale=0, min_width=160)
        many_summary = gr.Textbox(label=static(TEXT["many_summary"]), interactive=False, lines=2, elem_id="generate-text")
        many_table = gr.Dataframe(headers=steps_headers(), interactive=False, label=static(TEXT["many_table"]),
                                  elem_id="generate-steps")
    gr.Markdown(static(TEXT["real_title"]))
    gr.Markdown(static(TEXT["real_help"]))
    with gr.Row():
        preset = gr.Dropdown(list(PRESETS), value="gpt2-small", label=static(TEXT["preset"]), elem_id="generate-preset")
        n_kv = gr.Number(value=4, precision=0, minimum=1, label=static(TEXT["n_kv_heads"]), elem_id="generate-kv")
        window = gr.Number(value=256, precision=0, minimum=1, maximum=generate.MAX_WINDOW, label=static(TEXT["window"]),
                           elem_id="generate-window")
        context = gr.Dropdown(list(generate.CACHE_T), value=1024, label=static(TEXT["T"]), elem_id="generate-T")
    cache_summary = gr.Markdown(elem_id="generate-cache-summary")
    cache_table = gr.Dataframe(headers=HEADERS["cache"], interactive=False, label=static(TEXT["cache_table"]), wrap=True,
                               elem_id="generate-cache-table", elem_classes=["al-big-table"])
    gr.Markdown(static(TEXT["measured_title"]))
    bench = generate.decode_bench()  # in English here; a page in another language gets it again (first_values)
    saved = []
    if bench.chart is not None:
        measured = view(bench.chart, elem_id="generate-decode")
        export_button(measured, "generate-decode")
        saved = [measured, gr.Dataframe(value=bench.rows, headers=bench.headers, interactive=False,
                                        label=static(TEXT["measured_table"]), elem_id="generate-decode-table")]
    caption = gr.Markdown(bench.caption, elem_id="generate-decode-caption")
    with api_accordion():
        api_position = gr.Number(value=-1, precision=0, minimum=generate.POSITIONS[0],
                                 maximum=generate.POSITIONS[1], label=static(TEXT["api_position"]), visible=False)
        next_payload = gr.JSON(label=static(TEXT["next_payload"]), open=False)
        step_payload = gr.JSON(label=static(TEXT["step_payload"]), open=False)
        many_payload = gr.JSON(label=static(TEXT["many_payload"]), open=False)
        cache_payload = gr.JSON(label=static(TEXT["cache_payload"]), open=False)

    queued = dict(concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
    predicted = [bars, summary, next_payload]

    @user_errors
    def next_words(sentence, position=-1, temperature=1.0, top_k=0, seed=0, model=generate.TINY):
        """The top-10 next words after tokens[position]; JSON {"tokens", "position", "candidates": [...], ...}."""
        v = generate.next_words(sentence, position, temperature, top_k, seed, model)
        return v.chart, v.summary, v.payload

    @user_errors
    def opened(model, sentence, temperature, top_k, seed):
        """A new sentence or model: the slider spans its tokens and opens on the last one."""
        last, top = generate.positions(sentence, model)
        v = generate.next_words(sentence, last, temperature, top_k, seed, model)
        return gr.update(maximum=top, value=last), v.chart, v.summary, v.payload

    @user_errors
    def stepped(sentence, temperature, top_k, seed, model):
        """One seeded word appended; its attention rows and the cache it grows, shown."""
        v = generate.step(sentence, temperature, top_k, seed, model)
        return (v.sentence, gr.update(value=v.rows, visible=True), gr.update(value=v.cache, visible=True),
                gr.update(value=v.summary, visible=True), v.payload)

    @user_errors
    def generate_words(sentence, n_words=8, temperature=1.0, top_k=0, seed=0, use_cache=True,
                       model=generate.TINY):
        """n_words seeded words; JSON with the words, each one's probability, cache length and seconds."""
        v = generate.generation(sentence, n_words, temperature, top_k, seed, use_cache, model)
        return {"headers": v.headers, "data": v.table}, v.summary, v.payload

    @user_errors
    def cache_numbers(preset, n_kv_heads, window, T):
        """The cache of a real-sized preset as multi-head, GQA and sliding window."""
        v = generate.cache_table(preset, n_kv_heads, window, T)
        return {"headers": v.headers, "data": v.rows}, v.summary, v.payload

    def first():
        """What the tab was built with, in the page's language: the saved benchmark, and the empty table's columns."""
        b = generate.decode_bench()
        drawn = (b.chart, {"headers": b.headers, "data": b.rows}) if saved else ()
        return (*drawn, b.caption, {"headers": steps_headers(), "data": []})

    ctx.first_values([*saved, caption, many_table], first)
    ctx.filled_on_show(cache_table)  # (its headers too, in the page's language)

    endpoints.publish(next_words, "next_words", [sentence, api_position, temperature, top_k, seed, model], predicted,
                      **queued)
    # The page's short events skip the queue, as the Attention tab's do (a finished queued event would leave its
    # inputs in every later event's walk, docs/app.md); core.serve.slots bounds their CPU; a mistake is said in
    # the problem box. Generating (a step, n words) stays queued.
    fast = dict(queue=False, api_visibility="private", trigger_mode="always_last", show_progress="hidden")
    reopen = [sentence.change, model.change, *([ctx.tab.select] if getattr(ctx, "tab", None) else [])]
    gr.on(reopen, user_errors(opened, unqueued=len([position, *predicted])), [model, sentence, temperature, top_k, seed],
          [position, *predicted, problem], **fast)
    gr.on([position.input, temperature.input, top_k.input, seed.input], user_errors(next_words, unqueued=len(predicted)),
          [sentence, position, temperature, top_k, seed, model], [*predicted, problem], **fast)
    step_button.click(stepped, [sentence, temperature, top_k, seed, model],
                      [sentence, rows, cache, step_summary, step_payload], api_visibility="private", **queued)
    many_button.click(generate_words, [sentence, n_words, temperature, top_k, seed, use_cache, model],
                      [many_table, many_summary, many_payload], api_name="generate", **queued)
    numbers = [preset, n_kv, window, context]
    gr.on([*(c.change for c in numbers), *([ctx.tab.select] if getattr(ctx, "tab", None) else [])],
          user_errors(cache_numbers, unqueued=3), numbers, [cache_table, cache_summary, cache_payload, problem], **fast)
    for button, example in zip(examples, EXAMPLES, strict=True):  # set in the page: one round trip, not two
        button.click(None, None, sentence, js=f"() => {json.dumps(example)}", queue=False)
    ctx.warm.append(lambda: generate.next_words(EXAMPLES[0], -1, 1.0, 0, 0))  # loads the tiny model
    ctx.warm.append(lambda: generate.cache_table(*(c.value for c in numbers)))  # the meta device's first use is slow
