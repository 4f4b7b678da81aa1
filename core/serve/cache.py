"""A bounded, thread-safe LRU for things built once and shared between request threads (PNGs, views)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class DrawnCache:
    """An LRU bounded by count and by size (`size(item)`, bytes), safe to share between threads.

    Building happens outside the lock: two threads missing the same key each build their own and the
    second result simply replaces the first.
    """

    def __init__(self, max_items: int = 96, max_bytes: int = 192 * 2**20,
                 size: Callable[[Any], int] = lambda item: 1) -> None:
        self.max_items, self.max_bytes, self.size = max_items, max_bytes, size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: Hashable, draw: Callable[[], Any]) -> Any:
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return item
            self.misses += 1
        item = draw()
        self.put(key, item)
        return item

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
