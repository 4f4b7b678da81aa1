"""The page's own softmax (core/render/web/softmax.js) gives the API's weights, for every built-in variant and
both settings of each toggle; the server sends the raw scores only when the variant is exactly that softmax."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from core.lab.page_softmax import page_softmax, softmax_weights
from core.lab.session import Lab, make_request
from core.registry import load_registry
from core.serve import views
from tests.test_views_js import page_with

BUILT_IN = ["single-head", "multi-head", "multi-head-stacked", "gqa", "sliding-window"]
SENTENCE = "The cat sat on the mat because it was tired"


@pytest.fixture(scope="module")
def lab():
    return Lab(load_registry(entry_points=False))


def settings(variant: str) -> dict:
    return {"n_heads": 1 if variant == "single-head" else 4, "d_model": 16, "seed": 3,
            "options": '{"window": 3}' if variant == "sliding-window" else "{}"}


def view(lab, variant, causal, scaled):
    s = settings(variant)
    return views.attention(lab, SENTENCE, variant, causal, scaled, s["n_heads"], s["d_model"], s["seed"], s["options"])


@pytest.mark.floats
def test_the_pages_formula_is_torchs_softmax_of_the_scaled_masked_scores():
    torch.manual_seed(0)
    q, k = torch.randn(2, 6, 8), torch.randn(2, 6, 8)  # (H, T, hd)
    allowed = torch.ones(6, 6, dtype=torch.bool).tril()
    want = F.scaled_dot_product_attention(q, k, torch.eye(6).expand(2, 6, 6), attn_mask=allowed)  # (H, T, T)
    got = softmax_weights(q @ k.transpose(-2, -1), 8, True, allowed)
    assert torch.allclose(got, want.double(), atol=1e-6)


@pytest.mark.parametrize("variant", BUILT_IN)
def test_every_built_in_variant_sends_its_scores_and_both_masks(lab, variant):
    data = view(lab, variant, True, True).heatmaps
    sm = data["softmax"]
    T = len(data["rows"])
    assert len(sm["scores"]) == len(data["heads"]) and sm["scores"][0]["shape"] == [T, T]
    assert sm["allowed"]["causal"]["shape"] == [T, T] and sm["causal"] is True and sm["scaled"] is True
    assert view(lab, variant, False, False).heatmaps["softmax"]["key"] == sm["key"]  # the same scores drawn


def test_a_variant_that_is_not_that_softmax_keeps_the_server_path(lab):
    run = lab.run(make_request(SENTENCE))
    other = lab.run(make_request(SENTENCE, causal=False))
    assert page_softmax(run, lambda: other) is not None
    tr = run.trace
    flat = dataclasses.replace(tr, weights=torch.full_like(tr.weights, 1 / tr.weights.shape[-1]))  # (a linear one's)
    flipped = []
    assert page_softmax(dataclasses.replace(run, trace=flat), lambda: flipped.append(1) or other) is None
    assert flipped == []  # the layer is not run again with the mask flipped for a view the page cannot redo
    assert page_softmax(run, lambda: run) is None  # two runs with the same mask say nothing about the other one


class Counting(Lab):
    """The lab, counting the layer runs a view asks for."""

    runs = 0

    def run(self, req):
        Counting.runs += 1
        return super().run(req)


@pytest.mark.parametrize("variant, runs", [("multi-head", 2), ("causal-linear", 1)])
def test_the_server_runs_the_layer_with_the_mask_flipped_only_for_a_view_the_page_redraws(variant, runs):
    registry = load_registry()
    if variant not in registry.variants:
        pytest.fail(f"{variant} is not installed (requirements-dev.txt installs examples/linear_plugin)")
    Counting.runs = 0
    data = views.attention(Counting(registry), "a b c " + variant, variant).heatmaps
    assert Counting.runs == runs and ("softmax" in data) is (runs == 2)


@pytest.mark.parametrize("variant", BUILT_IN)
def test_the_check_line_and_colour_scale_of_each_toggle_are_the_servers(lab, variant):
    long = " ".join(f"w{i}" for i in range(30))  # past FIT_ABOVE: the colours are fitted
    for sentence in (SENTENCE, long):
        s = settings(variant)
        sm = views.attention(lab, sentence, variant, True, True, s["n_heads"], s["d_model"], s["seed"],
                             s["options"]).heatmaps["softmax"]
        for causal in (True, False):
            for scaled in (True, False):
                api = views.attention(lab, sentence, variant, causal, scaled, s["n_heads"], s["d_model"], s["seed"],
                                      s["options"])
                key = f"{int(causal)}{int(scaled)}"
                assert sm["checks"][key] == api.check, (variant, key)  # the page's line is the API's
                if sentence == long:
                    assert sm["scales"][key] == api.heatmaps["scale"], (variant, key)
                else:
                    assert "scales" not in sm


@pytest.mark.floats
@pytest.mark.browser
def test_the_pages_weights_equal_the_apis_for_every_built_in_variant_and_toggle(browser, lab):
    page, errors = page_with(browser)
    for variant in BUILT_IN:
        data = view(lab, variant, True, True).heatmaps  # what the page holds; then it toggles by itself
        for causal in (True, False):
            for scaled in (True, False):
                api = view(lab, variant, causal, scaled)  # the /attention endpoint's outputs
                got = page.evaluate("([d, c, s]) => { const heads = AttnLab.softmaxHeads(d, c, s);"
                                    " return [heads.map(h => h.values.map(r => Array.from(r))),"
                                    " d.softmax.checks[AttnLab.setting({causal: c, scaled: s})]]; }",
                                    [data, causal, scaled])
                want = np.asarray(api.payload["weights"], dtype=float)  # (H, T, T), rounded to 6 decimals
                assert np.abs(np.asarray(got[0]) - want).max() <= 1e-6, (variant, causal, scaled)
                assert got[1] == api.check, (variant, causal, scaled)  # the check line follows the page's weights
    assert errors == []
    page.close()
