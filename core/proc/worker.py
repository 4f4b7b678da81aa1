"""A child process kept up between calls, for code called often (a plugin's view of each request).

Same limits as core.proc.sandbox (time limit, memory cap, BaseException caught, os._exit in the child), but
one process answers call after call, so a request costs a round trip of a pipe, not a process start.
"""

from __future__ import annotations

import atexit
import multiprocessing.util  # noqa: F401 - before our atexit hook, so ours runs first (LIFO)
import os
import pickle
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from .sandbox import SandboxError, _cap_memory, _main_not_rerun, _portable, context


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
