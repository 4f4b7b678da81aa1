"""The two experiments on a small budget: they order as the chapter says, stop when asked, and cache."""

from __future__ import annotations

import threading

import pytest

from core.lab import experiments as ex

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


@pytest.mark.floats
def test_the_honest_loss_of_a_causal_model_equals_its_ordinary_loss():
    import torch

    from core.lab.train import LOG2E, next_token_loss

    model = ex._small_gpt(SMALL_MASK, causal=True).eval()
    x, y = ex._probe(8, n=4)
    with torch.no_grad():
        plain = next_token_loss(model, x, y).item() * LOG2E
    assert ex.honest_loss(model, x, y) == pytest.approx(plain, abs=1e-5)


def test_a_stopped_run_stops():
    stop = threading.Event()
    p = ex.MaskParams(steps=50, context_length=8, d_model=16, n_heads=2, eval_every=49, seed=7)
    for run in ex.mask_experiment(p, stop=stop, every=1):
        if len(run.steps) >= 3:
            stop.set()
    assert run.stopped and not run.done and len(run.steps) < p.steps
    assert ex.mask_summary(run)["stopped"] is True


def test_a_notebook_runs_an_experiment_in_its_own_process():
    """Plain functions: no worker process, no forkserver, nothing of the app's serving layer imported."""
    import subprocess
    import sys

    code = (
        "import multiprocessing, sys\n"
        "from core.lab import experiments as ex\n"
        "p = ex.ScaleParams(steps=2, context_length=8)\n"
        "runs = list(ex.scale_experiment(p))\n"
        "assert runs[-1].done and multiprocessing.active_children() == []\n"
        "print(sorted(m for m in sys.modules if m.startswith(('core.serve', 'gradio'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.kernel_free
def test_summaries_are_the_mean_of_the_last_steps_and_the_final_values(mask_run):
    s = ex.mask_summary(mask_run)
    assert s["train_loss"]["masked"] == pytest.approx(sum(mask_run.masked[-10:]) / 10, abs=1e-3)
    assert s["honest_loss"]["unmasked"] == pytest.approx(mask_run.unmasked_honest[-1], abs=1e-3)
    assert s["steps_done"] == SMALL_MASK.steps and s["done"] and not s["stopped"]
    scale = _last(ex.scale_experiment(SMALL_SCALE))
    t = ex.scale_summary(scale)
    assert t["max_weight"]["unscaled"] == pytest.approx(scale.max_weight["unscaled"][-1], abs=1e-4)
    assert mask_run.fraction_done == 1.0


@pytest.mark.parametrize("kind, steps, seed, words", [
    ("mask", 5, 0, "steps=5 is out of range; choose 10 to 1000"),
    ("scale", 501, 0, "steps=501 is out of range; choose 10 to 500"),
    ("mask", 20.5, 0, "steps=20.5 must be a whole number"),
    ("mask", 20, "x", "seed='x' must be a whole number"),
])
def test_experiment_settings_out_of_range_are_one_sentence(kind, steps, seed, words):
    from core.config import ConfigError

    with pytest.raises(ConfigError) as err:
        ex.check_params(kind, steps, seed)
    assert str(err.value) == words


def test_without_scaling_the_softmax_saturates_and_its_gradient_shrinks():
    run = _last(ex.scale_experiment(SMALL_SCALE))
    for step in range(SMALL_SCALE.steps):
        assert run.max_weight["unscaled"][step] > run.max_weight["scaled"][step]
        assert run.entropy["unscaled"][step] < run.entropy["scaled"][step]
        assert run.grad_norm["unscaled"][step] < run.grad_norm["scaled"][step]
    assert run.max_weight["unscaled"][0] > 0.9  # nearly one-hot from the first step


def test_one_thread_restores_the_thread_count_when_callers_overlap():
    """Two overlapping requests (server threads) must not leave torch on one thread for good."""
    import threading

    import torch

    from core.lab.threads import one_thread

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


def test_a_second_caller_inside_one_thread_also_runs_on_one_thread():
    """torch's thread count is each thread's own: a server thread that enters while another is already inside must
    lower its own too, or it computes on two threads and draws other floats (ci16: a copied link's view, its twin)."""
    import threading

    import torch

    from core.lab.threads import one_thread

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    first_in, done, seen = threading.Event(), threading.Event(), []

    def first():
        with one_thread():
            first_in.set()
            done.wait(10)

    def second():
        torch.get_num_threads()  # (a pool thread already running, on two threads)
        first_in.wait(10)
        with one_thread():
            seen.append(torch.get_num_threads())
        done.set()

    try:
        threads = [threading.Thread(target=second), threading.Thread(target=first)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
    finally:
        torch.set_num_threads(before)
    assert seen == [1]


