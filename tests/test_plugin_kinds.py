"""Issue #25's five kinds of plugin (tests/plugin_zoo.py), each registered for one test: cached, checked, shown."""

from __future__ import annotations

import pytest
import torch

from core import AttentionConfig, ConfigError, load_registry
from core.lab.threads import one_thread
from core.model import GPT
from core.probes import check_variant
from core.seeding import seeded_init
from tests.plugin_zoo import VARIANTS, DifferentialAttention, Zoo
from tests.test_kv_cache import _gpt as small_gpt

pytest_plugins = ["core.testing"]  # plugin_registry, also when this file runs alone
STEPS, TOL = 64, 1e-5
KINDS = [("l2-attention", {}), ("sigmoid-attention", {}), ("top-k-attention", {"top_k": 2}), ("t5-bias", {}),
         ("kernel-attention", {"kernel": "elu"}), ("kernel-attention", {"kernel": "relu"}), ("diff-attention", {})]


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    with one_thread():
        yield


@pytest.fixture
def zoo(plugin_registry):
    """The built-ins plus the zoo, for this test only."""
    return plugin_registry(Zoo())


def _gpt(registry, variant, options) -> GPT:
    """The cache tests' small peaked GPT, two layers."""
    return small_gpt(registry, variant, options, n_layers=2)


@pytest.mark.floats
@pytest.mark.parametrize("variant, options", KINDS, ids=[f"{v}-{'-'.join(map(str, o.values()))}" for v, o in KINDS])
def test_every_kind_decodes_with_the_cache_as_a_full_recompute(zoo, variant, options):
    model = _gpt(zoo, variant, options)
    prompt = torch.randint(0, 40, (2, 6), generator=torch.Generator().manual_seed(1))  # (B, T)
    with torch.no_grad():
        logits, cache = model(prompt, return_cache=True)
        seq, worst = prompt, 0.0
        for _ in range(STEPS):
            full = model(seq)[:, -1]  # (B, V) the T x T square again
            worst = max(worst, (logits[:, -1] - full).abs().max().item())
            assert torch.equal(logits[:, -1].argmax(-1), full.argmax(-1))
            nxt = logits[:, -1].argmax(-1, keepdim=True)  # (B, 1)
            seq = torch.cat([seq, nxt], dim=1)
            logits, cache = model(nxt, cache=cache)
    assert worst <= TOL, f"{variant}: cached logits differ from the recompute by {worst:.2e}"
    assert torch.equal(model.generate(prompt, STEPS, temperature=0), model.generate(prompt, STEPS, temperature=0,
                                                                                     use_cache=False))


def test_a_past_that_changes_with_T_is_refused_saying_so(zoo):
    model = _gpt(zoo, "sigmoid-log-t", {})
    with pytest.raises(ConfigError, match=r"^the variant 'sigmoid-log-t' cannot use a KV cache: its bias\(\) for "
                                          r"earlier tokens changes as T grows .*use_cache=False$"):
        model.generate(torch.zeros(1, 3, dtype=torch.long), 2)


@pytest.mark.parametrize("variant", [v.name for v in VARIANTS])
def test_the_kit_passes_every_kind_with_its_cache_check(variant):
    report = check_variant(load_registry(entry_points=False, plugins=[Zoo()]).variants[variant])
    assert report.passed, str(report)
    assert "cached decoding equals the recompute" in report.timings


def test_the_kit_names_a_past_that_changes_with_T():
    report = check_variant(load_registry(entry_points=False, plugins=[Zoo()]).variants["sigmoid-log-t"])
    assert any(f.startswith("cached decoding equals the recompute: GPT.generate(use_cache=True) refuses it: its bias()")
               for f in report.failures), report.failures


@pytest.mark.floats
def test_differential_attention_keeps_two_maps_and_their_difference(zoo):
    layer = seeded_init(zoo.build("diff-attention", AttentionConfig(d_model=16, n_heads=2)), 0).eval()
    tr = layer.trace(torch.randn(1, 5, 16))
    assert tr.scores.shape == tr.masked.shape == (1, 2, 2, 5, 5)  # (B, H, M, T, T)
    assert list(tr.maps) == ["A₁", "A₂"] and tr.maps["A₁"].shape == (1, 2, 5, 5)
    torch.testing.assert_close(tr.maps["A₁"].sum(-1), torch.ones(1, 2, 5))  # each map a softmax
    torch.testing.assert_close(tr.weights, tr.maps["A₁"] - layer.lam() * tr.maps["A₂"])
    assert tr.per_map("scaled").shape == (1, 2, 2, 5, 5) and tr.first_map("scores").dim() == 4


@pytest.mark.floats
def test_keep_init_keeps_lambda_init_and_leaves_every_other_draw_alone(zoo):
    config = AttentionConfig(options={"lambda_init": 0.8})
    kept = seeded_init(zoo.build("diff-attention", config), 0)
    assert kept.lambda_init.item() == pytest.approx(0.8)

    class Redrawn(DifferentialAttention):
        keep_init = ()

    redrawn = seeded_init(Redrawn(zoo.get("diff-attention").resolve(config)), 0)
    assert redrawn.lambda_init.item() != pytest.approx(0.8)
    for (name, a), (_, b) in zip(kept.named_parameters(), redrawn.named_parameters(), strict=True):
        if name != "lambda_init":
            assert torch.equal(a, b), name  # the same seed gives every other parameter the same numbers
