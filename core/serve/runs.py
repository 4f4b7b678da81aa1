"""Training runs shared by a class: a finished run is cached, a run in progress is watched, not repeated.

A run is a generator of snapshots. The first caller trains it (in a worker process, core.sandbox) and
publishes a copy of each snapshot; a caller asking for the same run meanwhile yields those copies
instead of training a second one; once it finishes, everyone gets it from the cache at once.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import sandbox

CACHED_RUNS = 64  # finished runs kept (~50 KB each), least recently asked for dropped first
_CACHE: OrderedDict[object, object] = OrderedDict()  # key -> finished run
_LIVE: dict[object, _Live] = {}  # key -> run in progress, watched by later callers
_LOCK = threading.Lock()
TRAINING_NICE = 10  # a class's clicks go first when the cores are busy
STALE_S = 120.0  # a run that published nothing for this long was abandoned: its watchers start their own


@dataclass
class _Live:
    """A run in progress that later callers watch instead of training the same thing twice."""

    cond: threading.Condition = field(default_factory=threading.Condition)
    snapshot: Any = None  # a copy of the latest snapshot: the trainer keeps appending to its own
    version: int = 0
    ended: bool = False

    def publish(self, run: Any, ended: bool = False) -> None:
        with self.cond:
            self.snapshot, self.version, self.ended = copy.deepcopy(run), self.version + 1, ended
            self.cond.notify_all()

    def end(self) -> None:
        with self.cond:
            self.ended = True
            self.cond.notify_all()


def cached_run(key: object, start: Callable[[], Iterator[Any]]) -> Iterator[Any]:
    """A finished run from the cache; or the same run in progress, watched; or train it and cache it."""
    while True:
        with _LOCK:
            hit = _CACHE.get(key)
            if hit is not None:
                _CACHE.move_to_end(key)
            live = _LIVE.get(key) if hit is None else None
            mine = hit is None and live is None
            if mine:
                live = _LIVE[key] = _Live()
        if hit is not None:
            yield hit
            return
        if mine:
            yield from _train(key, live, start)
            return
        last = yield from _watch(live)
        if last is not None and last.done:
            return
        with _LOCK:  # the run we watched stopped before its end (its caller left): train it ourselves
            if _LIVE.get(key) is live:
                del _LIVE[key]


def _train(key: object, live: _Live, start: Callable[[], Iterator[Any]]) -> Iterator[Any]:
    """Run it, publishing each snapshot to watchers; cached (and watchers released) before the last yield."""
    try:
        for run in start():
            if run.done:
                with _LOCK:
                    _CACHE[key] = run
                    while len(_CACHE) > CACHED_RUNS:
                        _CACHE.popitem(last=False)
                    if _LIVE.get(key) is live:  # (not a newer run of the same key that took over)
                        del _LIVE[key]
            live.publish(run, ended=run.done)
            yield run
    finally:  # stopped, closed or failed: watchers take over
        with _LOCK:
            if _LIVE.get(key) is live:
                del _LIVE[key]
        live.end()


def apart(fn: Callable[..., Iterator[Any]], p: Any, stop: threading.Event | None, every: int) -> Iterator[Any]:
    """fn(p, None, every) trained in a worker process (core.sandbox), niced below the server's request threads,
    so they keep the interpreter and the cores; `stop` is checked here between snapshots and ends the worker."""
    runs = sandbox.stream(fn, p, None, every, nice=TRAINING_NICE)
    try:
        for run in runs:
            if stop is not None and stop.is_set() and not run.done:
                run.stopped = True
                yield run
                return
            yield run
    finally:
        runs.close()


def _watch(live: _Live) -> Iterator[Any]:
    """Yield another caller's snapshots as they come; returns the last one seen."""
    seen, last = 0, None
    while True:
        with live.cond:
            if not live.cond.wait_for(lambda seen=seen: live.version > seen or live.ended, timeout=STALE_S):
                live.ended = True  # nothing new for STALE_S: its caller is gone without closing it
            fresh = live.version > seen
            seen, last, ended = live.version, live.snapshot, live.ended
        if fresh and last is not None:
            yield last
        if ended:
            return last
