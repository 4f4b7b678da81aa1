"""core.serve.views: each tab's rendered view, cached on the request (what makes a repeated click cheap)."""

import pytest

from core import load_registry
from core.config import ConfigError
from core.lab.masking import sqrt_d_experiment
from core.lab.session import Lab
from core.serve import views


@pytest.fixture(scope="module")
def lab():
    return Lab(load_registry(entry_points=False))


def test_attention_view_is_cached_per_request(lab):
    a = views.attention(lab, "The cat sat", n_heads=2)
    assert views.attention(lab, "The cat sat", n_heads=2.0, d_model="16") is a  # same request, normalised
    b = views.attention(lab, "The cat sat", n_heads=2, causal=False)
    assert b is not a and b.heatmaps != a.heatmaps and b.mask != a.mask
    assert a.check == "every row sums to 1; weight above the diagonal: 0"
    assert a.payload["tokens"] == ["The", "cat", "sat"]
    assert views.attention_view.cache_info().maxsize is not None  # bounded: lru_cache(None) would grow all day


def test_attention_view_notes(lab):
    assert "n_heads is not used" in views.attention(lab, "a b", variant="single-head", n_heads=4).note
    assert "cut" in views.attention(lab, "w " * 100).note
    with pytest.raises(ConfigError):
        views.attention(lab, "")


def test_causality_view(lab):
    v = views.causality(lab, "The cat sat on the mat", 2, "dog")
    assert views.causality(lab, "The cat sat on the mat", 2.0, "dog") is v
    assert v.payload["row_max_abs_diff"][:2] == [0.0, 0.0] and "byte-identical" in v.summary


def test_masking_view_quotes_the_experiment(lab):
    v = views.masking(lab, "The cat sat on the mat")
    exp = sqrt_d_experiment()
    assert f"{exp.max_weight['unscaled'][-1]:.2f}" in v.sqrt_d_summary
    assert "leaks" in v.three_summary and v.three.startswith("data:image/png;base64,")


def test_warmed_frames_serve_a_typical_sentence_without_drawing_one():
    import numpy as np

    from core.render import heatmap
    from core.serve import views

    heatmap.FRAMES.clear()
    views.warm_frames(lengths=range(10, 11), heads=(4,))
    drawn = heatmap.FRAMES.misses
    tokens = "the cat sat on the mat because it was tired".split()
    heatmap.heatmap_grid([np.eye(10)] * 4, tokens, views._head_titles(4))
    heatmap.mask_image(np.tril(np.ones((10, 10), dtype=bool)))
    assert heatmap.FRAMES.misses == drawn and heatmap.FRAMES.hits >= 1
