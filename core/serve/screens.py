"""A lesson step's screen built once for every page that shows it: the teacher's press and each follower's page ask
for the same step at the same moment, and a class of 60 costs one build, not 60. The step after the one shown is
built meanwhile, so the next press (and the class's 60 pages) paint from memory."""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Callable
from typing import Any

from ..i18n import current
from .cache import DrawnCache
from .exports import remember

log = logging.getLogger("attention_lab.lessons")

AHEAD_AFTER = 1.0  # s after a step is shown before the next is built: 60 pages' requests first, then the next step

VOLATILE = ("training", "real-chapter", "sink")  # views that change by themselves (a run training, a model loading):
# shared while one build is under way, never kept, never built ahead (a run or a model download waits for a press)


class Screens:
    """One app's screens, (lesson, language, step, question shown) -> what its event returns."""

    def __init__(self, max_items: int = 256) -> None:
        self.cache = DrawnCache(max_items=max_items)
        self._ahead: set[tuple] = set()  # keys being built ahead (at most a few: a fast clicker skips the rest)
        self._lock = threading.Lock()

    def get(self, lesson: Any, k: int, asking: bool, build: Callable[[], tuple]) -> tuple:
        """build()'s values, shared; a dict in them copied per caller (Gradio pops an update's value as it sends
        it)."""
        values = self.cache.get(self._key(lesson, k, asking), build, keep=not self._volatile(lesson, k))
        for v in values:  # (a view kept here outlives the exports' memory of it: its PNG and CSV stay downloadable)
            if isinstance(v, dict) and isinstance(v.get("stamp"), str):
                remember(v)
        return tuple(dict(v) if isinstance(v, dict) else v for v in values)

    def ahead(self, lesson: Any, places: list[tuple[int, bool, Callable[[], tuple]]]) -> threading.Thread | None:
        """Build those screens (k, asking, build), one after the other in one background thread in this request's
        language, skipping what is kept, under way, volatile or past the lesson's end; the thread, or None."""
        with self._lock:
            todo = [(self._key(lesson, k, asking), build) for k, asking, build in places
                    if k < len(lesson.steps) and not self._volatile(lesson, k)]
            todo = [(key, build) for key, build in todo if key not in self.cache and key not in self._ahead]
            if not todo or len(self._ahead) >= 4:  # (a fast clicker: the press builds it)
                return None
            self._ahead.update(key for key, _ in todo)
        context = contextvars.copy_context()

        def work() -> None:
            for key, build in todo:
                try:
                    context.run(self.cache.get, key, build)
                except Exception:  # a state its view refuses: the press says it in one sentence; nothing to do here
                    log.debug("building a step ahead failed", exc_info=True)
                finally:
                    with self._lock:
                        self._ahead.discard(key)

        thread = threading.Timer(AHEAD_AFTER, work)  # (after the class's own pages asked for the step shown)
        thread.name, thread.daemon = "attention-lab-ahead", True
        thread.start()
        return thread

    @staticmethod
    def _key(lesson: Any, k: int, asking: bool) -> tuple:
        return (lesson.name, lesson.language, current(), k, asking)

    @staticmethod
    def _volatile(lesson: Any, k: int) -> bool:
        return k < len(lesson.steps) and lesson.steps[k].view in VOLATILE
