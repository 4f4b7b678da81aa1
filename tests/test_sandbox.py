"""core.proc.sandbox: code run in a child process (one per call, or a Worker kept up); whatever it does costs only its own call."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import subprocess
import sys
import time

import pytest

from core.config import ConfigError
from core.proc.sandbox import SandboxError, Worker, run_in_child
from core.variant import where

# Module-level, so the child can import them by name (as it imports a plugin's code).


def _raise(kind: str) -> None:
    if kind == "config":
        raise ConfigError("window=0 is too small; choose 1 or more")
    if kind == "exit":
        raise SystemExit(3)
    if kind == "interrupt":
        raise KeyboardInterrupt
    if kind == "unpicklable":
        raise _Unpicklable("a lock cannot travel")


class _Unpicklable(Exception):
    def __init__(self, message: str) -> None:
        import threading

        super().__init__(message)
        self.lock = threading.Lock()


def _sleep_forever() -> None:
    while True:
        time.sleep(1)


def _spin() -> None:
    while True:
        pass


def _allocate(gib: int) -> int:
    import torch

    return torch.ones(gib * 2**28).numel()  # gib GiB of fp32


def _leave_a_thread_running() -> str:
    import threading

    threading.Thread(target=_sleep_forever).start()  # not a daemon: it would keep a normal process alive
    return "answered"


def test_items_are_computed_in_another_process_and_arrive_in_order():
    assert list(run_in_child(iter, [1, 2, 3], stream=True)) == [1, 2, 3]
    assert run_in_child(os.getpid) != os.getpid()  # the work ran elsewhere: the server's interpreter lock stays free


def test_an_exception_in_the_child_is_raised_here_after_the_items_before_it():
    items = run_in_child(map, int, ["1", "2", "x"], stream=True)
    assert next(items) == 1 and next(items) == 2
    with pytest.raises(ValueError, match="invalid literal"):
        next(items)


def test_a_config_error_stays_a_config_error_with_its_sentence():
    with pytest.raises(ConfigError) as err:
        run_in_child(_raise, "config")
    assert str(err.value) == "window=0 is too small; choose 1 or more"
    assert any(n.startswith("at test_sandbox.py:") for n in err.value.__notes__)  # where the plugin raised


@pytest.mark.parametrize("kind, words", [
    ("exit", "raised SystemExit: 3"),
    ("interrupt", "raised KeyboardInterrupt"),
    ("unpicklable", "raised _Unpicklable: a lock cannot travel"),
])
def test_base_exceptions_and_unpicklable_ones_come_back_as_one_sentence(kind, words):
    with pytest.raises(SandboxError) as err:
        run_in_child(_raise, kind, label="plugin 'x'")
    assert str(err.value) == words and err.value.kind == "error" and err.value.where.startswith("test_sandbox.py:")


def test_an_answer_that_cannot_travel_back_is_one_sentence(worker):
    import threading

    with pytest.raises(SandboxError, match="returned a value that cannot be sent back: TypeError: cannot pickle"):
        run_in_child(threading.Lock)
    with pytest.raises(SandboxError, match="cannot be sent back"):
        worker.call(threading.Lock)
    assert worker.call(int, "7") == 7


def test_a_child_that_dies_without_a_word_is_reported():
    with pytest.raises(SandboxError, match=r"plugin 'x' stopped its process \(exit code 3\)") as err:
        run_in_child(os._exit, 3, label="plugin 'x'")
    assert err.value.kind == "died"


@pytest.mark.parametrize("fn", [_sleep_forever, _spin])
def test_a_hang_or_a_spin_is_cut_off_at_its_time_limit(fn):
    start = time.monotonic()
    with pytest.raises(SandboxError, match=r"plugin 'x' did not answer within 0.5 s") as err:
        run_in_child(fn, label="plugin 'x'", timeout=0.5)
    assert err.value.kind == "timeout" and time.monotonic() - start < 10
    assert not [p for p in multiprocessing.active_children() if p.name.startswith("lab-plugin")]  # killed


def test_memory_beyond_the_cap_is_refused_in_the_child():
    with pytest.raises(SandboxError, match="ran out of memory") as err:
        run_in_child(_allocate, 4, memory_mb=512)
    assert err.value.kind == "memory"
    assert run_in_child(_allocate, 0, memory_mb=512) == 0  # the cap is over what the child already had


def test_threads_left_behind_do_not_keep_the_child_alive():
    assert run_in_child(_leave_a_thread_running, timeout=30) == "answered"
    time.sleep(0.2)
    assert not [p for p in multiprocessing.active_children() if p.is_alive() and p.name.startswith("lab-")]


def test_closing_the_iterator_ends_the_child():
    counting = run_in_child(itertools.count, stream=True)  # endless: only closing stops it
    assert next(counting) == 0
    counting.close()
    assert not [p for p in multiprocessing.active_children() if p.name == "lab-count"]


def test_a_niced_child_yields_the_cores_to_the_server():
    (niceness,) = run_in_child(itertools.starmap, os.nice, [(0,)], nice=10, stream=True)  # os.nice(0) reports the current value
    assert niceness >= os.nice(0) + 10


def test_a_forked_child_runs_what_does_not_pickle_under_the_same_limits():
    lock = __import__("threading").Lock()  # a lock cannot be pickled: only a fork can hand it over
    assert run_in_child(lambda: lock.locked(), start="fork") is False
    with pytest.raises(SandboxError, match=r"did not answer within 0.5 s") as err:
        run_in_child(lambda: time.sleep(60), start="fork", timeout=0.5)
    assert err.value.kind == "timeout"


def test_where_names_the_plugins_line_not_the_labs():
    try:
        _raise("config")
    except ConfigError as exc:
        assert where(exc) == f"test_sandbox.py:{_raise.__code__.co_firstlineno + 2}"


@pytest.mark.parametrize("how", ["script", "stdin"])
def test_children_do_not_rerun_the_main_script(tmp_path, how):
    # app.py builds the whole UI at import: a child that re-ran it would spend seconds before training
    code = (
        "print('MAIN RAN', flush=True)\n"
        "from core.proc.sandbox import run_in_child\n"
        "if __name__ == '__main__':\n"
        "    print(list(run_in_child(iter, [1, 2], stream=True)), flush=True)\n"
    )
    script = tmp_path / "main_script.py"
    script.write_text(code)
    args, stdin = ([sys.executable, str(script)], None) if how == "script" else ([sys.executable, "-"], code)
    out = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.splitlines() == ["MAIN RAN", "[1, 2]"]


def test_a_stream_left_open_does_not_hold_up_the_exit():
    code = ("import itertools\nfrom core.proc.sandbox import run_in_child\n"
            "counting = run_in_child(itertools.count, stream=True)\nprint(next(counting))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True).stdout
    assert out == "0\n"


# ---- Worker: one child kept up between calls ------------------------------------------------


@pytest.fixture
def worker():
    w = Worker("plugin 'x'", memory_mb=512)
    yield w
    w.close()


def test_a_worker_answers_call_after_call_from_one_process(worker):
    first = worker.call(os.getpid)
    assert first != os.getpid() and worker.call(os.getpid) == first and worker.started == 1
    start = time.monotonic()
    for _ in range(20):
        worker.call(os.getpid)
    assert time.monotonic() - start < 2  # no process start per call


@pytest.mark.parametrize("fn, args, kind", [
    (_sleep_forever, (), "timeout"),
    (_spin, (), "timeout"),
    (os._exit, (3,), "died"),
    (_raise, ("exit",), "error"),
    (_raise, ("interrupt",), "error"),
    (_allocate, (4,), "memory"),
])
def test_whatever_a_call_does_the_next_call_gets_a_working_process(worker, fn, args, kind):
    before = worker.call(os.getpid)
    with pytest.raises(SandboxError) as err:  # (1 s for the calls that must time out; the others get room to say
        worker.call(fn, *args, timeout=1 if kind == "timeout" else 20)  # what they did on a busy machine: ci14)
    assert err.value.kind == kind
    after = worker.call(os.getpid)
    assert after != before and worker.started == 2  # a fresh child: the spoiled one is gone
    assert not [p for p in multiprocessing.active_children() if p.pid == before]


def test_an_ordinary_exception_keeps_the_worker(worker):
    pid = worker.call(os.getpid)
    with pytest.raises(ConfigError, match="window=0"):
        worker.call(_raise, "config")
    assert worker.call(os.getpid) == pid


def test_threads_left_behind_cost_the_worker_not_the_answer(worker):
    pid = worker.call(os.getpid)
    assert worker.call(_leave_a_thread_running, timeout=30) == "answered"
    assert worker.call(os.getpid) != pid  # the process with the stray thread was replaced


@pytest.mark.floats
def test_tensors_come_back_by_value_from_a_worker_that_is_gone(worker):
    import torch

    t = worker.call(torch.arange, 5)
    worker.close()
    assert torch.equal(t + 1, torch.arange(1, 6))  # not a handle into the dead child's shared memory
