"""A bounded, thread-safe LRU for things built once and shared between request threads (PNGs, views)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class _Flight:
    """One build under way: the threads that want the same key wait for it."""

    def __init__(self) -> None:
        self.done, self.item, self.ok = threading.Event(), None, False


class DrawnCache:
    """An LRU bounded by count and by size (`size(item)`, bytes), safe to share between threads.

    Building happens outside the lock, once per key at a time: a thread missing a key another thread is building
    waits for that build (60 followers asking for the step just moved to cost one build, not 60). A build that
    raises is not kept; each waiter then builds for itself, so the error reaches every caller.
    """

    def __init__(self, max_items: int = 96, max_bytes: int = 192 * 2**20,
                 size: Callable[[Any], int] = lambda item: 1) -> None:
        self.max_items, self.max_bytes, self.size = max_items, max_bytes, size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[Hashable, _Flight] = {}  # key -> its build under way
        self.hits = self.misses = 0

    def get(self, key: Hashable, draw: Callable[[], Any], keep: bool = True) -> Any:
        """The item under key, built by draw() if missing; keep=False shares a build under way but keeps nothing
        (a view that changes by itself, such as a run still training)."""
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return item
            flight = self._building.get(key)
            mine = flight is None
            if mine:
                self.misses += 1
                flight = self._building[key] = _Flight()
        if not mine:  # another thread builds it: its result, or (its build raised) our own build
            flight.done.wait()
            return flight.item if flight.ok else draw()
        try:
            flight.item, flight.ok = draw(), True
            if keep:
                self.put(key, flight.item)
            return flight.item
        finally:
            with self._lock:
                self._building.pop(key, None)
            flight.done.set()

    def put(self, key: Hashable, item: Any) -> None:
        with self._lock:
            self._items[key] = item
            self._items.move_to_end(key)
            while len(self._items) > 1 and (len(self._items) > self.max_items or self.nbytes > self.max_bytes):
                self._items.popitem(last=False)

    def peek(self, key: Hashable) -> Any:
        """The item under key (made most recent), or None."""
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items

    @property
    def nbytes(self) -> int:
        return sum(self.size(item) for item in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.misses = 0


class Same:
    """A registry (unhashable) as a cache key, by identity: results kept per app."""

    def __init__(self, registry: Any) -> None:
        self.registry = registry

    def __hash__(self) -> int:
        return id(self.registry)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.registry is self.registry
