"""The Real model tab's step-through and causality sections, served: the real model's numbers, mistakes in one sentence."""

from __future__ import annotations

import pytest

from core.config import ConfigError
from core.serve import real_model, real_views

SENTENCE = "the fox that the child saw was hungry , so the fox slept ."


def test_the_step_through_of_the_tiny_model_shows_every_stage_of_the_chosen_head():
    formulas, views = real_views.step_view(SENTENCE, "tiny", True, True, 1, 2)
    assert len(formulas) == len(views) == 8
    assert "layer 1 head 2" in formulas[0] and views[6]["heads"][0]["title"].startswith("weights")
    last_layer, last_head = real_views.last_layer_and_head("tiny")
    with pytest.raises(ConfigError, match=f"layers 0 to {last_layer}"):
        real_views.step_view(SENTENCE, "tiny", True, True, last_layer + 1, 0)
    with pytest.raises(ConfigError, match="whole number"):
        real_views.step_view(SENTENCE, "tiny", True, True, "one", 0)


def test_the_causality_section_measures_zero_on_every_earlier_row_and_says_so():
    last, view, summary = real_views.causality_on_page(SENTENCE, "tiny", True, True, 99, "dog")
    assert last == len(real_model.tokens_and_ids("tiny", SENTENCE)[1]) - 1  # a slider past the end reads the last
    assert "max |Δ weight| = **0**" in summary and "nothing an earlier row computes" in summary
    assert len(view["heads"]) == real_views.last_layer_and_head("tiny")[0] + 1  # one map per layer
    _, _, lifted = real_views.causality_on_page(SENTENCE, "tiny", False, True, 5, "dog")
    assert "reaches back" in lifted
    for word, words in (("   ", "must be text"), ("saw", "already at position")):
        with pytest.raises(ConfigError, match=words):
            real_views.causality_view(SENTENCE, "tiny", True, True, 5, word)


def test_the_png_export_redraws_the_compact_view_the_page_holds(tmp_path):
    view, _, _ = real_model.model_view(SENTENCE, "tiny", False, True, "[[0, 1]]")
    assert "u16" in view["values"] and "f32" not in str(view["layers"])  # the page's copy is compact
    path = real_model.png_file(view)
    assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ConfigError, match="no longer on the server"):
        real_model.png_file({"stamp": "0123456789abcdef"})
