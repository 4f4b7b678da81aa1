"""A third-party plugin's code runs in its worker process: whatever it does costs only its own requests."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from core import AttentionModule, Variant, hookimpl
from core.lab.causality import probe as probe_here
from core.lab.model_stats import model_size as model_size_here
from core.lab.session import Lab, make_request
from core.registry import load_registry
from core.serve import plugins, views
from core.serve.plugins import AppLab, PluginFault
from core.serve.slots import CPU
from core.ui.gradio_seams import queue_lender

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import hostile_plugins  # noqa: E402  (scripts/: shared with the reliability suite)

LIMIT_S = 1.0


class _ThirdParty:
    """The built-in formula, registered as if a third party had written it: it runs in a worker."""

    __name__ = "third-party"

    @hookimpl
    def register_attention_variants(self, register):
        register(Variant(name="outside", title="Outside", summary="plain multi-head from a plugin",
                         build=AttentionModule))


@pytest.fixture(scope="module")
def lab():
    registry = load_registry(entry_points=False, plugins=[*hostile_plugins.PLUGINS, _ThirdParty()])
    assert registry.errors == []
    lab = AppLab(registry)
    lab.guard.timeouts["view"] = LIMIT_S
    yield lab
    lab.guard.close()


WORDS = {
    "hang": f"did not answer within {LIMIT_S:g} s; the lab stopped it",
    "spin": f"did not answer within {LIMIT_S:g} s; the lab stopped it",
    "exit": "stopped its process (exit code 3); the lab restarted its worker",
    "sysexit": "raised SystemExit: 2 at hostile_plugins.py:",
    "interrupt": "raised KeyboardInterrupt at hostile_plugins.py:",
    "memory": "ran out of memory at hostile_plugins.py:",
    "shape": "returned weights of shape (1, 2, 3, 2); the lab expects (1, heads, 3, 3) for 3 tokens",
    "raise": "failed: RuntimeError: this variant is not finished (at hostile_plugins.py:",
}


@pytest.mark.parametrize("name", list(WORDS))
def test_a_hostile_plugin_costs_its_own_request_one_sentence(lab, name):
    start = time.monotonic()
    with pytest.raises(PluginFault) as err:
        views.attention(lab, f"a b {name}", f"hostile-{name}")
    message = str(err.value)
    assert message.startswith(f"plugin 'hostile-{name}' ") and WORDS[name] in message
    assert "\n" not in message and len(message) <= 200
    assert time.monotonic() - start < LIMIT_S + 20  # the time limit (plus, at most, a worker's start)
    assert views.attention(lab, f"still serving after {name}").check.startswith("every row sums to 1")


def test_a_plugin_that_leaves_threads_behind_still_answers_and_its_worker_is_replaced(lab):
    first = views.attention(lab, "threads one", "hostile-threads")
    second = views.attention(lab, "threads two", "hostile-threads")
    assert first.check.startswith("every row sums to 1") and second.check.startswith("every row sums to 1")
    assert lab.guard._plugin("hostile-threads").worker.started >= 2


def test_nan_weights_are_drawn_as_zero_said_in_a_note_and_written_nan_in_the_json(lab):
    view = views.attention(lab, "the cat sat", "hostile-nan")
    assert view.payload["weights"][0][0] == ["NaN", 0.0, 0.0]  # blocked cells stay 0 whatever the scores
    assert "plugin 'hostile-nan' returned 12 attention weights that are NaN or infinite" in view.note
    assert view.check == "some rows hold NaN or infinite weights: they are not probabilities"


@pytest.mark.kernel_free
def test_a_third_party_variant_gives_the_numbers_it_gives_in_process(lab, monkeypatch):
    monkeypatch.setitem(lab.guard.timeouts, "view", 60.0)  # a busy machine: this test is about the numbers
    req = make_request("the same numbers either way", "outside", n_heads=4, seed=3)
    apart, here = lab.run(req), Lab(lab.registry).run(req)
    assert apart.module is None and here.module is not None  # the module stayed in the worker
    close = dict(atol=1e-6, rtol=0)  # the worker computes on one thread: float sums may round differently
    torch.testing.assert_close(apart.weights, here.weights, **close)
    torch.testing.assert_close(apart.trace.output, here.trace.output, **close)
    p_apart = plugins.probe(lab, "the cat sat on the mat", 3, "dog", True, "outside", 0)
    p_here = probe_here(Lab(lab.registry), "the cat sat on the mat", 3, "dog", True, "outside", 0)
    assert p_apart.row_max_abs_diff[:3] == [0, 0, 0] and p_apart.identical_before
    assert p_apart.row_max_abs_diff == pytest.approx(p_here.row_max_abs_diff, abs=1e-6)
    torch.testing.assert_close(p_apart.dependency, p_here.dependency, **close)
    assert plugins.model_size(lab.registry, "gpt2-small", "outside", 4, 256) == \
        model_size_here(lab.registry, "gpt2-small", "outside", 4, 256)
    report = plugins.check(lab.registry, "outside")
    assert report.passed, str(report)


def _hang_only(limit: float = 0.5) -> AppLab:
    hang = [p for p in hostile_plugins.PLUGINS if p.__name__ == "hostile-hang"]
    lab = AppLab(load_registry(entry_points=False, plugins=hang))
    lab.guard.timeouts["view"] = limit
    return lab


def test_a_plugin_that_keeps_failing_is_switched_off_and_the_plugins_tab_says_so():
    lab = _hang_only()
    try:
        for i in range(plugins.FAILURES_TO_SWITCH_OFF):
            with pytest.raises(PluginFault, match="did not answer within 0.5 s"):
                lab.run(make_request(f"try {i}", "hostile-hang"))
        start = time.monotonic()
        with pytest.raises(PluginFault, match="^plugin 'hostile-hang' is switched off for this run: it did not answer"):
            lab.run(make_request("once more", "hostile-hang"))
        assert time.monotonic() - start < 0.1  # answered at once, no worker involved
        assert "hostile-hang" in plugins.switched_off_text(lab.registry)
        assert lab.run(make_request("others still work")).weights.shape == (2, 3, 3)
    finally:
        lab.guard.close()
    assert plugins.switched_off_text(load_registry(entry_points=False)).startswith("None")


def test_the_plugins_tab_check_of_a_hanging_plugin_ends_at_its_time_limit():
    from core.ui.plugins_tab import run_check

    lab = _hang_only()
    lab.guard.timeouts["check"] = 1.0
    start = time.monotonic()
    try:
        with pytest.raises(PluginFault, match="^plugin 'hostile-hang' did not answer within 1 s"):
            run_check(lab.registry, "hostile-hang")
    finally:
        lab.guard.close()
    assert time.monotonic() - start < 20


def test_a_request_waiting_on_a_hanging_plugin_lends_its_queue_slot_until_the_wait_ends(monkeypatch):
    group = SimpleNamespace(current_concurrency=2)  # the CPU group of Gradio's queue, both slots taken
    monkeypatch.setattr(CPU, "_lender", queue_lender(lambda: group, lambda fn: fn()))
    lab = _hang_only(limit=3.0)
    asker = threading.Thread(target=lambda: pytest.raises(PluginFault, lab.run, make_request("lend?", "hostile-hang")))
    asker.start()
    try:
        deadline = time.monotonic() + 20
        while group.current_concurrency == 2:  # waiting on the worker: the next request in line may start
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert group.current_concurrency == 1 and CPU.lent == 1
    finally:
        asker.join(30)
        lab.guard.close()
    assert not asker.is_alive() and group.current_concurrency == 2 and CPU.lent == 0  # taken back
