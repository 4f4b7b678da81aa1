"""While a request waits on another process, the CPU slot it holds in the server's queue is lent out.

The class's compute events share one queue group with one slot per core (core/ui/common.py). A request
for a plugin's variant waits on that plugin's worker process, maybe until its time limit: for that
long its slot goes to the next request in line, and comes back when the wait ends. A plugin that hangs
then slows nobody else, and ordinary traffic is queued exactly as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

Lender = Callable[[], AbstractContextManager]


class Slots:
    """Lends the caller's slot while a wait lasts, through the lender the server sets."""

    def __init__(self) -> None:
        self._lender: Lender | None = None
        self._lock = threading.Lock()
        self.lent = 0  # slots out on loan right now

    def set_lender(self, lender: Lender | None) -> None:
        """lender(): a context manager that lends one slot for as long as it is entered (None: nobody lends)."""
        self._lender = lender

    @contextmanager
    def released(self) -> Iterator[None]:
        """Wait without a slot (another process works meanwhile); it is taken back when the wait ends."""
        if self._lender is None:
            yield
            return
        with self._lender():
            with self._lock:
                self.lent += 1
            try:
                yield
            finally:
                with self._lock:
                    self.lent -= 1


def queue_lender(group_now: Callable[[], Any], in_loop: Callable[[Callable[[], None]], Any]) -> Lender:
    """A lender for a queue group that counts its running events (Gradio's `current_concurrency`): while the
    wait lasts the group counts one fewer, so it starts the next event in line; then it counts it again.

    group_now() finds the group of the event running in the calling thread (None outside an event);
    in_loop(fn) runs fn where the queue itself changes that count (its event loop), so no update is lost."""

    @contextmanager
    def lend() -> Iterator[None]:
        group = group_now()
        if group is None:
            yield
            return
        in_loop(lambda: _count(group, -1))
        try:
            yield
        finally:
            in_loop(lambda: _count(group, 1))

    return lend


def _count(group: Any, change: int) -> None:
    group.current_concurrency += change


CPU = Slots()
