"""core.render.matrix: the numbers a heatmap draws are the layer's own numbers, labelled truthfully."""

import json
import math

import numpy as np
import pytest
import torch
from matplotlib import colormaps
from matplotlib.colors import to_hex

from core import load_registry
from core.lab import steps
from core.lab.session import Lab, make_request
from core.render import colors, matrix, scales, tab_matrices


@pytest.fixture(scope="module")
def lab():
    return Lab(load_registry(entry_points=False))


def run(lab, sentence="The cat sat on the mat", **kw):
    args = dict(variant="multi-head", causal=True, scaled=True, n_heads=2, d_model=16, seed=0, options="{}") | kw
    return lab.run(make_request(sentence, **args))


def view_of(r):
    tr = r.trace
    return matrix.attention(r.tokens.tokens, r.weights.numpy(), tr.mask[0].numpy(), tr.scaled[0].numpy(),
                            n_kv_heads=tr.k.shape[1])


@pytest.mark.floats
def test_the_view_carries_the_weights_the_mask_and_the_scaled_scores(lab):
    r = run(lab, n_heads=4)
    data = view_of(r)
    assert data["rows"] == ["The", "cat", "sat", "on", "the", "mat"] and len(data["heads"]) == 4
    for h, head in enumerate(data["heads"]):
        np.testing.assert_allclose(scales.unpacked(head["values"]), r.weights[h].numpy(), atol=1e-7)  # float32
        assert np.array_equal(scales.unpacked(head["blocked"]).astype(bool), ~r.allowed.numpy())
        np.testing.assert_allclose(scales.unpacked(head["extra"]), r.trace.scaled[0, h].numpy(), atol=1e-6)
    json.dumps(data, allow_nan=False)  # plain JSON: no NaN or Infinity for the browser to choke on


@pytest.mark.floats
def test_gqa_titles_name_the_kv_head_each_query_head_really_reads(lab):
    r = run(lab, variant="gqa", n_heads=4, options='{"n_kv_heads": 2}')
    titles = [h["title"] for h in view_of(r)["heads"]]
    assert titles == ["head 0 · K/V head 0", "head 1 · K/V head 0", "head 2 · K/V head 1", "head 3 · K/V head 1"]
    tr = r.trace
    for h, title in enumerate(titles):
        g = int(title.rsplit(" ", 1)[1])
        expected = tr.q[0, h] @ tr.k[0, g].T  # the scores, recomputed from the K/V head the title names
        torch.testing.assert_close(tr.scores[0, h], expected)


@pytest.mark.floats
def test_the_sliding_window_band_is_blocked_outside_the_window(lab):
    r = run(lab, "a b c d e f", variant="sliding-window", options='{"window": 2}')
    blocked = scales.unpacked(view_of(r)["heads"][0]["blocked"]).astype(bool)
    i, j = np.indices(blocked.shape)
    assert np.array_equal(blocked, (j > i) | (j < i - 1))  # each token sees itself and the one before
    assert view_of(r)["boundary"] is True  # the page draws the band's edge


def test_values_are_written_in_the_cells_up_to_24_tokens(lab):
    # (the Attention tab's heads are never under 610 px: 24 cells of 25 px hold a 13 px ".12"; issue 22)
    assert view_of(run(lab, " ".join(f"w{i}" for i in range(24))))["show_values"] is True
    assert view_of(run(lab, " ".join(f"w{i}" for i in range(25))))["show_values"] is False


def test_not_normalised_weights_are_not_claimed_to_sum_to_1():
    w = np.array([[[0.5, 2.0], [1.5, 0.25]]])
    data = matrix.attention(["a", "b"], w, np.ones((2, 2), dtype=bool), normalised=False)
    assert data["scale"]["max"] == 2.0 and "need not sum to 1" in data["labels"]["legend"][0]["text"]
    assert "sums to 1" in matrix.attention(["a", "b"], w / 4, np.ones((2, 2), dtype=bool))["labels"]["legend"][0]["text"]


@pytest.mark.floats
def test_matrices_travel_packed_and_come_back_exactly():
    a = np.array([[0.123456, -math.inf], [math.nan, math.inf]], dtype=np.float32)
    p = scales.packed(a)
    assert set(p) == {"f32", "shape"} and isinstance(p["f32"], str) and p["shape"] == [2, 2]
    np.testing.assert_array_equal(scales.unpacked(p), a)  # -inf, inf and NaN survive
    assert scales.unpacked([[0.5, "-inf"], [None, 1]]).tolist()[0] == [0.5, -math.inf]  # the list form too
    flags = scales.packed(np.array([[True, False]]), "u8")
    assert scales.unpacked(flags).tolist() == [[1, 0]]


def test_the_stamp_names_the_numbers():
    a = matrix.heatmaps(["a", "b"], [np.eye(2)], ["h"])
    assert a["stamp"] == matrix.heatmaps(["a", "b"], [np.eye(2)], ["h"])["stamp"]
    assert a["stamp"] != matrix.heatmaps(["a", "b"], [np.eye(2) * 0.5], ["h"])["stamp"]
    assert a["stamp"] != matrix.heatmaps(["a", "c"], [np.eye(2)], ["h"])["stamp"]


def test_colour_maps_are_matplotlibs_own():
    for name, stops in colors.MAPS.items():
        assert list(stops) == [to_hex(colormaps[name](k / 10)) for k in range(11)]


@pytest.mark.floats
def test_mask_view_and_the_three_ways():
    allowed = np.tril(np.ones((4, 4), dtype=bool))
    m = matrix.mask(allowed)
    assert np.array_equal(scales.unpacked(m["heads"][0]["blocked"]).astype(bool), ~allowed) and m["show_values"] is False
    three = tab_matrices.three_ways(["a", "b", "c", "d"], allowed / allowed.sum(1, keepdims=True), allowed * 0.25,
                              np.full((4, 4), 0.25))
    assert [("blocked" in h) for h in three["heads"]] == [True, True, False]  # the wrong way's leak stays visible


@pytest.mark.floats
def test_step_stages_as_matrices(lab):
    r = run(lab, causal=True)
    by_name = {s.name: tab_matrices.stage(s, r.tokens.tokens) for s in steps.stages(r, 1)}
    masked = by_name["masked"]["heads"][0]
    assert np.array_equal(scales.unpacked(masked["blocked"]).astype(bool), ~r.allowed.numpy())  # -inf drawn as blocked
    assert by_name["Q"]["cols"][:2] == ["q0", "q1"] and "cols" not in by_name["scores"]  # dims vs tokens
    assert by_name["weights"]["scale"]["min"] == 0 and by_name["weights"]["scale"]["max"] == 1
    q = by_name["Q"]["scale"]
    assert q["min"] == -q["max"] and q["stops"] == list(colors.RDBU_R)  # signed values: white at 0


def test_formula_markdown_typesets_the_softmax_path_and_quotes_a_plugins_own_formula():
    from dataclasses import replace

    from core import load_registry
    from core.lab.session import Lab, make_request

    lab = Lab(load_registry(entry_points=False))
    plain = lab.registry.get("multi-head")
    scaled = {s.name: s for s in steps.stages(lab.run(make_request("a b c")), 0, variant=plain)}
    assert "\\sqrt" in steps.formula_markdown(scaled["scaled"]) and "3 × 3" in steps.formula_markdown(scaled["scaled"])
    unscaled = {s.name: s for s in steps.stages(lab.run(make_request("a b c", scaled=False)), 0, variant=plain)}
    assert "\\sqrt" not in steps.formula_markdown(unscaled["scaled"])
    own = replace(plain, formulas={"weights": "weights = x `<b>` y"}, normalised=False)
    mine = {s.name: s for s in steps.stages(lab.run(make_request("a b c")), 0, variant=own)}
    assert "softmax" not in steps.formula_markdown(mine["weights"])  # its own formula, not the softmax path's maths
    assert steps.formula_markdown(mine["weights"]).startswith("`weights = x '<b>' y`")  # code, never Markdown/HTML
    assert "softmax" in steps.formula_markdown(scaled["weights"])


@pytest.mark.floats
def test_model_view():
    w = np.random.default_rng(0).random((2, 3, 4, 4))
    data = matrix.model_view(list("abcd"), w, [["t"] * 3] * 2, [["d"] * 3] * 2, (1, 2),
                             allowed=np.tril(np.ones((4, 4), dtype=bool)))
    assert len(data["layers"]) == 2 and len(data["layers"][0]) == 3 and data["selected"] == [1, 2]
    np.testing.assert_allclose(scales.unpacked(data["layers"][1][2]["values"]), w[1, 2], atol=1e-7)
