"""The by-hand lesson's numeric claims, checked against references nobody here wrote: the spread of q·k at d = 64
(torch.std), the KV cache a grouped-query layer keeps (its own K and V shapes), two heads' parameters
(nn.MultiheadAttention); and each claim, broken, fails the walk."""

from __future__ import annotations

import pytest

from core.lab import lesson_format as fmt
from core.lab import lesson_shelf
from tests import lesson_fixtures

registry, shelf, lab = lesson_fixtures.registry, lesson_fixtures.shelf, lesson_fixtures.lab  # (module-scoped)
failures = lesson_fixtures.failures


def by_hand(shelf, title: str):
    return next(s for s in shelf.get("by-hand").steps if s.title == title)


@pytest.mark.floats
def test_the_sqrt_d_step_draws_the_spread_of_8_at_d_64_as_torch_measures_it(shelf, lab):
    """'At d = 64 the scores spread with standard deviation 8': line 0 of the step's view (the spread panel) is the
    unscaled scores' standard deviation, and it is what torch.std gives for fresh random q·k."""
    import math

    import torch

    from core.serve import lessons

    step = by_hand(shelf, "The scores spread as √d")
    shown = lessons.shown(lab, step)
    assert len(shown.view["panels"]) == 1
    line, scaled = shown.view["panels"][0]["series"][:2]
    drawn = dict(zip(line["x"], line["y"], strict=True))[64.0]
    assert dict(zip(scaled["x"], scaled["y"], strict=True))[64.0] == pytest.approx(1, abs=0.1)  # "back to 1"
    g = torch.Generator().manual_seed(1234)  # (not the view's seed: an independent sample)
    q, k = torch.randn(20000, 64, generator=g), torch.randn(20000, 64, generator=g)
    reference = float(torch.std((q * k).sum(-1)))
    assert drawn == pytest.approx(reference, rel=0.05) and drawn == pytest.approx(math.sqrt(64), abs=0.5)
    points = [o for o in shown.outcomes if o.expect.measure == "at"]
    assert len(points) == 4 and all(o.held for o in points) and points[0].measured == (pytest.approx(drawn),)
    assert [o.held for o in shown.outcomes] == [True] * len(step.expect)


@pytest.mark.floats
def test_the_gqa_step_writes_the_kv_cache_its_layers_keep_and_checks_it_halves(shelf, registry, lab):
    """'Each pair of heads reads the same keys, so the KV cache halves': above the maps, what a cache keeps per token
    with a K/V head per query head and with the step's two, counted as the real layers' K and V shapes."""
    import torch

    from core import AttentionConfig
    from core.serve import lessons

    step = by_hand(shelf, "Grouped-query attention")
    shown = lessons.shown(lab, step)
    x = torch.randn(1, 3, 16)
    kept = []
    for name, options in (("multi-head", {}), ("gqa", {"n_kv_heads": 2})):
        tr = registry.build(name, AttentionConfig(d_model=16, n_heads=4, options=options)).trace(x)
        kept.append(tr.k.shape[1] * tr.k.shape[-1] + tr.v.shape[1] * tr.v.shape[-1])  # (B, Hkv, T, hd)
    assert [item["value"] for item in shown.view["counts"]["items"]] == kept == [32, 16]
    assert all("{value}" in item["text"] for item in shown.view["counts"]["items"])  # (the page writes the value)
    (ratio,) = [o for o in shown.outcomes if o.expect.measure == "count ratio"]
    assert ratio.held and ratio.measured == (0.5,)


@pytest.mark.floats
def test_the_two_heads_step_writes_torchs_parameter_counts_and_checks_they_are_equal(shelf, lab):
    """'Two heads of width 8 use the same parameters as one head of width 16': the counts drawn are what torch's own
    nn.MultiheadAttention has at one head and at two (its in- and out-projections, as ours)."""
    import torch

    from core.serve import lessons

    step = by_hand(shelf, "Two heads instead of one wide one")
    shown = lessons.shown(lab, step)
    torchs = [sum(p.numel() for p in torch.nn.MultiheadAttention(16, h).parameters()) for h in (1, 2)]
    assert [item["value"] for item in shown.view["counts"]["items"]] == torchs
    (ratio,) = [o for o in shown.outcomes if o.expect.measure == "count ratio"]
    assert ratio.held and ratio.measured == (1.0,)


@pytest.mark.floats
def test_the_three_by_hand_claims_fail_the_walk_when_they_stop_holding(registry, lab):
    text = (lesson_shelf.BUILT_IN / "by-hand.md").read_text(encoding="utf-8")
    for old, new in (("expect: at 64 in line 0 <= 8.5", "expect: at 64 in line 0 <= 7"),
                     ("expect: count ratio == 0.5", "expect: count ratio == 1"),
                     ("expect: count ratio == 1", "expect: count ratio == 0.5")):
        broken = fmt.parse(text.replace(old, new, 1), "by-hand.md", set(registry.variants))
        said = failures(lab, broken)
        assert len(said) == 1 and "✗" in said[0], (new, said)
