"""core.lab.session and core.lab.steps: what the Attention and Step-through tabs show, checked against torch."""

import json

import pytest
import torch
import torch.nn.functional as F

from core import load_registry
from core.config import ConfigError
from core.lab.session import Lab, make_request, rounded, row_check, weights_payload
from core.lab.steps import kv_head, sharing, stages, trace_payload
from core.seeding import seeded_init
from core.serve.exports import trace_file


@pytest.fixture(scope="module")
def lab():
    return Lab(load_registry(entry_points=False))


def test_bad_requests_name_the_problem(lab):
    with pytest.raises(ConfigError, match="empty"):
        make_request("   ")
    with pytest.raises(ConfigError, match="n_heads=3 does not divide d_model=16"):
        lab.run(make_request("a b", n_heads=3))
    with pytest.raises(ConfigError, match="window"):
        lab.run(make_request("a b", variant="sliding-window", options='{"window": 0}'))
    with pytest.raises(ConfigError, match="unknown option 'nope'"):
        lab.run(make_request("a b", options='{"nope": 1}'))
    with pytest.raises(ConfigError, match="not registered"):
        lab.run(make_request("a b", variant="no-such-variant"))
    with pytest.raises(ConfigError, match="no words"):
        lab.run(make_request("\u200b\u200b"))


@pytest.mark.floats
def test_weights_agree_with_torch_sdpa(lab):
    run = lab.run(make_request("The cat sat on the mat", n_heads=4, d_model=16, seed=3))
    tr = run.trace
    ref = F.scaled_dot_product_attention(tr.q, tr.k, tr.v, is_causal=True)  # (1, 4, T, 4)
    assert torch.allclose(tr.context, ref, atol=1e-6)
    assert run.weights.shape == (4, 6, 6)
    assert torch.allclose(run.weights.sum(-1), torch.ones(4, 6), atol=1e-6)
    assert torch.all(run.weights.triu(1) == 0)


@pytest.mark.floats
def test_unscaled_and_unmasked_agree_with_sdpa(lab):
    run = lab.run(make_request("one two three four", causal=False, scaled=False))
    tr = run.trace
    ref = F.scaled_dot_product_attention(tr.q, tr.k, tr.v, scale=1.0)
    assert torch.allclose(tr.context, ref, atol=1e-5)
    assert row_check(run).above_diagonal > 0


@pytest.mark.floats
def test_same_seed_same_layer_and_cache_is_bounded(lab):
    req = make_request("the same sentence", seed=7)
    assert lab.run(req) is lab.run(req)  # the LRU cache hands back the computed result
    small = Lab(lab.registry, cache_size=2)
    first = small.run(make_request("one", seed=1))
    small.run(make_request("two", seed=1))
    assert small.run(make_request("one", seed=1)) is first  # still cached (and now the most recent)
    small.run(make_request("three", seed=1))
    small.run(make_request("four", seed=1))
    assert small.run.cache_info().currsize == 2 and small.run(make_request("one", seed=1)) is not first  # evicted
    other = Lab(lab.registry)
    assert torch.equal(other.run(req).weights, lab.run(req).weights)  # fresh module, same seed
    assert not torch.equal(lab.run(make_request("the same sentence", seed=8)).weights, lab.run(req).weights)


@pytest.mark.floats
def test_seeded_init_is_private_to_the_call():
    a, b = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)  # built with different global-RNG weights
    torch.manual_seed(0)
    before = torch.rand(1)
    torch.manual_seed(0)
    seeded_init(a, 5)
    assert torch.equal(torch.rand(1), before)  # the global RNG was not touched
    seeded_init(b, 5)
    assert torch.equal(a.weight, b.weight) and torch.equal(a.bias, b.bias)
    assert a.weight.abs().max() <= 0.5  # PyTorch's default bound 1/sqrt(fan_in)


def test_single_head_ignores_n_heads(lab):
    run = lab.run(make_request("a b c", variant="single-head", n_heads=4))
    assert run.weights.shape == (1, 3, 3)


def test_row_check_line(lab):
    run = lab.run(make_request("a b c d"))
    assert row_check(run).line == "every row sums to 1; weight above the diagonal: 0 in every row"
    leak = row_check(lab.run(make_request("a b c d", causal=False))).line
    assert leak.startswith("every row sums to 1; weight above the diagonal: ") and "leaks" in leak


def test_sliding_window_blocks_outside_the_band(lab):
    run = lab.run(make_request("a b c d e f", variant="sliding-window", options='{"window": 2}'))
    w = run.weights[0]  # (T, T)
    assert torch.all(w.tril(-2) == 0) and torch.all(w.triu(1) == 0)
    assert row_check(run).blocked_weight == 0
    assert "itself and the 1 token before it" in sharing(run)  # (one token: t_n says it in the singular)


def test_weights_payload_shape(lab):
    run = lab.run(make_request("I ❤️ 你 好", n_heads=4))
    p = weights_payload(run)
    assert p["tokens"] == ["I", "❤️", "你", "好"]
    assert len(p["weights"]) == 4 and all(len(h) == 4 and all(len(r) == 4 for r in h) for h in p["weights"])
    json.dumps(p)


def test_rounded_keeps_inf_and_bools_json_safe():
    assert rounded(torch.tensor([[1.0, float("-inf")]])) == [[1.0, "-inf"]]
    assert rounded(torch.tensor([True, False])) == [True, False]


def test_gqa_sharing_and_stages(lab):
    run = lab.run(make_request("a b c", variant="gqa", n_heads=4, options='{"n_kv_heads": 2}'))
    assert [kv_head(run, h) for h in range(4)] == [0, 0, 1, 1]
    assert "K/V head 1 ← query heads 2, 3" in sharing(run)
    shown = stages(run, 3)
    names = [s.name for s in shown]
    assert names == ["Q", "K", "V", "scores", "scaled", "masked", "weights", "context", "output"]
    by = {s.name: s for s in shown}
    assert by["K"].formula.endswith("(K/V head 1)")
    assert by["scores"].shape == (3, 3) and by["Q"].shape == (3, 4) and by["output"].shape == (3, 16)
    assert by["masked"].rows[0][1] == "-inf"
    with pytest.raises(ConfigError, match="head=4"):
        stages(run, 4)


@pytest.mark.floats
def test_trace_json_recomputes_the_weights(lab, tmp_path):
    run = lab.run(make_request("The cat sat", n_heads=2, seed=1))
    path = trace_file(run, str(tmp_path))
    data = json.loads(open(path, encoding="utf-8").read())
    assert data == json.loads(json.dumps(trace_payload(run)))
    assert data["tokens"] == ["The", "cat", "sat"] and data["config"]["n_heads"] == 2
    q = torch.tensor(data["stages"]["q"]["values"])  # (1, H, T, hd)
    k = torch.tensor(data["stages"]["k"]["values"])
    mask = torch.tensor(data["stages"]["mask"]["values"])
    scores = (q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5).masked_fill(~mask, float("-inf"))
    assert torch.allclose(torch.softmax(scores, -1), torch.tensor(data["stages"]["weights"]["values"]), atol=1e-5)
    assert trace_file(run, str(tmp_path)) == path  # one file per request


def test_the_head_a_student_picks_is_held_to_the_heads_the_run_has(lab):
    from core.lab.steps import last_head, pick_head

    run = lab.run(make_request("a b c", n_heads=4))
    assert pick_head(run, 2.0) == 2 and pick_head(run, 7) == 3 and last_head(run) == 3
    single = lab.run(make_request("a b c", variant="single-head", n_heads=4))
    assert pick_head(single, 3) == 0 and last_head(single) == 1  # a slider needs a range
    with pytest.raises(ConfigError, match="head=1.5 must be a whole number"):
        pick_head(run, 1.5)


def test_every_seed_a_person_types_has_one_range_in_every_tab():
    from core.config import ConfigError
    from core.lab.session import seed_value
    from core.serve.generate_inputs import TINY, settings

    top = 2**32 - 1
    assert seed_value(top) == top and settings(TINY, "the cat", 1.0, 0, top)[-1] == top  # Attention = Generate
    for wrong in (top + 1, -1):
        with pytest.raises(ConfigError, match="seed"):
            seed_value(wrong)
        with pytest.raises(ConfigError, match="seed"):
            settings(TINY, "the cat", 1.0, 0, wrong)
