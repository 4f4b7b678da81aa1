"""The server's view cache builds a view once for every request thread that wants it at the same moment (a class of
60 asking for the step just moved to), and never keeps a failed build or a view that changes by itself."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from core.serve.cache import DrawnCache
from core.serve.screens import Screens


def _together(n: int, call) -> list:
    """n threads calling call() at once; their results (or exceptions) in order."""
    out: list = [None] * n
    start = threading.Barrier(n)

    def one(i: int) -> None:
        start.wait()
        try:
            out[i] = call()
        except Exception as exc:  # noqa: BLE001 - the test reads what each caller got
            out[i] = exc

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(10)
    return out


def test_threads_missing_the_same_key_share_one_build():
    cache, built = DrawnCache(), []

    def draw():
        built.append(1)
        time.sleep(0.2)  # (long enough that every thread arrives while it is under way)
        return {"view": len(built)}

    got = _together(12, lambda: cache.get("step-7", draw))
    assert len(built) == 1
    assert all(g is got[0] for g in got) and got[0] == {"view": 1}
    assert cache.misses == 1 and len(cache) == 1


def test_a_build_that_raises_reaches_every_caller_and_is_not_kept():
    cache, calls = DrawnCache(), []

    def draw():
        calls.append(1)
        time.sleep(0.1)
        raise ValueError("the view refuses this state")

    got = _together(4, lambda: cache.get("bad", draw))
    assert all(isinstance(g, ValueError) for g in got)
    assert len(cache) == 0 and "bad" not in cache
    assert cache.get("bad", lambda: "now fine") == "now fine"  # (a later build is not blocked by the failed one)


def test_keep_false_shares_the_build_under_way_but_keeps_nothing():
    cache, built = DrawnCache(), []

    def draw():
        built.append(1)
        time.sleep(0.2)
        return len(built)

    got = _together(6, lambda: cache.get("training", draw, keep=False))
    assert got == [1] * 6 and len(cache) == 0
    assert cache.get("training", draw, keep=False) == 2  # (a run still training is drawn again next time)


def _lesson(view: str):
    step = SimpleNamespace(view=view)
    return SimpleNamespace(name="chapter", language="en", steps=(step, step))


@pytest.mark.parametrize(("view", "builds"), [("heatmaps", 1), ("training", 3)])
def test_a_lessons_screen_is_kept_unless_its_view_changes_by_itself(view, builds):
    screens, built = Screens(), []

    def build():
        built.append(1)
        return ("pos", {"value": "shown", "visible": True}, None)

    lesson = _lesson(view)
    for _ in range(3):
        values = screens.get(lesson, 1, False, build)
        values[1].pop("value")  # (what Gradio does to an update as it sends it)
    assert len(built) == builds
    assert screens.get(lesson, 1, False, build)[1]["value"] == "shown"  # each caller its own copy
