"""Run code in a child process: training (off the server's interpreter lock) and plugin code (not ours to trust).

Children are forked from a forkserver that imported torch and the model once, so each starts in a
fraction of a second. Whatever the code does there — raise anything (SystemExit and KeyboardInterrupt
included), call os._exit, hang, spin, allocate far too much, leave threads behind — costs only the
call that ran it: the caller gets the result, the exception, or one SandboxError sentence.
`call` and `stream` start a child per call; a `Worker` keeps one child up between calls (a plugin's
requests then cost milliseconds, not a process start) and replaces it after anything that spoils it.
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.util  # before our atexit hook, so ours runs first (LIFO)
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

from .origin import where  # noqa: F401 - where(exc) is part of this module's interface

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


class Worker:
    """One child process that stays up between calls, for code called often (a plugin's view of each request).

    Calls run one at a time, in order. A call that hangs past its time limit, dies, runs out of memory,
    raises SystemExit/KeyboardInterrupt or leaves threads behind costs the child: it is killed (or ends
    itself after answering) and the next call starts a fresh one. memory_mb caps what the child may add
    to its address space over the preloaded torch, for its whole life.
    """

    def __init__(self, label: str, memory_mb: int | None = None, nice: int = 0, threads: int = 1,
                 start_timeout: float = 60.0) -> None:
        self.label, self.memory_mb, self.nice, self.threads = label, memory_mb, nice, threads
        self.start_timeout = start_timeout
        self.started = 0  # children started so far (1 + replacements)
        self._child: Any = None
        self._conn: Any = None
        self._lock = threading.Lock()
        _WORKERS.add(self)

    @property
    def alive(self) -> bool:
        return self._child is not None and self._child.is_alive()

    def start(self) -> None:
        """Start the child now (a warm-up), instead of at the first call."""
        with self._lock:
            self._ensure()

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float | None = None) -> Any:
        """fn(*args) in the child: its result, its exception, or a SandboxError; fn and args must pickle."""
        with self._lock:
            self._ensure()
            request = pickle.dumps((fn, args), pickle.HIGHEST_PROTOCOL)  # plain pickle: tensors travel by value
            try:
                self._conn.send_bytes(request)
            except (BrokenPipeError, ConnectionResetError):  # the child died between calls: one fresh start
                self._stop()
                self._ensure()
                self._conn.send_bytes(request)
            if timeout is not None and not self._conn.poll(timeout):  # waits without the GIL
                self._stop()
                raise SandboxError(f"{self.label} did not answer within {timeout:g} s", "timeout")
            try:
                kind, payload, spoiled = pickle.loads(self._conn.recv_bytes())
            except EOFError:
                code = self._stop()
                raise SandboxError(f"{self.label} stopped its process (exit code {code})", "died") from None
            if spoiled:
                self._stop()
            if kind == "error":
                raise payload
            return payload

    def close(self) -> None:
        """End the child (if any); a later call starts a new one."""
        with self._lock:
            self._stop()

    def _ensure(self) -> None:
        if self.alive:
            return
        self._stop()
        ctx = context()
        self._conn, theirs = ctx.Pipe(duplex=True)
        # not a daemon: code it runs may start processes of its own (the conformance kit does); ended at exit
        self._child = ctx.Process(target=_serve, args=(theirs, self.memory_mb, self.nice, self.threads),
                                  daemon=False, name=f"worker-{self.label}"[:60])
        with _main_not_rerun():
            self._child.start()
        theirs.close()
        self.started += 1
        if not self._conn.poll(self.start_timeout):
            self._stop()
            raise SandboxError(f"{self.label} did not start within {self.start_timeout:g} s", "timeout")
        try:
            self._conn.recv()  # "ready": the child has set its limits
        except EOFError:
            code = self._stop()
            raise SandboxError(f"{self.label} stopped its process (exit code {code})", "died") from None

    def _stop(self) -> int | None:
        """Kill the child (SIGKILL: code that ignores SIGTERM or spins in C cannot stay) and reap it."""
        child, self._child = self._child, None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if child is None:
            return None
        if child.is_alive():
            child.join(timeout=0.5)  # a spoiled child ends itself right after answering
        if child.is_alive():
            child.kill()
        child.join(timeout=10)
        return child.exitcode


_WORKERS: weakref.WeakSet[Worker] = weakref.WeakSet()


@atexit.register
def _close_workers() -> None:
    """Before multiprocessing joins its non-daemon children at exit: end every worker (none waits forever)."""
    for worker in list(_WORKERS):
        worker.close()


def _serve(conn, memory_mb: int | None, nice: int, threads: int) -> None:
    """The worker child: answer calls until the parent goes away or a call spoils this process."""
    import torch

    torch.set_num_threads(threads)
    if nice:
        os.nice(nice)
    if memory_mb is not None:
        _cap_memory(memory_mb)
    baseline = threading.active_count()
    conn.send("ready")
    while True:
        started = time.monotonic()
        try:
            fn, args = pickle.loads(conn.recv_bytes())  # unpickling imports the plugin's module here, not in the server
        except EOFError:
            break
        except BaseException as exc:  # noqa: BLE001 - an import that fails or exits is the call's error
            reply = ("error", _portable(exc, time.monotonic() - started), True)
        else:
            try:
                reply = ("result", fn(*args), False)
            except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt too: all go back
                err = _portable(exc, time.monotonic() - started)
                spoiled = not isinstance(exc, Exception) or getattr(err, "kind", "") == "memory"
                reply = ("error", err, spoiled)
        spoiled = reply[2] or threading.active_count() > baseline  # threads left behind: start afresh
        try:
            answer = pickle.dumps((reply[0], reply[1], spoiled), pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # noqa: BLE001 - a result that cannot travel back
            first = (str(exc).strip().splitlines() or [""])[0][:120]
            error = SandboxError(f"returned a value that cannot be sent back: {first}", "error")
            answer, spoiled = pickle.dumps(("error", error, True)), True
        conn.send_bytes(answer)
        if spoiled:
            break
    conn.close()
    os._exit(0)  # now: threads the code left behind must not keep this process alive
