"""A lab link: the Attention tab's settings and a lab tab in the page's address, so a view can be shared.

`?sentence=…&variant=…&causal=…&scaled=…&heads=…&d_model=…&seed=…&options=…&weights=…&tab=…`, every key optional
(docs/app.md, "Sharing a view as a link"). Each value is checked on its own: one the lab cannot take is skipped and
said, the page opens on the rest. `weights=trained` opens the Weights switch on the trained tiny model, its panel on
the link's sentence. `?lesson=` wins. The page writes such a link itself (Copy link, Open in the lab: core/ui/link_js.py),
as `?z=` (the same keys, deflated) when the readable form would be long; both read the same here.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import gradio as gr

from core.config import AttentionConfig, parse_options
from core.i18n import mark, t
from core.lab.session import MAX_OPTIONS_CHARS, seed_value, switch
from core.lab.text import MAX_CHARS, text_field
from core.mistakes import ConfigError, choices_text, whole, whole_in
from core.serve.link_state import unzipped

from . import link_js, trained_panel
from .common import sentence_of
from .inputs import CHOICES
from .link_js import TEXT, UNZIP_JS, copy_js

__all__ = ["KEYS", "TABS", "TEXT", "Link", "copy_js", "read", "replace_js", "said", "unzipped", "wire_copy",
           "wire_reader"]

KEYS = ("sentence", "variant", "causal", "scaled", "heads", "d_model", "seed", "options")  # the Attention inputs' order
WEIGHTS = {"random": trained_panel.RANDOM, "trained": trained_panel.TRAINED}  # -> the Weights switch's value
TABS = {"attention": "attention_tab", "step": "step_tab", "causality": "causality_tab"}  # they take its settings
FLAGS = {"true": True, "1": True, "false": False, "0": False}
MESSAGES = {
    "skipped": mark("Not taken from the link: {reasons}."),  # each value's sentence
    "and": mark("{first}; {second}"),  # two of them, in the order they were read
    "long": mark("sentence is longer than {n} characters, more than the lab reads"),
    "variant": mark("variant={name} is not registered; choose one of: {known}"),
    "tab": mark("tab={tab} is not a tab a link opens; choose one of {tabs}"),
    "weights": mark("weights={value} is not a Weights switch a link sets; choose 'random' or 'trained'"),
}
WARNING_SECONDS = 15


@dataclass(frozen=True)
class Link:
    """What a link's address holds that the lab takes: values by key, the tab, the weights, and why any other was skipped."""

    values: dict[str, Any] = field(default_factory=dict)  # key (KEYS) -> the value its control takes
    options: dict[str, Any] = field(default_factory=dict)  # the variant's options, checked, as its controls take them
    tab: str | None = None  # a name of TABS
    weights: str | None = None  # a name of WEIGHTS
    problems: tuple[str, ...] = ()  # one sentence per value skipped


def read(params: Mapping[str, Any], variants: Mapping[str, Any], heads: tuple[int, int] = (1, 8),
         d_models: Iterable[int] = (4, 8, 16, 32, 64), variant: str = "multi-head") -> Link:
    """An address's parameters -> the Link the page opens on; never raises (a bad value is a problem, not an error).
    `variant` is the one the page shows when the link names none (its options are checked against it)."""
    if "lesson" in params:
        return Link()  # a lesson link takes precedence: the lesson opens, the lab keeps its own settings
    values, problems, options = {}, [], {}
    if "z" in params:  # the page's own long link: the same keys, deflated
        try:
            params = {**unzipped(params["z"]), **{k: v for k, v in params.items() if k != "z"}}
        except ConfigError as exc:
            problems.append(str(exc))
    d_models = list(d_models)
    checks = {
        "sentence": _sentence,
        "variant": lambda raw: _variant(raw, variants),
        "causal": lambda raw: _flag("causal", raw),
        "scaled": lambda raw: _flag("scaled", raw),
        "heads": lambda raw: whole_in("heads", raw, *heads),
        "d_model": lambda raw: _choice("d_model", raw, d_models),
        "seed": seed_value,
    }
    for key in KEYS:
        if key not in params:
            continue
        try:
            if key == "options":
                options = _options(params[key], variants.get(values.get("variant", variant)))
                values[key] = json.dumps(options)
            else:
                values[key] = checks[key](params[key])
        except ConfigError as exc:
            problems.append(str(exc))
    tab = params.get("tab")
    if tab is not None and tab not in TABS:
        problems.append(t(MESSAGES["tab"], tab=_quoted(tab), tabs=", ".join(repr(name) for name in TABS)))
        tab = None
    weights = params.get("weights")
    if weights is not None and weights not in WEIGHTS:
        problems.append(t(MESSAGES["weights"], value=_quoted(str(weights))))
        weights = None
    return Link(values, options, tab, weights, tuple(problems))


def said(problems: Iterable[str]) -> str:
    """The skipped values as one sentence in the request's language ("" when there were none)."""
    problems = list(problems)
    if not problems:
        return ""
    reasons = problems[0]
    for p in problems[1:]:
        reasons = t(MESSAGES["and"], first=reasons, second=p)
    return t(MESSAGES["skipped"], reasons=reasons)


def _text(name: str, raw: Any) -> str:
    return text_field(name, raw if isinstance(raw, str) else str(raw))


def _sentence(raw: Any) -> str:
    text = _text("sentence", raw)
    if not text.strip():
        raise ConfigError(t("The sentence is empty; type a few words."))
    if len(text) > MAX_CHARS:
        raise ConfigError(t(MESSAGES["long"], n=f"{MAX_CHARS:,}"))
    return text


def _variant(raw: Any, variants: Mapping[str, Any]) -> str:
    name = _text("variant", raw)
    if name not in variants:
        raise ConfigError(t(MESSAGES["variant"], name=_quoted(name), known=", ".join(sorted(variants))))
    return name


def _flag(name: str, raw: Any) -> bool:
    value = FLAGS.get(str(raw).strip().lower())
    return switch(name, raw if value is None else value)  # switch() says why any other value is refused


def _choice(name: str, raw: Any, choices: list[int]) -> int:
    value = whole(name, raw)
    if value not in choices:
        raise ConfigError(t(CHOICES[0], name=name, value=value, choices=choices_text(choices)))
    return value


def _options(raw: Any, variant: Any) -> dict[str, Any]:
    """The options JSON, checked against the variant's own Options (each value as its control takes it)."""
    text = _text("options", raw)
    if len(text) > MAX_OPTIONS_CHARS:
        raise ConfigError(t("options is longer than {n} characters; an options object names a few options, such as "
                            "{example}.", n=f"{MAX_OPTIONS_CHARS:,}", example='{"window": 3}'))
    options = parse_options(text)
    spec = tuple(getattr(variant, "options", ()))
    if options and not spec:
        raise ConfigError(t("unknown option {name}; this variant takes no options", name=repr(sorted(options)[0])))
    AttentionConfig(options=options).with_options(spec)  # unknown names and values out of range, as the API says
    return {o.name: o.validate(options[o.name]) for o in spec if o.name in options}


def _quoted(text: str) -> str:
    return repr(f"{text[:40]}…" if len(text) > 40 else text)



# ---- the page --------------------------------------------------------------------------------------------------

def wire_copy(button: gr.Button, inputs: list) -> None:
    """Copy link: built in the page from the inputs' values (no round trip, no output for later events to walk);
    `inputs`: a sentence, the Attention tab's other KEYS, then the Weights switch."""
    button.click(None, inputs, None, js=copy_js(button.elem_id or "lab-link-copy"), queue=False)


def wire_reader(ctx, inputs: list, controls: dict[str, list], order: list[str]) -> None:
    """When the page opens: the link's values into the Attention tab's inputs and its variant's own controls, the
    Weights switch (and, when trained, the trained panel's sentence: the switch's change then fills the panel, as
    the switch's own click does), then the link's tab (the Attention tab by default) opened; the skipped values
    said in one warning."""
    registry, heads, d_model = ctx.registry, inputs[4], inputs[5]
    flat = [(name, o.name) for name, own in controls.items() for o in registry.get(name).options[:len(own)]]
    switched = list(ctx.shared.get("attention_weights", ()))  # the Weights switch and the trained panel's sentence

    def weighed(link: Link) -> tuple:
        if link.weights is None:
            return tuple(gr.skip() for _ in switched)
        trained = link.weights == "trained" and "sentence" in link.values
        return (WEIGHTS[link.weights], link.values["sentence"] if trained else gr.skip())[:len(switched)]

    def opened(request: gr.Request) -> tuple:
        skip = tuple(gr.skip() for _ in [*inputs, *flat, *switched])
        try:
            params = dict(getattr(request, "query_params", {}) or {})
            link = read(params, registry.variants, (int(heads.minimum), int(heads.maximum)),
                        [v for _, v in d_model.choices], str(inputs[1].value))
            if link.problems:
                gr.Warning(html.escape(said(link.problems), quote=False), duration=WARNING_SECONDS,
                           title=t(TEXT["warning"]))
            chosen = link.values.get("variant", inputs[1].value) if "options" in link.values else None
            return (*(link.values.get(k, gr.skip()) for k in KEYS),
                    *(link.options[o] if v == chosen and o in link.options else gr.skip() for v, o in flat),
                    *weighed(link))
        except Exception as exc:  # a bug: logged, and the page opens as if there were no link
            sentence_of(exc, "lab link")
            return skip

    tabs = {name: order.index(module) for name, module in TABS.items() if module in order}
    js = """async () => {
      let q = new URLSearchParams(location.search);
      const keys = KEYS, tabs = TABS;
      if (q.has("lesson")) return;
      if (q.has("z")) {  // the page's own long link (core/ui/link_js.py): its keys, deflated
        try { q = await (UNZIP)(q.get("z")); } catch (e) { return; }
      }
      if (!["tab", "weights", ...keys].some((k) => q.has(k))) return;
      const s = q.get("sentence");
      if (s && s.trim() && [...s].length <= MAX) window.AttnLabZhSentence = true;  // a Chinese page keeps it
      const t = q.get("tab"), b = document.querySelectorAll('[role="tab"]')[Object.hasOwn(tabs, t) ? tabs[t] : tabs.attention];
      if (b) b.click();
    }""".replace("KEYS", json.dumps(KEYS)).replace("TABS", json.dumps(tabs)).replace("MAX", str(MAX_CHARS)).replace(
        "UNZIP", UNZIP_JS)
    own = [c for cs in controls.values() for c in cs]
    ctx.shared["demo"].load(opened, None, [*inputs, *own, *switched], api_visibility="private", show_progress="hidden").then(
        None, None, None, js=js)


def replace_js(tabs: Mapping[str, str]) -> str:
    """Open in the lab's page code (core/ui/link_js.py): the address bar then holds the lab link of the step's state.
    `tabs`: a lesson view -> the tab module it continues in."""
    names = {view: next((n for n, m in TABS.items() if m == module), None) for view, module in tabs.items()}
    return link_js.replace_js(names)
