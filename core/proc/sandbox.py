"""Run code in a child process: training (off the server's interpreter lock) and plugin code (not ours to trust).

Children are forked from a forkserver that imported torch and the model once, so each starts in a
fraction of a second. Whatever the code does there — raise anything (SystemExit and KeyboardInterrupt
included), call os._exit, hang, spin, allocate far too much, leave threads behind — costs only the
call that ran it: the caller gets the result, the exception, or one SandboxError sentence.
`call` and `stream` start a child per call; core.proc.worker.Worker keeps one child up between calls (a
plugin's requests then cost milliseconds, not a process start) and replaces it after anything that spoils it.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ..variant import where

PRELOAD = ["torch", "core.model"]  # imported once by the forkserver (the lab's layers import the rest cheaply)
_lock = threading.Lock()
_context = None


class SandboxError(RuntimeError):
    """The child process did not give an answer: timed out, ran out of memory, died or raised; one sentence."""

    def __init__(self, message: str, kind: str, where: str = "") -> None:
        super().__init__(message)
        self.kind, self.where = kind, where  # kind: "timeout", "memory", "died" or "error"; where: "file.py:12"

    def __reduce__(self) -> tuple:
        return SandboxError, (str(self), self.kind, self.where)


def context():
    """The forkserver context, with PRELOAD set before its server first starts."""
    global _context
    with _lock:
        if _context is None:
            _context = multiprocessing.get_context("forkserver")
            _context.set_forkserver_preload(PRELOAD)
        return _context


def stream(fn: Callable[..., Iterator[Any]], *args: Any, label: str = "", timeout: float | None = None,
           memory_mb: int | None = None, nice: int = 0, threads: int = 1) -> Iterator[Any]:
    """Yield the items of fn(*args), computed in a child process; fn and args must pickle (fn by name).

    timeout: seconds allowed between two items (and before the first); memory_mb: how much more memory
    the child may take than it started with. Closing this iterator (a caller who leaves or presses Stop)
    kills the child. An exception there is raised here (a SandboxError when it does not pickle).
    """
    label = label or getattr(fn, "__name__", "worker")
    ctx = context()
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_work, args=(send, fn, args, memory_mb, nice, threads), daemon=True,
                        name=f"lab-{label}"[:60])
    with _main_not_rerun():
        child.start()
    send.close()  # ours is the receiving end; EOF then means the child is gone
    try:
        while True:
            if timeout is not None and not receive.poll(timeout):  # waits without the GIL
                raise SandboxError(f"{label} did not answer within {timeout:g} s", "timeout")
            try:
                kind, payload = receive.recv()
            except EOFError:
                child.join(timeout=10)  # the pipe closes a moment before the exit code is known
                raise SandboxError(f"{label} stopped its process (exit code {child.exitcode})", "died") from None
            if kind == "item":
                yield payload
            elif kind == "error":
                raise payload
            else:
                return
    finally:
        if child.is_alive():
            child.kill()  # SIGKILL: code that ignores SIGTERM (or spins in C) cannot keep the child alive
        child.join(timeout=10)
        receive.close()


def call(fn: Callable[..., Any], *args: Any, label: str = "", timeout: float | None = None,
         memory_mb: int | None = None, nice: int = 0, threads: int = 1) -> Any:
    """fn(*args) in a child process: its result, its exception, or a SandboxError (see stream)."""
    label = label or getattr(fn, "__name__", "worker")
    (result,) = stream(_once, fn, args, label=label, timeout=timeout, memory_mb=memory_mb, nice=nice, threads=threads)
    return result


def _once(fn: Callable[..., Any], args: tuple) -> Iterator[Any]:
    yield fn(*args)


@contextmanager
def _main_not_rerun() -> Iterator[None]:
    """multiprocessing re-runs the parent's main script in each child, to find functions defined there.
    Ours are importable by name, and the main script may be app.py (it builds the whole UI: slow) or
    stdin (which cannot be re-run): name the main module "__main__", which multiprocessing skips."""
    main = sys.modules["__main__"]
    with _lock:
        saved = main.__dict__.get("__spec__")
        main.__spec__ = SimpleNamespace(name="__main__")
        try:
            yield
        finally:
            main.__spec__ = saved


def _cap_memory(memory_mb: int) -> None:
    """Let the child's address space grow by memory_mb over what it has now (the preloaded torch), and never
    past a cap it inherited (a child of a capped worker: the conformance kit run for a plugin)."""
    import resource

    pages = int(Path("/proc/self/statm").read_text().split()[0])
    limit = pages * os.sysconf("SC_PAGE_SIZE") + memory_mb * 2**20
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _work(send, fn: Callable[..., Iterator[Any]], args: tuple, memory_mb: int | None, nice: int,
          threads: int) -> None:
    import torch

    torch.set_num_threads(threads)  # small models: one thread is fastest, and the other core serves requests
    if nice:
        os.nice(nice)  # when the cores are busy, a class's clicks go first
    if memory_mb is not None:
        _cap_memory(memory_mb)
    started = time.monotonic()
    try:
        for item in fn(*args):
            send.send(("item", item))
        send.send(("done", None))
    except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt too: all go back to the caller
        send.send(("error", _portable(exc, time.monotonic() - started)))
    finally:
        send.close()
        os._exit(0)  # now: threads the code left behind must not keep this process alive


def _portable(exc: BaseException, seconds: float) -> BaseException:
    """The exception itself when it pickles (ConfigError stays a ConfigError), else a SandboxError in its words."""
    at = where(exc)
    if isinstance(exc, MemoryError) or "can't allocate memory" in str(exc):
        return SandboxError(f"ran out of memory after {seconds:.1f} s", "memory", at)
    if isinstance(exc, Exception):
        if at:
            exc.add_note(f"at {at}")  # notes travel with the pickle: the caller can still say where
        try:
            pickle.loads(pickle.dumps(exc))
            return exc
        except Exception:  # noqa: BLE001 - fall through to its words
            pass
    first = (str(exc).strip().splitlines() or [""])[0][:200]
    return SandboxError(f"raised {type(exc).__name__}" + (f": {first}" if first else ""), "error", at)


def forked_call(fn: Callable[..., Any], *args: Any, label: str = "", timeout: float | None = None,
                memory_mb: int | None = None, threads: int = 1) -> Any:
    """call(), for arguments that do not pickle (a lambda, a class defined inside a function).

    The child is forked from this process, so it inherits them; the answer must still pickle.
    Same time limit, memory cap and one-sentence SandboxError as call().
    """
    label = label or getattr(fn, "__name__", "worker")
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_work, args=(send, _once, (fn, args), memory_mb, 0, threads), daemon=True,
                        name=f"lab-{label}"[:60])
    child.start()
    send.close()
    try:
        if timeout is not None and not receive.poll(timeout):
            raise SandboxError(f"{label} did not answer within {timeout:g} s", "timeout")
        try:
            kind, payload = receive.recv()
        except EOFError:
            child.join(timeout=10)
            raise SandboxError(f"{label} stopped its process (exit code {child.exitcode})", "died") from None
        if kind == "error":
            raise payload
        return payload
    finally:
        if child.is_alive():
            child.kill()
        child.join(timeout=10)
        receive.close()
