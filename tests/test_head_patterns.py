"""Head pattern names come from the weights: a constructed map of each kind earns its own name."""

from __future__ import annotations

import torch

from core.lab.head_patterns import SPREAD, describe, head_patterns, name, scores

TOKENS = ["A", "B", "C", "D", "A", "B", "C", "D", "E"]  # a repeat: same-token and induction cases exist
T = len(TOKENS)


def _rows(pick) -> torch.Tensor:
    """A causal map whose row t puts all its weight on key pick(t) (a key 0..t)."""
    w = torch.zeros(T, T)
    for t in range(T):
        w[t, pick(t)] = 1.0
    return w


def _named(w: torch.Tensor) -> str:
    return name(scores(TOKENS, w)).name


def test_each_constructed_pattern_is_named_after_itself():
    assert _named(_rows(lambda t: max(t - 1, 0))) == "previous token"
    assert _named(_rows(lambda t: 0)) == "first token / sink"
    assert _named(_rows(lambda t: t)) == "itself"
    induction = _rows(lambda t: t - 3 if 4 <= t <= 7 else max(t - 1, 0) if t < 4 else t)  # the token after the copy
    s = scores(TOKENS, induction)
    assert s["induction-like"] == 1.0 and _named(induction) in ("induction-like", "previous token")
    pure = torch.zeros(T, T)
    pure[:4] = torch.tril(torch.ones(4, T)) / torch.arange(1, 5)[:, None]  # spread rows before the repeat
    for t in range(4, T):
        pure[t, t - 3 if t <= 7 else t] = 1.0
    assert scores(TOKENS, pure)["induction-like"] == 1.0 and _named(pure) == "induction-like"
    duplicate = _rows(lambda t: t - 4 if 4 <= t <= 7 else t)
    assert scores(TOKENS, duplicate)["same token earlier"] == 1.0 and _named(duplicate) == "same token earlier"


def test_a_uniform_map_is_spread_out_and_names_need_cases():
    uniform = torch.tril(torch.ones(T, T)) / torch.arange(1, T + 1)[:, None]  # every row spread evenly
    assert _named(uniform) == SPREAD
    no_repeat = scores(["a", "b", "c"], torch.tril(torch.ones(3, 3)) / 3)
    assert "induction-like" not in no_repeat and "same token earlier" not in no_repeat


def test_every_layer_and_head_is_named_and_described_with_its_numbers():
    w = torch.stack([torch.stack([_rows(lambda t: max(t - 1, 0)), _rows(lambda t: 0)])])  # (1, 2, T, T)
    named = head_patterns(TOKENS, w)
    assert [[p.name for p in layer] for layer in named] == [["previous token", "first token / sink"]]
    assert named[0][0].short == "prev" and named[0][1].short == "sink"
    text = describe(0, 0, named[0][0])
    assert text.startswith("layer 0 head 0: previous token, mean weight 1.00") and "measured:" in text
