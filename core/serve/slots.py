"""CPU slots: at most SLOTS computations at once, and a slot is lent out while its request waits on another process.

Queued events share one Gradio concurrency group with one slot per core (core/ui/common.py). The
Attention tab's own events skip the queue (a queued event costs two more round trips than the work
itself), so a semaphore of the same size bounds them instead; cached results never take a slot.
A request for a plugin's variant waits on that plugin's worker process, maybe until its time limit:
for that long its slot — the semaphore's, or the queue group's through the lender the server sets —
goes to the next request, and comes back when the wait ends. A plugin that hangs slows nobody else.
The queue's lender touches Gradio's internals, so it lives in core/ui/gradio_seams.py; build_demo sets it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

from core.lab import threads
from core.proc import CORES

SLOTS = CORES
Lender = Callable[[], AbstractContextManager]


class Slots:
    """`with CPU:` takes a slot for work outside the queue; `with CPU.released():` lends whichever slot the caller holds.

    A slot is one core: its work runs on one thread (core.lab.threads), so a view's floats, and the stamp the page
    marks its drawing with, are the same whether or not another request runs beside it (torch's kernels round
    differently on one thread than on two: ci12's lesson walk drew such a twin of its step)."""

    def __init__(self, size: int = SLOTS) -> None:
        self._free = threading.BoundedSemaphore(size)
        self._held = threading.local()  # how many semaphore slots this thread holds (0 or 1 in practice)
        self._lender: Lender | None = None
        self._lock = threading.Lock()
        self.lent = 0  # slots out on loan right now

    def __enter__(self) -> Slots:
        self._free.acquire()
        self._held.n = getattr(self._held, "n", 0) + 1
        threads.hold()
        return self

    def __exit__(self, *exc: object) -> None:
        threads.release()
        self._held.n -= 1
        self._free.release()

    def set_lender(self, lender: Lender | None) -> None:
        """lender(): a context manager that lends one queue slot for as long as it is entered (None: nobody lends)."""
        self._lender = lender

    @contextmanager
    def released(self) -> Iterator[None]:
        """Wait without a slot (another process works meanwhile); it is taken back when the wait ends."""
        if getattr(self._held, "n", 0):  # an unqueued event: give its semaphore slot back for the wait
            self._free.release()
            try:
                with self._loan():
                    yield
            finally:
                self._free.acquire()
            return
        if self._lender is None:
            yield
            return
        with self._lender(), self._loan():
            yield

    @contextmanager
    def _loan(self) -> Iterator[None]:
        with self._lock:
            self.lent += 1
        try:
            yield
        finally:
            with self._lock:
                self.lent -= 1


CPU = Slots()
