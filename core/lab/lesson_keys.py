"""What a lesson may say: its languages, state keys and views, the tables the lesson parser (lesson_format) checks.

docs/lessons.md's "Every view" and "Every state key" tables are these, in words. Plain Python (no torch, no gradio),
like the parser: the CLI's `lesson check` and the app both read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..i18n import languages, mark

LANGUAGES = languages()  # a lesson file may be in any language the app speaks (core/locales)
STAGES = ("Q", "K", "V", "scores", "scaled", "masked", "weights", "context", "output")  # = core.lab.steps'
CARDS = ("softmax-dim", "zero-fill", "mask-dtype", "mask-device", "padding-nan")  # = core.lab.failure_modes.KEYS
MISTAKES = ("none", "no-transpose", "swap-query-key")  # = core.transfer.MISTAKES
MODES = ("zero", "uniform")  # = core.lab.ablate.MODES
D_MODELS = (4, 8, 16, 32, 64)
COUNTS = ("parameters", "kv-cache")  # = core.serve.lesson_views.COUNTS
EXPERIMENTS = ("mask", "scale")  # = core.serve.lesson_training.PARAMS
DROPOUT = (0.1, 0.2, 0.3, 0.5)  # a lesson's dropout rates (0.5: the classic chapter's example)
PANELS = 4  # the most panels of any chart a step shows (training's scale run: weight, entropy, gradient, loss)
PANEL_PAST = mark("panel={panel} is past this chart's last panel; choose 0 to {last}")  # a chart with fewer panels


@dataclass(frozen=True)
class Key:
    """One state key: its kind ('text', 'bool', 'int', 'choice', 'json', 'list'), range or choices, what it sets."""

    kind: str
    help: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[Any, ...] = ()


KEYS: dict[str, Key] = {
    "sentence": Key("text", "the sentence the view reads (the trained model knows only its corpus's words)"),
    "variant": Key("variant", "an attention variant by name (`attention-lab plugins` lists them)"),
    "causal": Key("bool", "the causal mask on (true) or off (false)"),
    "scaled": Key("bool", "scores divided by √d_head (true) or not (false)"),
    "heads": Key("int", "number of heads (must divide d_model)", 1, 8),
    "d_model": Key("choice", "model width", choices=D_MODELS),
    "seed": Key("int", "seed of the random weights and token vectors", 0, 2**31 - 1),
    "options": Key("json", "the variant's options as a JSON object, e.g. {\"window\": 3}"),
    "row": Key("int", "the query row (token position, from 0) lit when the view opens", 0, 63),
    "key": Key("int", "the key column (token position) whose weight the check reads", 0, 63),
    "layer": Key("int", "the trained model's layer", 0, 1),
    "head": Key("int", "the head shown (the trained model's, or one head of the random layer)", 0, 7),
    "stage": Key("choice", "the stage of the formula shown", choices=STAGES),
    "position": Key("int", "the token (position, from 0) that is edited", 0, 63),
    "replacement": Key("text", "the word put at that position"),
    "mistake": Key("choice", "a mistake made while copying the weights", choices=MISTAKES),
    "card": Key("choice", "which spot-the-bug card", choices=CARDS),
    "mode": Key("choice", "how a head is taken out", choices=MODES),
    "dropout": Key("choice", "the dropout rate p on the weights, in training mode", choices=DROPOUT),
    "experiment": Key("choice", "which of the class's training runs: without the causal mask, or without √d",
                      choices=EXPERIMENTS),
    "panel": Key("int", "which panel of a chart is shown (0 = the first; past the chart's last: one sentence)",
                 0, PANELS - 1),
    "controls": Key("list", "the controls the step offers (at most three), from the view's controls"),
    "count": Key("choice", "two numbers counted on real layers, written above the maps: the parameters against one "
                 "head as wide (parameters), or the KV cache per token against a K/V head per query head (kv-cache)",
                 choices=COUNTS),
    "model": Key("text", "a model the app offers, by its name in the Real model tab (default: its first real model)"),
}

RANDOM = ("sentence", "variant", "causal", "scaled", "heads", "d_model", "seed", "options")
DEFAULTS: dict[str, Any] = {  # what a key the step does not set takes: the lab's own defaults (docs/lessons.md)
    "sentence": "The cat sat on the mat because it was tired", "variant": "multi-head", "causal": True,
    "scaled": True, "heads": 2, "d_model": 16, "seed": 0, "options": {}, "head": 0, "layer": 0,
    "stage": "weights", "dropout": 0.5, "position": 3, "replacement": "dog", "mistake": "none", "card": "softmax-dim",
    "mode": "zero", "experiment": "mask",
}


@dataclass(frozen=True)
class View:
    """A view a step can show: what it is, the state keys it reads, the controls it can offer, and for a chart its
    panels (`panel:` counts from 0): a number, or by the value of another key (training's by its experiment)."""

    help: str
    keys: tuple[str, ...]
    controls: tuple[str, ...] = ()
    panels: int = 0  # 0: not a chart of panels
    panels_by: tuple[str, dict[str, int]] | None = field(default=None, hash=False)  # (key, {its value: panels})

    def panel_count(self, state: dict[str, Any]) -> int:
        """How many panels this view's chart has for a step's state (its experiment, for training)."""
        if self.panels_by is None:
            return self.panels
        key, counts = self.panels_by
        return counts[state.get(key, DEFAULTS[key])]


VIEWS: dict[str, View] = {
    "heatmaps": View("every head's attention weights (the Attention tab), a row lit; the check reads row → key; "
                     "count: two numbers counted on real layers above the maps", (*RANDOM, "row", "key", "count"),
                     ("causal", "scaled", "sentence")),
    "mask": View("the mask pattern alone: which key each query may see", ("sentence", "variant", "causal", "options"),
                 ("causal",)),
    "stage": View("one stage of the formula for one head (the Step-through tab)", (*RANDOM, "head", "stage", "row"),
                  ("causal", "scaled", "sentence")),
    "trained": View("one head of the trained tiny model, a row lit; the check reads row → key",
                    ("sentence", "layer", "head", "row", "key"), ("sentence",)),
    "causality": View("edit one token: how much each output row moves (the Causality tab)",
                      ("sentence", "variant", "causal", "seed", "position", "replacement"), ("causal", "sentence")),
    "dependency": View("which input each output row depends on, measured with autograd",
                       ("sentence", "variant", "causal", "seed", "position", "replacement"), ("causal", "sentence")),
    "three-ways": View("masking three ways: -inf before softmax, zero then renormalise, zero only",
                       ("sentence", "seed"), ("sentence",)),
    "sqrt-d": View("why divide by √d: the largest weight (panel 0) or a row's entropy (1) against the width d, beside "
                   "the scores' standard deviation (2; alone when it is the panel named)", ("panel",), panels=3),
    "transfer": View("copy SelfAttention_v2's weights into _v1 and compare the outputs", ("seed", "mistake"),
                     ("mistake",)),
    "failure": View("a spot-the-bug card: the wrong line's weights beside the fix's", ("card",)),
    "interventions": View("each trained head's weight on its pattern (panel 0), what removing it costs on held-out "
                          "text (1) and on the word after 它 可能 (2)", ("sentence", "mode", "panel"), ("mode",), panels=3),
    "dropout": View("head 0's weights before and after dropout in training mode, links zeroed, the rest scaled by "
                    "1/(1-p), on the Masking tab's layer (multi-head, d_model 16, 2 heads: the pair it draws)",
                    ("sentence", "seed", "dropout")),
    "training": View("the class's training run (the Experiments tab), finished or so far: training and honest loss "
                     "with and without the mask (mask, one panel), or the largest weight (panel 0), entropy (1), "
                     "gradient (2), training loss (3) with and without √d (scale)", ("experiment", "panel"),
                     panels_by=("experiment", {"mask": 1, "scale": 4})),
    "cost": View("the square that grows: time (panel 0) and memory (1) against the length T (measured)", ("panel",), panels=2),
    "real-chapter": View("the chapter's sentence in a Chinese-capable model the app names (ATTENTION_LAB_MODELS): "
                         "它's weight on 违约金 in every layer and head, and the next word with the head that looks "
                         "hardest zeroed", ("sentence",)),
    "sink": View("the attention sink in a real model: each head's mean weight on the first token, and the loss with "
                 "every later token barred from it", ("sentence", "model"), ("sentence",)),
}
CONTROL_MAX = 3
