"""Where a presenter is in a lesson and where each press takes them: the pure functions live in
core/serve/lesson_moves.py (a UI module holds no arithmetic); re-exported here for the Lesson tab's modules."""

from core.serve.lesson_moves import END, At, ahead, arrive, asks, jumped, linked, loads, moved, number

__all__ = ["END", "At", "ahead", "arrive", "asks", "jumped", "linked", "loads", "moved", "number"]
