"""A lesson step's "Open in the lab": the lab tab its view continues in, opened on exactly what the step showed.

The step hands over its state (core.serve.lessons: the Attention tab's inputs, then its view's own settings, from
core.serve.lesson_lab); each lab tab names the controls that take it (`takes`). The click writes them, opens the tab
(core.serve.lessons.LAB_TABS), brings the part of it the step showed into sight (its stage, card, chart; a training
run is started, from the cache when the class's run is done) and leaves the state's lab link in the address bar.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import gradio as gr

from core.serve import lessons

from . import lab_link, trained_panel

# A view -> what of its tab the step showed, brought into sight ("{key}": the handed state's value; "click": a
# sub-tab pressed first, then "press": the button that fills it, when the step's chart is one a button fills).
SIGHT = {
    "stage": {"show": "#step-{stage}"}, "dependency": {"show": "#causality-dependency"},
    "three-ways": {"show": "#masking-three"}, "sqrt-d": {"show": "#masking-sqrt-d"},
    "failure": {"show": "#card-{card}"}, "interventions": {"show": "#interventions-chart"},
    "cost": {"show": "#cost-paths"},  # (its lines and chart chosen, above the chart they draw)
    "dropout": {"show": "#masking-p"},  # (its rate, above the pair it draws)
    "training": {"click": "#experiments-{experiment}-button", "press": "#{experiment}-go", "show": "#{experiment}-plot"},
}
STAGE_CARDS = {"K": "Q", "V": "Q"}  # the step shows Q, K and V together: their first card, Q's, in sight

# (lab) -> the tab opened, then what SIGHT names for its view brought into sight once the tab has laid it out
OPEN_JS = """async (lab) => {
  const tabs = TABS, order = ORDER, sight = SIGHT, cards = CARDS, view = (lab && lab.view) || "heatmaps";
  const i = order.indexOf(tabs[view] || "attention_tab");
  const b = document.querySelectorAll('[role="tab"]')[i];
  if (b) b.click();
  const want = sight[view];
  if (!want || !lab) return;
  const filled = (s) => s.replace(/\\{(\\w+)\\}/g, (_, k) => String(k === "stage" ? (cards[lab.stage] || lab.stage) : lab[k]));
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  const found = async (sel) => {
    for (let n = 0; n < 100; n++) {
      const e = document.querySelector(sel);
      if (e && e.offsetParent) return e;
      await pause(100);
    }
    return null;
  };
  if (want.click) { const t = await found(filled(want.click)); if (t) t.click(); }
  if (want.press) { const p = await found(filled(want.press)); if (p) p.click(); }
  const e = await found(filled(want.show));
  if (!e) return;
  let last = null;  // the tab's other views still drawing move it: in sight again until it stays put
  for (let n = 0; n < 40; n++) {
    e.scrollIntoView({block: "start"});
    const top = Math.round(e.getBoundingClientRect().top);
    if (top === last) break;
    last = top;
    await pause(250);
  }
}"""


def takes(ctx, tab: str, controls: dict[Any, str | Callable[[dict], Any]]) -> None:
    """A lab tab's controls that Open in the lab sets when a step continues in `tab` (a core.ui module name):
    control -> the handed state's key, or a function of the state (gr.skip() for a value it leaves)."""
    ctx.shared.setdefault("lab_takes", []).extend((tab, control, key) for control, key in controls.items())


def taken(lab: dict, tab: str, key: str | Callable[[dict], Any], view: str) -> Any:
    """One control's value from the state: only the tab the step continues in, only a key the step handed over."""
    if lessons.LAB_TABS.get(view) != tab:
        return gr.skip()
    if callable(key):
        return key(lab)
    return lab[key] if key in lab else gr.skip()


def wire(ctx, to_lab: gr.Button, lab_state: gr.JSON) -> None:
    """Once every tab is built: Open in the lab writes the step's state into the Attention tab's inputs and into its
    own tab's controls, opens that tab on what the step showed and leaves the state's lab link in the address bar;
    a lab link (core/ui/lab_link.py) fills the Attention tab when the page opens."""
    inputs, order = ctx.shared.get("attention_inputs"), ctx.shared.get("tabs", [])
    if not inputs or "attention_tab" not in order:
        return
    weights = list(ctx.shared.get("attention_weights", ()))  # the weights switch and the trained model's sentence
    own = list(ctx.shared.get("lab_takes", ()))
    controls = ctx.shared.get("attention_option_controls", {})  # a variant -> its options' own controls
    flat = [(name, o, c) for name, cs in controls.items()
            for o, c in zip(ctx.registry.get(name).options, cs, strict=False)]  # (a reload may add options)

    def to_inputs(lab: Any) -> tuple:
        if not isinstance(lab, dict):
            return tuple(gr.skip() for _ in [*inputs, *weights, *flat, *own])
        trained = lab.get("weights") == "trained"
        switch = (trained_panel.TRAINED if trained else trained_panel.RANDOM,
                  lab["sentence"] if trained else gr.skip())[:len(weights)]
        view = lab.get("view") or "heatmaps"
        return (lab["sentence"], lab["variant"], lab["causal"], lab["scaled"], lab["heads"], lab["d_model"],
                lab["seed"], json.dumps(lab["options"]), *switch, *optioned(lab),
                *(taken(lab, t, k, view) for t, _, k in own))

    def optioned(lab: dict) -> tuple:
        """The step's variant's own controls: its options, the defaults for those it leaves (as its view took them)."""
        return tuple(lab["options"].get(o.name, o.default) if name == lab["variant"] else gr.skip()
                     for name, o, _ in flat)

    js = (OPEN_JS.replace("TABS", json.dumps(lessons.LAB_TABS)).replace("ORDER", json.dumps(order))
          .replace("SIGHT", json.dumps(SIGHT)).replace("CARDS", json.dumps(STAGE_CARDS)))
    outputs = [*inputs, *weights, *(c for *_, c in flat), *(c for _, c, _ in own)]
    to_lab.click(to_inputs, lab_state, outputs, api_visibility="private", show_progress="hidden").then(
        None, lab_state, None, js=js).then(None, lab_state, None, js=lab_link.replace_js(lessons.LAB_TABS))
    lab_link.wire_reader(ctx, inputs, controls, order)
