"""The first screen: a sentence, the settings, one heatmap per head and the head view. Layout and wiring only."""

from __future__ import annotations

import json

import gradio as gr

from core.config import Option
from core.i18n import current, languages, lookup, mark, speaking, t
from core.lab.text import EXAMPLES
from core.serve import views

from . import endpoints, lab_link, stale, trained_panel
from .common import (
    CPU_GROUP,
    CPU_LIMIT,
    api_accordion,
    export_button,
    problem_box,
    user_errors,
    view,
)
from .i18n import static, static_made
from .inputs import options_json

TITLE = mark("Attention")
SENTENCE = "The cat sat on the mat because it was tired"  # the first view (and the /attention default)
ZH_SENTENCE = EXAMPLES[0]  # what a page in Chinese opens on: the chapter's sentence (core.lab.pronoun's)
OPENS_ON = {"zh-CN": ZH_SENTENCE}  # a page in this language opens on this sentence (ZH_SENTENCE_JS), not SENTENCE
D_MODELS = [4, 8, 16, 32, 64]
OPTION_LABEL = mark("{name}: {help}")  # a variant's option: its name (as the API takes it) and what it does


def option_control(opt: Option, elem_id: str) -> gr.components.Component:
    """One control from a variant's Option: dropdown (choices), checkbox, slider (small range) or number."""
    # (the help is the plugin's words: a built-in's are in the catalogues, a third party's stay as written)
    label = static_made(lambda: t(OPTION_LABEL, name=opt.name, help=lookup(opt.help))) if opt.help else opt.name
    if opt.choices is not None:
        return gr.Dropdown(list(opt.choices), value=opt.default, label=label, elem_id=elem_id)
    if isinstance(opt.default, bool):
        return gr.Checkbox(value=opt.default, label=label, elem_id=elem_id)
    if isinstance(opt.default, (int, float)):
        step = 1 if isinstance(opt.default, int) else None
        if opt.fits_a_slider:
            return gr.Slider(opt.minimum, opt.maximum, value=opt.default, step=step, label=label, elem_id=elem_id)
        return gr.Number(value=opt.default, minimum=opt.minimum, maximum=opt.maximum, precision=0 if step else None,
                         label=label, elem_id=elem_id)
    return gr.Textbox(value=str(opt.default), label=label, elem_id=elem_id)


def build(ctx) -> None:
    registry = ctx.registry

    def attention_view(*values) -> views.AttentionView:
        """The tab's one call for its view: raw values (a page's, the API's) -> the cached view, or ConfigError."""
        return views.attention(ctx.lab, *values)

    first = attention_view(SENTENCE)  # (the layout's first values: first_values fills them in the page's language)
    weights = gr.Radio([(static("random, seeded"), trained_panel.RANDOM),
                        (static("trained tiny model"), trained_panel.TRAINED)], value=trained_panel.RANDOM,
                       label=static("Weights"), elem_id="weights",
                       info=static("random layers you can reshape, or the trained tiny model's real heads"))
    with gr.Column() as random_view:
        # Every control that changes the view in one block above it, so a toggle and the heatmaps' top rows
        # share a 1024x768 screen; the long description is folded away below them.
        with gr.Row(elem_id="attention-controls", elem_classes=["al-controls"]):
            sentence = gr.Textbox(value=SENTENCE, label=static("Sentence"), lines=2, max_lines=4, elem_id="sentence",
                                  scale=3, min_width=260)
            variant = gr.Dropdown(variant_choices(registry), value="multi-head",
                                  label=static("Variant (from the plugin registry)"), elem_id="variant", scale=3,
                                  min_width=440,
                                  allow_custom_value=True)  # the API names a bad one itself (440 px: no title cut)
            with gr.Column(scale=1, min_width=210, elem_classes=["al-switches"]):
                causal = gr.Checkbox(value=True, label=static("causal mask"), elem_id="causal")
                scaled = gr.Checkbox(value=True, label=static("divide scores by √d_head"), elem_id="scaled")
            n_heads = gr.Slider(1, 8, value=2, step=1, label=static("heads (n_heads)"), elem_id="n_heads", scale=1,
                                min_width=220)
            d_model = gr.Dropdown(D_MODELS, value=16, label="d_model", elem_id="d_model", scale=1,
                                  min_width=120)  # (a name, in every language)
            seed = gr.Number(value=0, precision=0, label=static("seed"), elem_id="seed", scale=1, min_width=120)
            groups, controls = [], {}  # per variant with options: its controls, shown only when it is selected
            for v in registry.variants.values():
                if v.options:
                    with gr.Group(visible=True if v.name == "multi-head" else "hidden") as group:  # kept mounted
                        controls[v.name] = [option_control(o, f"opt-{v.name}-{o.name}") for o in v.options]
                    groups.append(group)
        with gr.Row(elem_classes=["al-examples"]):  # (no title: the buttons say what they are, and save a line)
            for i, e in enumerate(EXAMPLES):  # (no event: the page types the example, see EXAMPLES_JS)
                gr.Button(e, size="sm", variant="secondary", elem_id=f"example-{i}", elem_classes=["al-example"])
            copy_link = gr.Button(static(lab_link.TEXT["copy"]), size="sm", variant="secondary", elem_id="lab-link-copy",
                                  elem_classes=["al-link-copy"],
                                  scale=0, min_width=0)  # at the row's end: the room the examples leave (no new line)
        problem = problem_box("attention-problem")
        heatmaps = view(first.heatmaps, elem_id="attention-heatmaps")  # notes and the check line are drawn in it
        with gr.Row():
            mask = view(first.mask, elem_id="attention-mask", scale=1, min_width=260)
            with gr.Column(scale=2):
                export_button(heatmaps, "attention")
        with gr.Accordion(static("About this variant"), open=False, elem_id="attention-about"):  # long: under the view
            about = gr.Textbox(value=_about(registry, "multi-head"), show_label=False, lines=3, interactive=False)
        with api_accordion("attention-api") as api_panel:
            options = gr.Textbox(value="{}", label=static("options (JSON, as the API takes them)"), elem_id="options")
            note = gr.Textbox(first.note, label=static("Notes"), interactive=False, elem_id="note")
            payload = gr.JSON(None, label=static("JSON (the /attention API output)"), open=False,
                              elem_id="payload")  # filled when shown
            api_shown = gr.Textbox("closed", visible=False)  # "open <time>" while the panel is open
            redraw = gr.Textbox("", visible=False)  # "draw <time>": a toggle the page cannot paint itself (TOGGLE_JS)
            again = gr.Textbox("", visible=False)  # "draw <time>": a view drawn for values the controls no longer hold

    trained = trained_panel.build(ctx, static(lab_link.TEXT["copy"]))
    names = list(controls)  # the variants with an option group, in the groups' order
    switched = [n_heads, scaled, about, *groups]  # what the page's own switch to a variant sets (SWITCH_JS)
    # The weights switch, by the page itself (a container among an event's outputs costs every later event): the
    # panel it shows; then, on the random side, its variant's own controls again (shown again, the column would
    # show every group); then the trained model's panel is filled. One event, its steps chained.
    weights.change(
        None, weights, [random_view, trained.column],
        js=WEIGHTS_JS.replace("RANDOM", json.dumps(trained_panel.RANDOM)).replace(
            "TRAINED", json.dumps(trained_panel.TRAINED)), queue=False,
    ).then(None, variant, switched, js=_switch_js(registry, names), queue=False, show_progress="hidden").then(
        trained.fill, [weights, trained.sentence], trained.filled, api_visibility="private",
        concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT, show_progress="minimal")

    flat_controls = [c for ctrls in controls.values() for c in ctrls]
    inputs = [sentence, variant, causal, scaled, n_heads, d_model, seed, options]
    lab_link.wire_copy(copy_link, [*inputs, weights])  # the address of this state, built and copied in the page
    lab_link.wire_copy(trained.copy_link, [trained.sentence, *inputs[1:], weights])  # ... with weights=trained
    ctx.shared["attention_option_controls"] = controls  # a lab link sets its variant's own controls too
    outputs = [heatmaps, mask]  # the page's: the API panel's note and JSON only while it is open

    @user_errors
    def attention(sentence, variant="multi-head", causal=True, scaled=True, n_heads=2, d_model=16, seed=0,
                  options="{}"):
        """Attention weights of every head for a sentence; JSON {"tokens": [...], "weights": [H][T][T]}."""
        v = attention_view(sentence, variant, causal, scaled, n_heads, d_model, seed, options)
        return v.heatmaps, v.mask, v.check, v.note, v.payload

    def api_panel_filled(shown_now, *values):
        """The API panel's note and JSON for the view on the page, while the panel is open (a setting the view
        refuses is said in the problem box, as the view's own event says it)."""
        if isinstance(shown_now, str) and shown_now.startswith("open"):
            v = attention_view(*values)
            return v.note, v.payload
        return gr.skip(), gr.skip()

    def draw(*values):
        """The page's own call: the same view, one round trip, a mistake as a sentence (user_errors(unqueued=)); the
        view says what it was asked for, the variants' own controls too (DRAWN_JS asks again when the controls moved
        on while it was on its way)."""
        v = attention_view(*values[:len(inputs)])
        return stale.marked(v.heatmaps, asked(values)), v.mask

    def with_options(data: dict):
        """A variant picked or one of its controls moved: its options from its own controls, and its view."""
        name = data[variant]
        own = controls.get(name, [])  # (none for a variant a plugin reload added after the page was built)
        opts = options_json(registry.get(name).options, [data[c] for c in own]) if own else "{}"
        return opts, *draw(data[sentence], name, data[causal], data[scaled], data[n_heads], data[d_model],
                           data[seed], opts, *(data[c] for c in flat_controls))

    # The public /attention endpoint (gr.api: its parameters checked as these controls check a page's values)
    endpoints.publish(attention, "attention", inputs, [heatmaps, mask, gr.Textbox(render=False), note, payload],
                      concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
    # The page's events skip Gradio's queue (one HTTP round trip instead of a join, a stream and a message;
    # docs/app.md has the figures); core.serve.slots bounds the CPU they use instead.
    # Each output an event ever had costs every later event of the page (Gradio walks their loading
    # statuses twice per event), so these events have few outputs and the page switches what it can itself.
    # One handler per trigger: each control below starts exactly one event (tests/test_one_path.py counts them).
    fast = dict(queue=False, api_visibility="private", trigger_mode="always_last", show_progress="hidden",
                show_progress_on=[problem],  # no progress shown: its status on the lightest output
                preprocess=False)  # raw values: views.attention checks them and says what is wrong in a sentence
    drawn = [gr.on([sentence.change, n_heads.change, d_model.change, seed.change, options.input, options.blur,
                    redraw.change], user_errors(draw, unqueued=len(outputs)), [*inputs, *flat_controls],
                   [*outputs, problem], **fast)]  # (options.change would redraw what the events below write)
    # The causal and √d toggles: the page repaints a view that holds its scores (core/render/web/softmax.js); only
    # a view without them (a variant the page cannot redo) asks the server, through `redraw`.
    gr.on([causal.change, scaled.change], None, [heatmaps, api_shown], [redraw, api_shown], js=TOGGLE_JS,
          queue=False, api_visibility="private", show_progress="hidden")
    # a variant picked (its .change: a Dropdown's .input fires twice per pick): its view, then the page's own switch
    # of heads, scaling, description and option group (no round trip); or one of its controls moved
    picked = variant.change(user_errors(with_options, unqueued=len([options, *outputs])),
                            {variant, *inputs, *flat_controls}, [options, *outputs, problem], **fast)
    picked.then(None, variant, switched, js=_switch_js(registry, names), queue=False, show_progress="hidden")
    drawn.append(picked)
    moved = [c.input if isinstance(c, gr.Slider) else c.change for c in flat_controls]
    if moved:  # (and a view drawn for stale values: its options come again from the controls a person sees)
        drawn.append(gr.on([*moved, again.change], user_errors(with_options, unqueued=len([options, *outputs])),
                           {variant, *inputs, *flat_controls}, [options, *outputs, problem], **fast))
    # The API panel follows the page only while it is open (the page decides: no round trip while closed); a view
    # drawn for toggles the checkboxes no longer show (one moved while it was on its way) is asked for again.
    api_panel.expand(None, None, api_shown, js="() => 'open ' + Date.now()")
    api_panel.collapse(None, None, api_shown, js="() => 'closed'")
    for event in drawn:
        event.then(None, [api_shown, heatmaps, *inputs, *flat_controls], [api_shown, again if moved else redraw],
                   js=DRAWN_JS, queue=False,
                   show_progress="hidden")
    api_shown.change(user_errors(api_panel_filled, unqueued=2), [api_shown, *inputs], [note, payload, problem], **fast)

    def first_values():
        """The tab's first values in the page's language; a page that opens on its own sentence (OPENS_ON) has its
        views drawn by that sentence's change, so they are left to it (a late one here would overwrite them)."""
        v = attention_view(SENTENCE)
        drawn = (gr.skip(), gr.skip()) if current() in OPENS_ON else (v.heatmaps, v.mask)
        return (*drawn, v.note, _about(registry, "multi-head"))

    ctx.first_values([heatmaps, mask, note, about], first_values)
    # A page in Chinese opens on the chapter's Chinese sentence (the first view is drawn for the English one)
    if ctx.shown is not None:
        ctx.shown(None, sentence, sentence, js=ZH_SENTENCE_JS.replace("EN", json.dumps(SENTENCE))
                  .replace("ZH", json.dumps(ZH_SENTENCE, ensure_ascii=False)), queue=False)
    # An example is typed into the sentence box by the page, as a student types: the box's own change is then
    # the one event (a click event of its own cost a second dispatch, ~40 ms, docs/app.md)
    if "demo" in ctx.shared:
        ctx.shared["demo"].load(None, None, None, js=EXAMPLES_JS.replace("EXAMPLES", json.dumps(EXAMPLES)))
    ctx.shared["attention_inputs"] = inputs
    ctx.shared["attention_weights"] = (weights, trained.sentence)  # the Lesson tab's "open in the lab" sets them
    ctx.warm.append(trained.warm)  # the tiny model and its head roles


def asked(values) -> list:
    """The settings a view was drawn for, as the page holds them (sentence, variant, heads, d_model, seed, options;
    the two toggles are `toggles`): several controls set at once each start a draw with the values set so far."""
    sentence, variant, _causal, _scaled, *rest = values
    return [sentence, variant, *rest]


def _switch_js(registry, names: list[str]) -> str:
    """The page's own switch to a variant (no round trip, no output for later events to walk): heads and
    scaling enabled where they apply, its description in the page's language, its option group shown."""
    about = {}
    for lang in languages():
        with speaking(lang):
            about[lang] = {n: _about(registry, n) for n in registry.variants}
    table = {n: {"heads": v.uses_heads, "scaling": getattr(v, "uses_scaling", True),
                 "about": {lang: about[lang][n] for lang in languages()}}
             for n, v in registry.variants.items()}
    return (SWITCH_JS.replace("TABLE", json.dumps(table, ensure_ascii=False))
            .replace("NAMES", json.dumps(names)))


EXAMPLES_JS = """() => {
  if (window.AttnLabExamples) return;
  window.AttnLabExamples = true;  // once per page: one listener for every example button
  const examples = EXAMPLES;
  document.addEventListener("click", (e) => {
    const button = e.target.closest && e.target.closest(".al-example");
    const box = document.querySelector("#sentence textarea");
    const text = button && examples[Number(button.id.replace("example-", ""))];
    if (!box || typeof text !== "string" || box.value === text) return;
    box.value = text;
    box.dispatchEvent(new Event("input", {bubbles: true}));  // the box's value, then its change: the view
  });
}"""

ZH_SENTENCE_JS = """(s) => {
  const zh = (document.documentElement.lang || navigator.language || "").toLowerCase().startsWith("zh");
  if (!zh || s !== EN || window.AttnLabZhSentence) return s;
  window.AttnLabZhSentence = true;  // once: a sentence a student typed is never replaced
  return ZH;
}"""

SWITCH_JS = """async (name) => {
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done)));  // what was shown paints first
  const t = TABLE[name], names = NAMES;
  if (!t) return new Array(3 + names.length).fill(undefined);  // unknown here: the server's view says why
  const lang = (document.documentElement.lang || "en").toLowerCase(), langs = Object.keys(t.about);
  const said = langs.find((l) => l.toLowerCase() === lang)  // the page's language, else its primary one, else English
    || langs.find((l) => l.toLowerCase().split("-")[0] === lang.split("-")[0]) || "en";
  const up = (props) => Object.assign({__type__: "update"}, props);
  return [up({interactive: t.heads}), up({interactive: t.scaling}), t.about[said],
          ...names.map((n) => up({visible: n === name ? true : "hidden"}))];
}"""

# The weights switch: the side it shows (then, once shown, the random side's variant switch: SWITCH_JS)
WEIGHTS_JS = """(w) => [{__type__: "update", visible: w === RANDOM}, {__type__: "update", visible: w === TRAINED}]"""

# A toggle: a view that holds its scores is the page's to repaint (the one a click moved is already drawn:
# core/render/web/softmax.js; one set by the page's code is drawn now); any other asks the server, by `redraw`.
TOGGLE_JS = """(data, shown) => {
  const A = window.AttnLab;
  if (!(data && data.softmax && A && A.repaintFollowers)) return ["draw " + Date.now(), undefined];
  requestAnimationFrame(() => A.repaintFollowers());
  return [undefined, typeof shown === "string" && shown.startsWith("open") ? "open " + Date.now() : undefined];
}"""

# After a view is drawn: the API panel follows it while open; a server-drawn view for settings the controls no
# longer hold is asked for again, once per view: toggles moved while it was on its way (TOGGLE_JS saw the view
# before), or several controls set at once (a link, "Open in the lab"): Gradio starts each one's change event with
# the values set so far, and their answers arrive in any order.
DRAWN_JS = """(shown, data, sentence, variant, causal, scaled, ...rest) => {
  const open = typeof shown === "string" && shown.startsWith("open") ? "open " + Date.now() : undefined;
  const now = `${causal ? 1 : 0}${scaled ? 1 : 0}`;
  const toggled = !!(data && !data.softmax && data.toggles && data.toggles !== now);
  const stale = STALE(toggled ? {...data, asked: []} : data, [sentence, variant, ...rest]);
  return [open, stale ? "draw " + Date.now() : undefined];
}""".replace("STALE", stale.STALE)


def _about(registry, name: str) -> str:
    """The variant's summary and notes, as plain text (a plugin's words are never rendered as HTML), in the current
    language where the catalogues have them (a built-in's), else as the plugin wrote them."""
    v = registry.variants[name]
    return "\n".join(lookup(text) for text in (v.summary, v.notes) if text)


def variant_choices(registry) -> list[tuple]:
    """The registry's variants for a dropdown: each title in the page's language (a built-in's; a third party's as
    written), its value the name."""
    return [(static(v.title), v.name) for v in registry.variants.values()]
