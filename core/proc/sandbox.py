"""The one way the lab runs code in a child process: the kit's checks, training, plugin workers, the benchmarks.

Children are forked from a forkserver that imported torch and the model once, so each starts in a
fraction of a second (or forked from this process, for code that does not pickle). Whatever the code does
there — raise anything (SystemExit and KeyboardInterrupt included), call os._exit, hang, spin, allocate far
too much, leave threads behind — costs only the call that ran it: the caller gets the result (or the items
it yields), the exception with the file:line it came from, or one SandboxError sentence.
`run_in_child` starts a child per call; a Worker keeps one up between calls (a plugin's requests then cost
milliseconds, not a process start) and replaces it after anything that spoils it. Both run the same loop.
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.util  # noqa: F401 - before our atexit hook, so ours runs first (LIFO)
import os
import pickle
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ..variant import one_line, where

PRELOAD = ["torch", "core.model"]  # imported once by the forkserver (the lab's layers import the rest cheaply)
_lock = threading.Lock()
_contexts: dict[str, Any] = {}


class SandboxError(RuntimeError):
    """The child process did not give an answer: timed out, ran out of memory, died or raised; one sentence."""

    def __init__(self, message: str, kind: str, where: str = "") -> None:
        super().__init__(message)
        self.kind, self.where = kind, where  # kind: "timeout", "memory", "died" or "error"; where: "file.py:12"

    def __reduce__(self) -> tuple:
        return SandboxError, (str(self), self.kind, self.where)


def run_in_child(fn: Callable[..., Any], *args: Any, label: str = "", timeout: float | None = None,
                 memory_mb: int | None = None, nice: int = 0, threads: int = 1, stream: bool = False,
                 start: str = "forkserver") -> Any:
    """fn(*args) in a fresh child process: its result, or with stream=True an iterator over the items it yields.

    timeout: seconds allowed between two items (and before the first); memory_mb: how much more memory the
    child may take than it started with; threads: torch's threads there; nice: added to its niceness.
    start="forkserver" wants fn and args to pickle (fn by name); "fork" inherits them (a lambda, a local
    class), only the answer must pickle. Closing the iterator (a caller who leaves or presses Stop) kills
    the child. An exception there is raised here (a SandboxError when it does not pickle).
    """
    child = Worker(label or getattr(fn, "__name__", "worker"), memory_mb, nice, threads, start=start)
    child._per_call = True
    return child.stream(fn, *args, timeout=timeout) if stream else child.call(fn, *args, timeout=timeout)


class Worker:
    """One child process that stays up between calls, for code called often (a plugin's view of each request).

    Calls run one at a time, in order. A call that hangs past its time limit, dies, runs out of memory,
    raises SystemExit/KeyboardInterrupt or leaves threads behind costs the child: it is killed (or ends
    itself after answering) and the next call starts a fresh one. memory_mb caps what the child may add
    to its address space over the preloaded torch, for its whole life.
    """

    def __init__(self, label: str, memory_mb: int | None = None, nice: int = 0, threads: int = 1,
                 start_timeout: float = 60.0, start: str = "forkserver") -> None:
        self.label, self.limits, self.start_timeout, self.method = label, (memory_mb, nice, threads), start_timeout, start
        self.started = 0  # children started so far (1 + replacements)
        self._child: Any = None
        self._conn: Any = None
        self._lock = threading.Lock()
        self._per_call = False  # a run_in_child child: one request, given at its start
        _WORKERS.add(self)

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float | None = None) -> Any:
        """fn(*args) in the child: its result, its exception, or a SandboxError; fn and args must pickle."""
        (result,) = self.stream(_once, fn, args, timeout=timeout)
        return result

    def stream(self, fn: Callable[..., Iterator[Any]], *args: Any, timeout: float | None = None) -> Iterator[Any]:
        """The items of fn(*args), yielded in the child; leaving before the end ends the child."""
        with self._lock:
            finished = None  # no answer yet; then whether the child may answer another call
            try:
                self._request(fn, args)
                while True:
                    kind, payload, spoiled = self._receive(timeout)
                    if kind == "item":
                        yield payload
                        continue
                    finished = not spoiled and not self._per_call
                    if kind == "error":
                        raise payload
                    return
            finally:
                if not finished:
                    self._stop(now=finished is None)  # mid-answer (a time limit, a caller who left): kill it now

    def close(self) -> None:
        """End the child (if any); a later call starts a new one."""
        with self._lock:
            self._stop()

    def _request(self, fn: Callable[..., Any], args: tuple) -> None:
        if self._per_call:  # a child per call: the request goes in at its start (inherited, with start="fork")
            self._spawn((fn, args))
            return
        self._ensure()
        request = pickle.dumps((fn, args), pickle.HIGHEST_PROTOCOL)  # plain pickle: tensors travel by value
        try:
            self._conn.send_bytes(request)
        except (BrokenPipeError, ConnectionResetError):  # the child died between calls: one fresh start
            self._stop()
            self._ensure()
            self._conn.send_bytes(request)

    def _receive(self, timeout: float | None) -> tuple[str, Any, bool]:
        if timeout is not None and not self._conn.poll(timeout):  # waits without the GIL
            raise SandboxError(f"{self.label} did not answer within {timeout:g} s", "timeout")
        try:
            return pickle.loads(self._conn.recv_bytes())
        except EOFError:
            code = self._stop()  # the pipe closes a moment before the exit code is known: _stop reaps it
            raise SandboxError(f"{self.label} stopped its process (exit code {code})", "died") from None

    def _ensure(self) -> None:
        if self._child is not None and self._child.is_alive():
            return
        self._stop()
        self._spawn(None)
        if not self._conn.poll(self.start_timeout):
            self._stop()
            raise SandboxError(f"{self.label} did not start within {self.start_timeout:g} s", "timeout")
        self._receive(None)  # "ready": the child has set its limits

    def _spawn(self, request: tuple | None) -> None:
        ctx = _context(self.method)
        self._conn, theirs = ctx.Pipe(duplex=True)
        # not a daemon: code it runs may start processes of its own (the conformance kit does); ended at exit
        self._child = ctx.Process(target=_main, args=(theirs, self.limits, request), daemon=False,
                                  name=f"{'lab' if self._per_call else 'worker'}-{self.label}"[:60])
        with _main_not_rerun():
            self._child.start()
        theirs.close()  # ours is the other end; EOF then means the child is gone
        self.started += 1

    def _stop(self, now: bool = False) -> int | None:
        """End the child and reap it: SIGKILL (code that ignores SIGTERM or spins in C cannot stay), now or
        after half a second, in which one that has answered or sees the pipe close ends itself."""
        child, conn, self._child, self._conn = self._child, self._conn, None, None
        if child is not None and now:
            child.kill()  # before the pipe closes: no broken-pipe traceback from a child still sending
        if conn is not None:
            conn.close()
        if child is None:
            return None
        child.join(timeout=0.5)
        if child.is_alive():
            child.kill()
        child.join(timeout=10)
        return child.exitcode


_WORKERS: weakref.WeakSet[Worker] = weakref.WeakSet()


@atexit.register
def _close_workers() -> None:
    """Before multiprocessing joins its non-daemon children at exit: kill every child, without waiting for
    a call in progress (or a stream left open, which holds its worker) to let go."""
    for worker in list(_WORKERS):
        worker._stop(now=True)


def _context(method: str):
    """The fork or forkserver context, the latter with PRELOAD set before its server first starts."""
    with _lock:
        if method not in _contexts:
            _contexts[method] = multiprocessing.get_context(method)
            if method == "forkserver":
                _contexts[method].set_forkserver_preload(PRELOAD)
        return _contexts[method]


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


def _once(fn: Callable[..., Any], args: tuple) -> Iterator[Any]:
    yield fn(*args)


# ---- in the child ---------------------------------------------------------------------------------------


def _main(conn, limits: tuple, request: tuple | None) -> None:
    """The child: set its limits, then answer the one request it was started with, or calls until one spoils it."""
    _limit(*limits)
    baseline = threading.active_count()
    if request is not None:
        _answer(conn, *request, baseline)
    else:
        conn.send_bytes(pickle.dumps(("ready", None, False)))
        while (request := _next(conn)) is not None and not _answer(conn, *request, baseline):
            pass
    conn.close()
    os._exit(0)  # now: threads the code left behind must not keep this process alive


def _next(conn) -> tuple | None:
    """The next call, or None when the parent has gone or its call cannot even be read."""
    try:
        return pickle.loads(conn.recv_bytes())  # unpickling imports the plugin's module here, not in the server
    except EOFError:
        return None
    except BaseException as exc:  # noqa: BLE001 - an import that fails or exits is the call's error
        conn.send_bytes(pickle.dumps(("error", _portable(exc, 0.0), True)))
        return None


def _limit(memory_mb: int | None, nice: int, threads: int) -> None:
    import torch

    torch.set_num_threads(threads)  # small models: one thread is fastest, and the other core serves requests
    if nice:
        os.nice(nice)  # when the cores are busy, a class's clicks go first
    if memory_mb is not None:
        _cap_memory(memory_mb)


def _answer(conn, fn: Callable[..., Iterator[Any]], args: tuple, baseline: int) -> bool:
    """Send fn(*args)'s items, then "done" or the error; True when this process is spoiled for another call."""
    started = time.monotonic()
    try:
        for item in fn(*args):
            try:
                message = pickle.dumps(("item", item, False), pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # noqa: BLE001 - a value that cannot travel back: the call's error
                raise SandboxError(f"returned a value that cannot be sent back: {one_line(exc)[:120]}", "error") from None
            conn.send_bytes(message)
        kind, payload, spoiled = "done", None, False
    except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt too: all go back to the caller
        payload = _portable(exc, time.monotonic() - started)
        kind, spoiled = "error", not isinstance(exc, Exception) or getattr(payload, "kind", "") == "memory"
    spoiled = spoiled or threading.active_count() > baseline  # threads left behind: start afresh
    conn.send_bytes(pickle.dumps((kind, payload, spoiled), pickle.HIGHEST_PROTOCOL))
    return spoiled


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
