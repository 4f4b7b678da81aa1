"""Training runs shared by a class: a finished run is cached, a run in progress is watched, not repeated.

A run is a generator of snapshots. The first caller trains it (in a worker process, core.proc.sandbox) and
publishes a copy of each snapshot; a caller asking for the same run meanwhile yields those copies
instead of training a second one; once it finishes, everyone gets it from the cache at once.

One run trains at a time, first come first served (TURNS); each visitor (its address, core.serve.clients)
may have one training waiting or running, and a cached run or a watched one never waits for a turn.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..config import ConfigError
from ..i18n import t
from ..proc.sandbox import run_in_child

CACHED_RUNS = 64  # finished runs kept (~50 KB each), least recently asked for dropped first
_CACHE: OrderedDict[object, object] = OrderedDict()  # key -> finished run
_LIVE: dict[object, _Live] = {}  # key -> run in progress, watched by later callers
_LOCK = threading.Lock()
TRAINING_NICE = 10  # a class's clicks go first when the cores are busy
STALE_S = 120.0  # a run that published nothing for this long was abandoned: its watchers start their own
MAX_WAITING = 8  # trainings that may wait for their turn; more are told to come back
TURN_WAIT_S = 600.0  # a turn that does not come in 10 minutes is given up


class Turns:
    """One training at a time, in order of arrival; a session holds at most one place in the line."""

    def __init__(self, max_waiting: int = MAX_WAITING) -> None:
        self.max_waiting = max_waiting
        self._cond = threading.Condition()
        self._line: deque[object] = deque()
        self._sessions: set[str] = set()

    @contextmanager
    def turn(self, session: str | None = None) -> Iterator[None]:
        """Wait for this caller's turn to train (ConfigError: a second place for a session, or a full line)."""
        ticket = object()
        with self._cond:
            if session is not None and session in self._sessions:
                raise ConfigError(t("You already have a training waiting or running; let it finish (or press Stop) "
                                    "before you start another."))
            if len(self._line) > self.max_waiting:
                raise ConfigError(t("{n} trainings are waiting already; try again in a minute.", n=len(self._line)))
            self._line.append(ticket)
            if session is not None:
                self._sessions.add(session)
            try:
                if not self._cond.wait_for(lambda: self._line[0] is ticket, timeout=TURN_WAIT_S):
                    raise ConfigError(t("The training line has not moved for 10 minutes; try again later."))
            except BaseException:
                self._leave(ticket, session)
                raise
        try:
            yield
        finally:
            with self._cond:
                self._leave(ticket, session)

    def _leave(self, ticket: object, session: str | None) -> None:
        self._line.remove(ticket)
        self._sessions.discard(session)
        self._cond.notify_all()

    @property
    def waiting(self) -> int:
        return len(self._line)


TURNS = Turns()


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


def cached_run(key: object, start: Callable[[], Iterator[Any]], session: str | None = None) -> Iterator[Any]:
    """A finished run from the cache; or the same run in progress, watched; or, in its turn, train it and cache it.

    session: who asks (the app passes the visitor's address); it may have one training waiting or running (ConfigError
    otherwise).
    """
    while True:
        hit, live = _lookup(key)
        if hit is None and live is None:
            with TURNS.turn(session):  # our turn to train; meanwhile someone may have trained it
                hit, live = _lookup(key)
                mine = hit is None and live is None
                if mine:
                    with _LOCK:
                        live = _LIVE[key] = _Live()
                    yield from _train(key, live, start)
                    return
        if hit is not None:
            yield hit
            return
        last = yield from _watch(live)
        if last is not None and last.done:
            return
        with _LOCK:  # the run we watched stopped before its end (its caller left): train it ourselves
            if _LIVE.get(key) is live:
                del _LIVE[key]


def peek(key: object) -> Any:
    """The finished run, or the latest snapshot of the run in training, or None: a look that starts or waits for
    nothing (a lesson's step shows how far the class's run got)."""
    hit, live = _lookup(key)
    if hit is not None or live is None:
        return hit
    with live.cond:
        return live.snapshot  # a copy the trainer published (None before its first snapshot)


def _lookup(key: object) -> tuple[Any, _Live | None]:
    """(finished run or None, run in progress or None)."""
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit, None
        return None, _LIVE.get(key)


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
    """fn(p, None, every) trained in a worker process (core.proc.sandbox), niced below the server's request threads,
    so they keep the interpreter and the cores; `stop` is checked here between snapshots and ends the worker."""
    runs = run_in_child(fn, p, None, every, nice=TRAINING_NICE, stream=True)
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
