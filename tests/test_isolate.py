"""core.serve.isolate: a generator iterated in a worker process, its failures and its end reported here."""

import itertools
import multiprocessing
import os

import pytest

from core.serve.isolate import run_isolated


def test_items_are_computed_in_another_process_and_arrive_in_order():
    assert list(run_isolated(iter, [1, 2, 3])) == [1, 2, 3]
    (pid,) = run_isolated(itertools.starmap, os.getpid, [()])
    assert pid != os.getpid()  # the work ran elsewhere: the server's interpreter lock stays free


def test_an_exception_in_the_worker_is_raised_here_after_the_items_before_it():
    items = run_isolated(map, int, ["1", "2", "x"])
    assert next(items) == 1 and next(items) == 2
    with pytest.raises(ValueError, match="invalid literal"):
        next(items)


def test_a_worker_that_dies_silently_is_reported():
    with pytest.raises(RuntimeError, match="exit code 3"):
        list(run_isolated(itertools.starmap, os._exit, [(3,)]))


def test_closing_the_iterator_ends_the_worker():
    counting = run_isolated(itertools.count)  # endless: only closing stops it
    assert next(counting) == 0
    counting.close()
    assert not [p for p in multiprocessing.active_children() if p.name == "lab-count"]


def test_the_worker_yields_the_cores_to_the_server():
    (niceness,) = run_isolated(itertools.starmap, os.nice, [(0,)])  # os.nice(0) reports the current value
    assert niceness >= os.nice(0) + 10


@pytest.mark.parametrize("how", ["script", "stdin"])
def test_workers_do_not_rerun_the_main_script(tmp_path, how):
    # app.py builds the whole UI at import: a worker that re-ran it would spend seconds before training
    import subprocess
    import sys

    code = (
        "print('MAIN RAN', flush=True)\n"
        "from core.serve.isolate import run_isolated\n"
        "if __name__ == '__main__':\n"
        "    print(list(run_isolated(iter, [1, 2])), flush=True)\n"
    )
    script = tmp_path / "main_script.py"
    script.write_text(code)
    args, stdin = ([sys.executable, str(script)], None) if how == "script" else ([sys.executable, "-"], code)
    out = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.splitlines() == ["MAIN RAN", "[1, 2]"]
