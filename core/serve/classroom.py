"""The live classes: a short code students type or scan, the teacher's step, and the class's answer counts, in memory.

A class is started by a page that then holds its secret (only that page may move it, reveal or end it); every page
opened on its code follows its step. Nothing about a student is kept: a follower is an open connection (counted, not
named), an answer only adds one to a count (the random id of the page that answered is kept until the step changes,
so a page answers once, and never beside what it answered). A class ends when its teacher ends it or after
IDLE_SECONDS without a step. Everything is bounded: MAX_CLASSES classes, MAX_FOLLOWERS per class, MAX_STREAMS open
connections in all; a code cannot be found by trying (CODE_LENGTH characters of ALPHABET, ~8.9e8 codes, and
GUESSES wrong codes per address per GUESS_WINDOW, after which that address may look up no code until it passes).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..i18n import mark

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # 31 characters none of which reads as another (no 0/O, 1/I/L)
CODE_LENGTH = 6  # 31**6 ~ 8.9e8 codes
MAX_CLASSES = 20  # classes at once on one server
PER_ADDRESS = 3  # classes one address may run at once (a school's teachers behind one address: three rooms)
MAX_FOLLOWERS = 500  # pages following one class
MAX_STREAMS = 600  # open class connections in all (uvicorn holds 800 connections: the rest for the lab itself)
IDLE_SECONDS = 3 * 3600  # a class without a step for this long ends
GUESSES = 30  # codes that name no class, per address per window; past it the address looks up no code
GUESS_WINDOW = 600.0  # seconds
MAX_ADDRESSES = 10_000  # addresses whose wrong guesses are remembered (the oldest forgotten first)
MAX_LESSON_CHARS = 80  # a lesson's name as the class carries it (the page checks it names a lesson it has)
MAX_STEPS = 10_000  # a step number past any lesson's length
MAX_CHOICES = 64  # answers an ask step may offer (tokens of its sentence, or its options)
NUMBER_DIGITS = 3  # a number answer is counted rounded to 3 significant digits

# What a person is told, in their page's language (core.serve.limits.said / core.i18n.t).
SENTENCES = {
    "classes": mark("The lab is running {most} classes already, the most it holds at once; end one, or try again "
                    "later."),
    "yours": mark("This address runs {most} classes already, the most one address may; end one first."),
    "followers": mark("This class has {most} pages following it already, the most one class takes; the teacher can "
                      "start a second class for the others."),
    "streams": mark("The lab holds {most} class connections already, the most it keeps open; try again in a minute."),
    "none": mark("There is no class with the code {code}: check the code; the class may have ended."),
    "guesses": mark("Too many codes that name no class came from this address; wait {minutes} minutes, then try "
                    "again."),
    "teacher": mark("Only the page that started this class can move it, reveal its answers or end it."),
    "ended": mark("The teacher ended the class."),
    "expired": mark("The class ended: it had no step for 3 hours."),
    "answer": mark("This answer is not one of the step's choices; choose one of them."),
    "not_asked": mark("The class's step asks no question now, so there is nothing to answer."),
    "request": mark("This request is not one a class takes; reload the page."),
}


class Refused(Exception):
    """A request the class cannot take: its sentence (a msgid and its fields) and the HTTP status it answers with."""

    def __init__(self, key: str, status: int, **fields: Any) -> None:
        super().__init__(SENTENCES[key])
        self.key, self.status, self.fields = key, status, fields


@dataclass
class Ask:
    """What an ask step takes, as the teacher's page declares it: 'tokens' or 'options' (an index below n), or
    'number'."""

    kind: str = ""  # "" = the step asks nothing
    n: int = 0


@dataclass
class Class:
    code: str
    digest: bytes  # sha256 of the teacher's secret
    owner: str  # the teacher's address (PER_ADDRESS)
    lesson: str
    step: int  # from 1, as ?step=N and #lesson's data-step
    moved: float  # clock time of the last step
    ask: Ask = field(default_factory=Ask)
    revealed: bool = False
    counts: Counter = field(default_factory=Counter)  # answer -> how many (an index as text, or a number as text)
    answered: set = field(default_factory=set)  # ids of the pages that answered this step (forgotten at the next)
    present: Counter = field(default_factory=Counter)  # random ids of the pages following now (only they may answer)
    followers: int = 0  # open follower connections
    ended: str = ""  # "" while it runs, else "ended" or "expired"
    version: int = 0  # changes whenever what a page is told changes

    def public(self) -> dict[str, Any]:
        """What every page of the class is told (the answers' distribution only once revealed)."""
        return {"code": self.code, "lesson": self.lesson, "step": self.step, "followers": self.followers,
                "ask": self.ask.kind, "answered": sum(self.counts.values()), "revealed": self.revealed,
                "counts": dict(self.counts) if self.revealed else None, "ended": self.ended,
                "version": self.version}


class Classroom:
    """Every class on this server; thread-safe. `changed(klass, now)` is called after each change a page should
    hear (now=True for a step, a reveal or an end: at once; False for a count: it may wait a moment)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 changed: Callable[[Class, bool], None] | None = None) -> None:
        self.clock, self.changed = clock, changed or (lambda klass, now: None)
        self.classes: dict[str, Class] = {}
        self.streams = 0
        self._guesses: dict[str, list[float]] = {}  # address -> times of its wrong codes in the window
        self.lock = threading.RLock()

    # --- the teacher's page (its secret) ---

    def start(self, lesson: Any, step: Any, address: str) -> tuple[Class, str]:
        """A new class at that lesson and step, and the secret its page keeps."""
        with self.lock:
            self.sweep()
            lesson, step = _lesson(lesson), _step(step)
            if len(self.classes) >= MAX_CLASSES:
                raise Refused("classes", 503, most=MAX_CLASSES)
            if sum(k.owner == address for k in self.classes.values()) >= PER_ADDRESS:
                raise Refused("yours", 429, most=PER_ADDRESS)
            code = self._new_code()
            secret = secrets.token_urlsafe(24)
            klass = Class(code, _digest(secret), address, lesson, step, self.clock())
            self.classes[code] = klass
            return klass, secret

    def move(self, code: Any, secret: Any, lesson: Any, step: Any, ask: Any = None) -> Class:
        """The teacher's page shows another step (or declares the step's question): every follower goes there."""
        with self.lock:
            klass = self._teacher(code, secret)
            lesson, step, asked = _lesson(lesson), _step(step), _ask(ask)
            if (lesson, step) != (klass.lesson, klass.step) or asked != klass.ask:
                klass.counts.clear()
                klass.answered.clear()
                klass.revealed = False
            klass.lesson, klass.step, klass.ask, klass.moved = lesson, step, asked, self.clock()
            self._bump(klass, True)
            return klass

    def reveal(self, code: Any, secret: Any, shown: bool = True) -> Class:
        with self.lock:
            klass = self._teacher(code, secret)
            klass.revealed = bool(shown)
            self._bump(klass, True)
            return klass

    def end(self, code: Any, secret: Any) -> Class:
        with self.lock:
            klass = self._teacher(code, secret)
            self._close(klass, "ended")
            return klass

    # --- every page ---

    def find(self, code: Any, address: str) -> Class:
        """The class of that code; a code that names none counts against the address's guesses."""
        with self.lock:
            self.sweep()
            if self._guessing(address):
                raise Refused("guesses", 429, minutes=math.ceil(GUESS_WINDOW / 60))
            klass = self.classes.get(_code(code))
            if klass is None:
                self._guessed(address)
                raise Refused("none", 404, code=str(code)[:CODE_LENGTH + 2])
            return klass

    def join(self, code: Any, address: str, page: Any = "", follower: bool = True) -> Class:
        """An open connection to the class (a follower's counted, by its page's random id); leave() when it closes."""
        with self.lock:
            klass = self.find(code, address)
            if self.streams >= MAX_STREAMS:
                raise Refused("streams", 503, most=MAX_STREAMS)
            if follower and klass.followers >= MAX_FOLLOWERS:
                raise Refused("followers", 503, most=MAX_FOLLOWERS)
            self.streams += 1
            if follower:
                klass.followers += 1
                if isinstance(page, str) and 8 <= len(page) <= 64:
                    klass.present[page] += 1
                self._bump(klass, False)
            return klass

    def leave(self, klass: Class, page: Any = "", follower: bool = True) -> None:
        with self.lock:
            self.streams -= 1
            if follower:
                klass.followers -= 1
                klass.present[page] -= 1
                if klass.present[page] <= 0:
                    del klass.present[page]
                if not klass.ended:
                    self._bump(klass, False)

    def answer(self, code: Any, address: str, page: Any, step: Any, value: Any) -> Class:
        """A page's answer to the class's current ask step: one more in its count (a page answers a step once; a
        later answer from it is taken as the same)."""
        with self.lock:
            klass = self.find(code, address)
            if not klass.ask.kind or _step(step) != klass.step:
                raise Refused("not_asked", 409)
            key = _answer(klass.ask, value)
            if page not in klass.present:  # a page answers over the connection it follows by
                raise Refused("request", 400)
            if page not in klass.answered:
                klass.answered.add(page)
                klass.counts[key] += 1
                self._bump(klass, False)
            return klass

    def sweep(self) -> None:
        """End the classes without a step for IDLE_SECONDS."""
        with self.lock:
            now = self.clock()
            for klass in [k for k in self.classes.values() if now - k.moved > IDLE_SECONDS]:
                self._close(klass, "expired")

    # --- inside ---

    def _teacher(self, code: Any, secret: Any) -> Class:
        klass = self.classes.get(_code(code))
        if klass is None or not isinstance(secret, str) or not hmac.compare_digest(_digest(secret), klass.digest):
            raise Refused("teacher", 403)
        return klass

    def _close(self, klass: Class, why: str) -> None:
        self.classes.pop(klass.code, None)
        klass.ended = why
        klass.counts.clear()
        klass.answered.clear()
        klass.present.clear()
        self._bump(klass, True)

    def _bump(self, klass: Class, now: bool) -> None:
        klass.version += 1
        self.changed(klass, now)

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.classes:
                return code

    def _guessing(self, address: str) -> bool:
        times = self._guesses.get(address)
        if not times:
            return False
        cut = self.clock() - GUESS_WINDOW
        times[:] = [x for x in times if x > cut]
        if not times:
            del self._guesses[address]
        return len(times) >= GUESSES

    def _guessed(self, address: str) -> None:
        if address not in self._guesses and len(self._guesses) >= MAX_ADDRESSES:
            self._guesses.pop(next(iter(self._guesses)))
        self._guesses.setdefault(address, []).append(self.clock())


def _digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).digest()


def _code(code: Any) -> str:
    """A code as typed: case and spaces or dashes do not matter."""
    return "".join(str(code).split()).replace("-", "").upper()[:16] if isinstance(code, str) else ""


def _lesson(lesson: Any) -> str:
    if not isinstance(lesson, str) or not lesson or len(lesson) > MAX_LESSON_CHARS:
        raise Refused("request", 400)
    return lesson


def _step(step: Any) -> int:
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= MAX_STEPS:
        raise Refused("request", 400)
    return step


def _ask(ask: Any) -> Ask:
    """The teacher's page's declaration of the step's question: None, or {"kind": ..., "n": ...}."""
    if not ask:
        return Ask()
    if not isinstance(ask, dict) or ask.get("kind") not in ("tokens", "options", "number"):
        raise Refused("request", 400)
    n = ask.get("n", 0)
    if ask["kind"] != "number" and (isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_CHOICES):
        raise Refused("request", 400)
    return Ask(ask["kind"], n if ask["kind"] != "number" else 0)


def _answer(ask: Ask, value: Any) -> str:
    """An answer as the count it adds to: a choice's index, or a number rounded to NUMBER_DIGITS significant digits."""
    if ask.kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or abs(value) > 1e12:
            raise Refused("answer", 400)
        return f"{float(value):.{NUMBER_DIGITS}g}"
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < ask.n:
        raise Refused("answer", 400)
    return str(value)
