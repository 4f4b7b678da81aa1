"""Run a generator in a worker process and iterate it here: training must not hold the server's GIL.

A training step of a small model is mostly Python between short torch calls, so a training thread in
the server takes the interpreter lock from every request thread for as long as it runs. In a worker
process it takes one core and nothing else. Workers are forked from a forkserver that imported torch
and the experiments once, so each starts in a fraction of a second.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

NICE = 10  # the worker's niceness: below the server's request threads
PRELOAD = ["core.lab.experiments"]  # imported once by the forkserver: torch, the model, the corpus
_lock = threading.Lock()
_context = None


def context():
    """The forkserver context, with PRELOAD set before its server first starts."""
    global _context
    with _lock:
        if _context is None:
            _context = multiprocessing.get_context("forkserver")
            _context.set_forkserver_preload(PRELOAD)
        return _context


def run_isolated(fn: Callable[..., Iterator[Any]], *args: Any) -> Iterator[Any]:
    """Yield the items of fn(*args), computed in a worker process; fn and args must pickle (fn by name).

    Closing this iterator (a caller who leaves or presses Stop) terminates the worker. An exception in
    the worker is raised here; a worker that dies without a word raises RuntimeError.
    """
    ctx = context()
    receive, send = ctx.Pipe(duplex=False)
    worker = ctx.Process(target=_work, args=(send, fn, args), daemon=True, name=f"lab-{fn.__name__}")
    with _main_not_rerun():
        worker.start()
    send.close()  # ours is the receiving end; EOF then means the worker is gone
    try:
        while True:
            try:
                kind, payload = receive.recv()  # blocks without the GIL
            except EOFError:
                worker.join(timeout=10)  # the pipe closes a moment before the exit code is known
                raise RuntimeError(f"the {fn.__name__} worker stopped (exit code {worker.exitcode})") from None
            if kind == "item":
                yield payload
            elif kind == "error":
                raise payload
            else:
                return
    finally:
        if worker.is_alive():
            worker.terminate()
        worker.join(timeout=10)
        receive.close()


@contextmanager
def _main_not_rerun() -> Iterator[None]:
    """multiprocessing re-runs the parent's main script in each worker, to find functions defined there.
    Ours are importable by name, and the main script may be app.py (it builds the whole UI, ~5 s) or
    stdin (which cannot be re-run): name the main module "__main__", which multiprocessing skips."""
    main = sys.modules["__main__"]
    with _lock:
        saved = main.__dict__.get("__spec__")
        main.__spec__ = SimpleNamespace(name="__main__")
        try:
            yield
        finally:
            main.__spec__ = saved


def _work(send, fn: Callable[..., Iterator[Any]], args: tuple) -> None:
    import torch

    torch.set_num_threads(1)  # small models: one thread is fastest, and the other core serves requests
    os.nice(NICE)  # when the cores are busy, a class's clicks go first; alone, it runs at full speed
    try:
        for item in fn(*args):
            send.send(("item", item))
        send.send(("done", None))
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the caller
        try:
            send.send(("error", exc))
        except Exception:  # an exception that does not pickle: its words still do
            send.send(("error", RuntimeError(f"{type(exc).__name__}: {exc}")))
    finally:
        send.close()
