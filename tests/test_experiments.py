"""The two experiments on a small budget: they order as the chapter says, stop when asked, and cache."""

from __future__ import annotations

import threading

import pytest

from core import experiments as ex

SMALL_MASK = ex.MaskParams(steps=200, context_length=8, d_model=32, eval_every=199)
SMALL_SCALE = ex.ScaleParams(steps=6, context_length=8)


def _last(run):
    *_, final = run
    return final


@pytest.fixture(scope="module")
def mask_run():
    return _last(ex.mask_experiment(SMALL_MASK))


def test_without_the_mask_training_loss_falls_below_the_masked_one_but_honest_loss_is_worse(mask_run):
    def tail(xs):
        return sum(xs[-10:]) / 10

    assert mask_run.done and len(mask_run.steps) == SMALL_MASK.steps
    assert tail(mask_run.unmasked) < tail(mask_run.masked)  # it peeks at the answer
    assert mask_run.unmasked_honest[-1] > mask_run.masked_honest[-1] + 0.5  # and cannot do without it
    assert set(mask_run.samples) == {"masked", "unmasked"} and all(mask_run.samples.values())


def test_a_second_identical_request_is_served_from_the_cache(mask_run):
    again = list(ex.mask_experiment(SMALL_MASK))
    assert len(again) == 1 and again[0] is mask_run


def test_the_honest_loss_of_a_causal_model_equals_its_ordinary_loss():
    import torch

    from core.train import LOG2E, next_token_loss

    model = ex._small_gpt(SMALL_MASK, causal=True).eval()
    x, y = ex._probe(8, n=4)
    with torch.no_grad():
        plain = next_token_loss(model, x, y).item() * LOG2E
    assert ex.honest_loss(model, x, y) == pytest.approx(plain, abs=1e-5)


def test_a_stopped_run_stops_and_is_not_cached():
    stop = threading.Event()
    p = ex.MaskParams(steps=50, context_length=8, d_model=16, n_heads=2, eval_every=49, seed=7)
    runs = []
    for run in ex.mask_experiment(p, stop=stop, every=1):
        runs.append(len(run.steps))
        if len(run.steps) >= 3:
            stop.set()
    assert run.stopped and not run.done and len(run.steps) < p.steps
    assert next(ex.mask_experiment(p, stop=stop)).stopped  # not served from the cache: ran (and stopped) again


def _until(condition, timeout: float = 30.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def _counting(monkeypatch) -> list[str]:
    """Count how many times a run is actually trained (in its worker process): the names of the runs."""
    from core import runs

    calls, real = [], runs.apart
    monkeypatch.setattr(runs, "apart", lambda fn, *a: (calls.append(fn.__name__), real(fn, *a))[1])
    return calls


def test_a_request_arriving_while_the_same_run_trains_watches_it_instead_of_training_twice(monkeypatch):
    calls = _counting(monkeypatch)
    p = ex.MaskParams(steps=40, context_length=8, d_model=16, n_heads=2, eval_every=39, seed=11)
    owner = ex.mask_experiment(p, every=5)
    first = next(owner)  # training has started and published its first snapshot
    watched = []
    watcher = threading.Thread(target=lambda: watched.extend(ex.mask_experiment(p, every=5)))
    watcher.start()
    _until(lambda: watched)  # the watcher has the first snapshot (from the run in progress, not the cache)
    final = _last(owner)  # the owner trains to the end while the other caller watches
    watcher.join(timeout=60)
    assert not watcher.is_alive() and len(calls) == 1  # trained once
    assert first.params == p and final.done and len(watched) > 1 and watched[-1].done
    assert watched[-1].masked == final.masked and watched[-1].samples == final.samples
    lengths = [len(r.steps) for r in watched]
    assert lengths == sorted(lengths) and all(len(r.masked) == len(r.steps) for r in watched)  # consistent copies
    assert next(ex.mask_experiment(p)) is final and len(calls) == 1  # then served from the cache


def test_when_the_trainer_leaves_early_a_watcher_trains_the_run_itself(monkeypatch):
    calls = _counting(monkeypatch)
    p = ex.MaskParams(steps=30, context_length=8, d_model=16, n_heads=2, eval_every=29, seed=12)
    owner = ex.mask_experiment(p, every=5)
    next(owner)
    watched = []
    watcher = threading.Thread(target=lambda: watched.extend(ex.mask_experiment(p, every=5)))
    watcher.start()
    _until(lambda: watched)  # watching the run in progress
    owner.close()  # the first student pressed Stop (Gradio closes the generator)
    watcher.join(timeout=60)
    assert not watcher.is_alive() and len(calls) == 2 and watched[-1].done and len(watched[-1].steps) == p.steps


def test_without_scaling_the_softmax_saturates_and_its_gradient_shrinks():
    run = _last(ex.scale_experiment(SMALL_SCALE))
    for step in range(SMALL_SCALE.steps):
        assert run.max_weight["unscaled"][step] > run.max_weight["scaled"][step]
        assert run.entropy["unscaled"][step] < run.entropy["scaled"][step]
        assert run.grad_norm["unscaled"][step] < run.grad_norm["scaled"][step]
    assert run.max_weight["unscaled"][0] > 0.9  # nearly one-hot from the first step


def test_experiments_tab_streams_a_run_through_the_api(client):
    plot, words, masked, unmasked, payload = client.predict(10, 5, api_name="/mask_experiment")
    assert payload["steps_done"] == 10 and payload["done"] and masked and unmasked
    assert "10 steps" in words
    again = client.predict(10, 5, api_name="/mask_experiment")[-1]
    assert again["cached"] is True and again["train_loss"] == payload["train_loss"]


def test_one_thread_restores_the_thread_count_when_callers_overlap():
    """Two overlapping requests (server threads) must not leave torch on one thread for good."""
    import threading

    import torch

    from core.train import one_thread

    def seen_by_new_thread() -> int:  # torch's default for threads started later (the server's pool)
        box = []
        t = threading.Thread(target=lambda: box.append(torch.get_num_threads()))
        t.start()
        t.join()
        return box[0]

    before = seen_by_new_thread()
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()

    def first():
        with one_thread():
            first_in.set()
            second_in.wait(10)
        first_out.set()

    def second():
        first_in.wait(10)
        with one_thread():
            second_in.set()
            first_out.wait(10)  # the first caller leaves while this one is still inside

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert seen_by_new_thread() == before


def test_warming_trains_the_default_runs_so_the_first_click_is_a_cache_hit(monkeypatch):
    import inspect

    from core.ui import experiments_tab

    defaults = inspect.signature(experiments_tab.warm).parameters
    assert defaults["mask"].default == ex.MaskParams() and defaults["scale"].default == ex.ScaleParams()
    small_mask = ex.MaskParams(steps=20, context_length=8, d_model=16, n_heads=2, eval_every=19, seed=21)
    small_scale = ex.ScaleParams(steps=4, context_length=8, seed=21)  # the defaults, made small
    calls = _counting(monkeypatch)
    experiments_tab.warm(small_mask, small_scale)
    assert calls == ["_mask_run", "_scale_run"]
    (mask,) = ex.mask_experiment(small_mask)  # one snapshot: the finished run, from the cache
    (scale,) = ex.scale_experiment(small_scale)
    assert mask.done and scale.done and len(calls) == 2
    assert ("mask", small_mask, small_mask.steps, True) in experiments_tab.DRAWN  # the figures are drawn too
    assert ("scale", small_scale, small_scale.steps, True) in experiments_tab.DRAWN


def test_a_snapshot_is_drawn_once_however_many_students_watch_it(monkeypatch, mask_run):
    import copy

    from core.ui import experiments_tab

    drawn = []
    monkeypatch.setitem(experiments_tab.FIGURES, "mask", lambda run: (drawn.append(1), _tiny_figure())[1])
    experiments_tab.DRAWN.clear()
    first = experiments_tab.figure_png("mask", mask_run)
    again = experiments_tab.figure_png("mask", copy.deepcopy(mask_run))  # another watcher's copy of it
    assert again is first and len(drawn) == 1
    shorter = copy.deepcopy(mask_run)
    del shorter.steps[-1]
    shorter.done = False
    experiments_tab.figure_png("mask", shorter)  # an earlier snapshot is another picture
    assert len(drawn) == 2


def _tiny_figure():
    from matplotlib.figure import Figure

    return Figure(figsize=(1, 1))


def test_the_cache_of_finished_runs_is_bounded(monkeypatch):
    from core import runs

    monkeypatch.setattr(runs, "CACHED_RUNS", 2)
    monkeypatch.setattr(runs, "_CACHE", runs.OrderedDict())
    for seed in range(3):  # three different runs (tiny generators: the cache does not care what trains)
        list(runs.cached_run(("t", seed), lambda seed=seed: iter([_Done(seed)])))
    assert list(runs._CACHE) == [("t", 1), ("t", 2)]


class _Done:
    def __init__(self, seed):
        self.seed, self.done = seed, True
