"""The experiments as the app serves them: trained in a worker process, shared by a class, figures drawn once."""

from __future__ import annotations

import threading

import pytest

from core.lab import experiments as ex
from core.serve import experiments as served

SMALL_MASK = ex.MaskParams(steps=100, context_length=8, d_model=32, eval_every=99)


def _last(run):
    *_, final = run
    return final


def test_a_second_identical_request_is_served_from_the_cache():
    first = _last(served.shared_mask_experiment(SMALL_MASK))
    again = list(served.shared_mask_experiment(SMALL_MASK))
    assert len(again) == 1 and again[0] is first


def test_a_stopped_run_is_not_cached():
    stop = threading.Event()
    p = ex.MaskParams(steps=50, context_length=8, d_model=16, n_heads=2, eval_every=49, seed=7)
    for run in served.shared_mask_experiment(p, stop=stop, every=1):
        if len(run.steps) >= 3:
            stop.set()
    assert run.stopped and not run.done and len(run.steps) < p.steps
    assert next(served.shared_mask_experiment(p, stop=stop)).stopped  # not served from the cache: ran (and stopped) again


def _until(condition, timeout: float = 30.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def _counting(monkeypatch) -> list[str]:
    """Count how many times a run is actually trained (in its worker process): the names of the runs."""
    from core.serve import runs

    calls, real = [], runs.apart
    monkeypatch.setattr(runs, "apart", lambda fn, *a: (calls.append(fn.__name__), real(fn, *a))[1])
    return calls


def test_a_request_arriving_while_the_same_run_trains_watches_it_instead_of_training_twice(monkeypatch):
    calls = _counting(monkeypatch)
    p = ex.MaskParams(steps=40, context_length=8, d_model=16, n_heads=2, eval_every=39, seed=11)
    owner = served.shared_mask_experiment(p, every=5)
    first = next(owner)  # training has started and published its first snapshot
    watched = []
    watcher = threading.Thread(target=lambda: watched.extend(served.shared_mask_experiment(p, every=5)))
    watcher.start()
    _until(lambda: watched)  # the watcher has the first snapshot (from the run in progress, not the cache)
    final = _last(owner)  # the owner trains to the end while the other caller watches
    watcher.join(timeout=60)
    assert not watcher.is_alive() and len(calls) == 1  # trained once
    assert first.params == p and final.done and len(watched) > 1 and watched[-1].done
    assert watched[-1].masked == final.masked and watched[-1].samples == final.samples
    lengths = [len(r.steps) for r in watched]
    assert lengths == sorted(lengths) and all(len(r.masked) == len(r.steps) for r in watched)  # consistent copies
    assert next(served.shared_mask_experiment(p)) is final and len(calls) == 1  # then served from the cache


def test_when_the_trainer_leaves_early_a_watcher_trains_the_run_itself(monkeypatch):
    calls = _counting(monkeypatch)
    p = ex.MaskParams(steps=30, context_length=8, d_model=16, n_heads=2, eval_every=29, seed=12)
    owner = served.shared_mask_experiment(p, every=5)
    next(owner)
    watched = []
    watcher = threading.Thread(target=lambda: watched.extend(served.shared_mask_experiment(p, every=5)))
    watcher.start()
    _until(lambda: watched)  # watching the run in progress
    owner.close()  # the first student pressed Stop (Gradio closes the generator)
    watcher.join(timeout=60)
    assert not watcher.is_alive() and len(calls) == 2 and watched[-1].done and len(watched[-1].steps) == p.steps


def test_experiments_tab_streams_a_run_through_the_api(client):
    chart, words, masked, unmasked, payload = client.predict(10, 5, api_name="/mask_experiment")
    assert payload["steps_done"] == 10 and payload["done"] and masked and unmasked
    assert chart["kind"] == "chart" and len(chart["panels"][0]["series"][0]["y"]) == 10  # one point per step
    assert "10 steps" in words
    again = client.predict(10, 5, api_name="/mask_experiment")[-1]
    assert again["cached"] is True and again["train_loss"] == payload["train_loss"]


def test_one_client_gets_one_training_at_a_time_and_a_cached_run_does_not_wait(client, app_url):
    import time

    from gradio_client import Client
    from gradio_client.exceptions import AppError

    client.predict(10, 6, api_name="/mask_experiment")  # trained now, cached from here on
    first = client.submit(1000, 4321, api_name="/mask_experiment")  # a long one, for this client's session
    deadline = time.monotonic() + 120
    while not first.outputs():  # its first snapshot: it has the turn and is training
        assert time.monotonic() < deadline
        time.sleep(0.1)
    try:
        with pytest.raises(AppError, match="^You already have a training waiting or running"):
            client.predict(10, 4322, api_name="/mask_experiment")  # a second new run: refused at once
        other = Client(app_url, verbose=False, analytics_enabled=False, download_files=False, ssl_verify=False)
        start = time.monotonic()
        cached = other.predict(10, 6, api_name="/mask_experiment")[-1]  # another student, a cached run
        assert cached["cached"] is True and time.monotonic() - start < 10  # not behind the training
    finally:
        first.cancel()


def test_warming_trains_the_default_runs_so_the_first_click_is_a_cache_hit(monkeypatch):
    import inspect

    defaults = inspect.signature(served.warm).parameters
    assert defaults["mask"].default == ex.MaskParams() and defaults["scale"].default == ex.ScaleParams()
    small_mask = ex.MaskParams(steps=20, context_length=8, d_model=16, n_heads=2, eval_every=19, seed=21)
    small_scale = ex.ScaleParams(steps=4, context_length=8, seed=21)  # the defaults, made small
    calls = _counting(monkeypatch)
    served.warm(small_mask, small_scale)
    assert calls == ["mask_experiment", "scale_experiment"]
    (mask,) = served.shared_mask_experiment(small_mask)  # one snapshot: the finished run, from the cache
    (scale,) = served.shared_scale_experiment(small_scale)
    assert mask.done and scale.done and len(calls) == 2
    assert ("mask", small_mask, small_mask.steps, True, "en") in served.DRAWN  # the charts are built too (English)
    assert ("scale", small_scale, small_scale.steps, True, "en") in served.DRAWN


def test_a_snapshot_is_built_once_however_many_students_watch_it(monkeypatch):
    import copy

    from core.render.experiment_plots import mask_chart

    mask_run = _last(served.shared_mask_experiment(SMALL_MASK))
    built = []
    monkeypatch.setitem(served.CHARTS, "mask", lambda run: (built.append(1), mask_chart(run))[1])
    served.DRAWN.clear()
    first = served.chart("mask", mask_run)
    again = served.chart("mask", copy.deepcopy(mask_run))  # another watcher's copy of it
    assert again is first and len(built) == 1
    shorter = copy.deepcopy(mask_run)
    del shorter.steps[-1]
    shorter.done = False
    assert served.chart("mask", shorter)["stamp"] != first["stamp"]  # an earlier snapshot is another chart
    assert len(built) == 2


def test_the_cache_of_finished_runs_is_bounded(monkeypatch):
    from core.serve import runs

    monkeypatch.setattr(runs, "CACHED_RUNS", 2)
    monkeypatch.setattr(runs, "_CACHE", runs.OrderedDict())
    for seed in range(3):  # three different runs (tiny generators: the cache does not care what trains)
        list(runs.cached_run(("t", seed), lambda seed=seed: iter([_Done(seed)])))
    assert list(runs._CACHE) == [("t", 1), ("t", 2)]


class _Done:
    def __init__(self, seed):
        self.seed, self.done = seed, True
