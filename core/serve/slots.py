"""How many requests compute in the server's own process at once: one per core, shared by every tab.

Gradio's queue lets more events run than there are cores, because some of them only wait: for a
plugin's worker process, or for a training run. An event holds a CPU slot while it computes here and
gives it back while it waits on another process, so a plugin that hangs holds no core the class needs.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

CPU_WORKERS = 2  # the target machine's cores: two computations at once, the rest wait their turn


class Slots:
    """A counting semaphore a thread holds at most once, and can lend out while it waits elsewhere."""

    def __init__(self, n: int) -> None:
        self.n = n
        self._free = threading.Semaphore(n)
        self._mine = threading.local()

    @property
    def holding(self) -> bool:
        """Does the calling thread hold a slot now?"""
        return getattr(self._mine, "held", False)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Compute with a slot; nested use in the same thread takes no second one."""
        if self.holding:
            yield
            return
        self._free.acquire()
        self._mine.held = True
        try:
            yield
        finally:
            self._mine.held = False
            self._free.release()

    @contextmanager
    def released(self) -> Iterator[None]:
        """Wait without a slot (another process works meanwhile), then take one again to go on."""
        if not self.holding:
            yield
            return
        self._mine.held = False
        self._free.release()
        try:
            yield
        finally:
            self._free.acquire()
            self._mine.held = True


CPU = Slots(CPU_WORKERS)
