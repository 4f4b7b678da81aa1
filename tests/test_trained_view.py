"""The trained-weights switch: real patterns per layer and head, and head roles named from measurements."""

from __future__ import annotations

import pytest
import torch

from core.lab.trained_view import NAME_THRESHOLD, pattern_scores, reference_roles, trained_view

SENTENCE = "the fox that the child saw was hungry , so the fox slept ."


@pytest.mark.floats
def test_view_gives_tokens_and_every_layers_and_heads_causal_weights():
    view = trained_view(SENTENCE)
    T = len(view.tokens)
    assert view.tokens[:3] == ["the", "fox", "that"] and view.unknown == []
    L, H = view.weights.shape[:2]
    assert view.weights.shape == (L, H, T, T) and L >= 1 and H >= 1
    assert torch.allclose(view.weights.sum(-1), torch.ones(L, H, T))
    assert torch.all(view.weights.triu(1) == 0)
    assert len(view.heads) == L and all(len(row) == H for row in view.heads)


def test_every_head_is_described_with_a_measured_number():
    view = trained_view(SENTENCE)
    for layer in range(view.weights.shape[0]):
        for head in range(view.weights.shape[1]):
            text = view.describe(layer, head)
            assert f"Layer {layer} head {head}" in text and any(ch.isdigit() for ch in text.split(":", 1)[1])


def test_unknown_words_are_reported_and_bad_input_is_one_sentence():
    assert trained_view("The Zebra slept.").unknown == ["zebra"]
    with pytest.raises(ValueError, match="type a sentence"):
        trained_view("   ")
    with pytest.raises(ValueError, match="at most 64"):
        trained_view("the fox " * 40)


def test_a_perfect_previous_token_head_is_named_so():
    words = "the fox saw the owl .".split()
    T = len(words)
    w = torch.zeros(T, T)
    w[0, 0] = 1
    for t in range(1, T):
        w[t, t - 1] = 1.0
    scores = pattern_scores(words, w)
    assert scores["previous token"] == 1.0 and scores["itself"] == 0.0


def test_a_head_that_looks_back_at_the_same_noun_scores_on_the_repeat():
    words = "the fox ran , so the fox slept .".split()
    T = len(words)
    w = torch.eye(T)
    w[5] = 0
    w[5, 1] = 1.0  # "the" before the repeated fox looks at the first fox: predicts the repeat
    w[6] = 0
    w[6, 1] = 1.0  # the repeated fox looks at its earlier mention
    scores = pattern_scores(words, w)
    assert scores["noun about to repeat"] == 1.0 and scores["earlier mention"] == 1.0


def test_reference_roles_name_a_pattern_only_above_the_threshold():
    for row in reference_roles():
        for role in row:
            if role.name != "spread out":
                assert role.scores[role.name] >= NAME_THRESHOLD
            else:
                assert max(role.scores.values()) < NAME_THRESHOLD


@pytest.mark.floats
def test_layer_panel_names_every_head_of_the_layer_from_measurements():
    from core.lab.trained_view import EXAMPLES, layer_panel, trained_view
    from core.model import load_tiny, tiny_config

    config = tiny_config()
    assert config == load_tiny()[0].config  # read from the JSON alone, without the weights
    panel = layer_panel(EXAMPLES[0], 1, 2)
    view = trained_view(EXAMPLES[0])
    assert len(panel.weights) == len(panel.titles) == config.n_heads
    assert all(torch.equal(w, view.weights[1, h]) for h, w in enumerate(panel.weights))
    assert panel.selected == view.describe(1, 2)
    assert panel.roles.splitlines() == [view.describe(1, h) for h in range(config.n_heads)]
    assert [t.split(": ", 1)[1] for t in panel.titles] == [view.reference[1][h].name for h in range(config.n_heads)]
    assert panel.note == ""
    assert "zebra" in layer_panel("the zebra slept .", 0, 0).note
    with pytest.raises(ValueError, match="heads 0-3"):
        layer_panel(EXAMPLES[0], 0, 9)


def test_the_sliders_range_over_the_shipped_models_layers_and_heads():
    from core.lab.trained_view import last_layer_and_head
    from core.model import tiny_config

    config = tiny_config()
    assert last_layer_and_head() == (config.n_layers - 1, config.n_heads - 1)


def test_a_head_that_sends_the_pronoun_to_its_noun_scores_on_it_and_not_on_the_document():
    words = "合同 违约金 过高 ， 它 可能 存在 风险".split()
    T = len(words)
    w = torch.eye(T)
    w[4] = 0
    w[4, 1] = 1.0  # 它 -> 违约金
    assert pattern_scores(words, w)["pronoun → its noun"] == 1.0
    w[4] = 0
    w[4, 0] = 1.0  # 它 -> 合同: the document, the wrong noun
    assert pattern_scores(words, w)["pronoun → its noun"] == 0.0
    assert "pronoun → its noun" not in pattern_scores("the fox slept .".split(), torch.eye(4))
