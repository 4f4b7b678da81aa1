"""The live class's rules, on the classroom itself: codes nobody guesses, a teacher's secret, caps, expiry, answers."""

from __future__ import annotations

import pytest

from core.i18n import speaking, t
from core.serve import classroom
from core.serve.classroom import Classroom, Refused


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def room():
    return Classroom(clock=Clock())


def refused(key: str, fn, *args, **kwargs) -> Refused:
    with pytest.raises(Refused) as caught:
        fn(*args, **kwargs)
    assert caught.value.key == key, caught.value.key
    return caught.value


def test_a_code_is_six_characters_of_a_large_unambiguous_alphabet_and_each_class_has_its_own(room):
    codes = {room.start("chapter", 1, f"10.0.0.{i}")[0].code for i in range(classroom.MAX_CLASSES)}
    assert len(codes) == classroom.MAX_CLASSES
    assert all(len(c) == classroom.CODE_LENGTH >= 6 and set(c) <= set(classroom.ALPHABET) for c in codes)
    assert len(classroom.ALPHABET) >= 30 and not set("0O1IL") & set(classroom.ALPHABET)


def test_a_code_is_found_as_typed_in_any_case_with_spaces_or_a_dash(room):
    klass, _ = room.start("chapter", 1, "10.0.0.1")
    typed = f" {klass.code[:3].lower()}-{klass.code[3:]} "
    assert room.find(typed, "10.0.0.2") is klass


def test_only_the_secret_moves_reveals_or_ends_the_class(room):
    klass, secret = room.start("chapter", 1, "10.0.0.1")
    for wrong in ("", "x" * 32, None, 12):
        refused("teacher", room.move, klass.code, wrong, "chapter", 2)
        refused("teacher", room.reveal, klass.code, wrong)
        refused("teacher", room.end, klass.code, wrong)
    assert klass.step == 1 and not klass.revealed and not klass.ended
    assert room.move(klass.code, secret, "chapter", 3).step == 3
    room.end(klass.code, secret)
    assert klass.ended == "ended"
    refused("none", room.find, klass.code, "10.0.0.2")


def test_caps_are_refused_in_one_sentence(room, monkeypatch):
    monkeypatch.setattr(classroom, "MAX_FOLLOWERS", 3)
    monkeypatch.setattr(classroom, "MAX_STREAMS", 5)
    for _ in range(classroom.PER_ADDRESS):
        room.start("chapter", 1, "10.0.0.1")
    refused("yours", room.start, "chapter", 1, "10.0.0.1")
    for i in range(classroom.MAX_CLASSES - classroom.PER_ADDRESS):
        room.start("chapter", 1, f"10.1.0.{i}")
    full = refused("classes", room.start, "chapter", 1, "10.2.0.1")
    assert full.status == 503
    code = next(iter(room.classes))
    for i in range(3):
        room.join(code, f"10.3.0.{i}", f"page-{i:04d}")
    refused("followers", room.join, code, "10.3.0.9", "page-0009")
    other = list(room.classes)[1]
    room.join(other, "10.4.0.1", "page-1000")
    room.join(other, "10.4.0.2", "page-1001")
    refused("streams", room.join, other, "10.4.0.3", "page-1002")
    for key in ("classes", "followers", "streams", "yours"):
        with speaking("zh-CN"):
            sentence = t(classroom.SENTENCES[key], most=3)
        assert sentence.count("。") <= 1 and "3" in sentence and sentence != t(classroom.SENTENCES[key], most=3)


def test_guesses_are_limited_per_address_and_the_limit_passes(room):
    klass, _ = room.start("chapter", 1, "10.0.0.1")
    for i in range(classroom.GUESSES):
        refused("none", room.find, f"ZZZZ{i:02d}", "10.9.9.9")
    limited = refused("guesses", room.find, klass.code, "10.9.9.9")  # even a real code: no enumeration past it
    assert limited.status == 429
    assert room.find(klass.code, "10.9.9.8") is klass  # another address is not held back
    room.clock.now += classroom.GUESS_WINDOW + 1
    assert room.find(klass.code, "10.9.9.9") is klass


def test_a_class_without_a_step_for_three_hours_ends_and_its_pages_hear_it(room):
    heard = []
    room.changed = lambda klass, now: heard.append((klass.version, klass.ended, now))
    klass, secret = room.start("chapter", 1, "10.0.0.1")
    room.clock.now += classroom.IDLE_SECONDS - 10
    room.move(klass.code, secret, "chapter", 2)  # a step: another three hours
    room.clock.now += classroom.IDLE_SECONDS - 10
    room.sweep()
    assert not klass.ended
    room.clock.now += 20
    room.sweep()
    assert klass.ended == "expired" and heard[-1][1:] == ("expired", True)
    refused("none", room.find, klass.code, "10.0.0.2")


def test_followers_are_counted_not_named(room):
    klass, _ = room.start("chapter", 1, "10.0.0.1")
    a = room.join(klass.code, "10.0.0.2", "page-aaaa")
    room.join(klass.code, "10.0.0.2", "page-bbbb")
    room.join(klass.code, "10.0.0.1", "", follower=False)  # the teacher's own stream is not a follower
    assert a.public()["followers"] == 2
    room.leave(a, "page-aaaa")
    assert klass.public()["followers"] == 1 and room.streams == 2
    assert set(klass.public()) == {"code", "lesson", "step", "followers", "ask", "answered", "revealed", "counts",
                                   "ended", "version"}


def test_answers_are_counts_one_per_following_page_hidden_until_revealed_and_cleared_by_a_step(room):
    klass, secret = room.start("chapter", 1, "10.0.0.1")
    room.move(klass.code, secret, "chapter", 4, {"kind": "options", "n": 3})
    for page in ("page-aaaa", "page-bbbb", "page-cccc"):
        room.join(klass.code, "10.0.0.2", page)
    room.answer(klass.code, "10.0.0.2", "page-aaaa", 4, 2)
    room.answer(klass.code, "10.0.0.2", "page-aaaa", 4, 0)  # the same page again: still one answer
    room.answer(klass.code, "10.0.0.2", "page-bbbb", 4, 2)
    refused("request", room.answer, klass.code, "10.0.0.2", "page-zzzz", 4, 1)  # not following: no answer
    refused("answer", room.answer, klass.code, "10.0.0.2", "page-cccc", 4, 3)
    refused("not_asked", room.answer, klass.code, "10.0.0.2", "page-cccc", 3, 1)  # an old step
    assert klass.public()["answered"] == 2 and klass.public()["counts"] is None
    room.reveal(klass.code, secret)
    assert klass.public()["counts"] == {"2": 2}
    room.move(klass.code, secret, "chapter", 5, {"kind": "number"})
    assert klass.public()["answered"] == 0 and not klass.public()["revealed"]
    room.answer(klass.code, "10.0.0.2", "page-aaaa", 5, 3.14159)
    room.answer(klass.code, "10.0.0.2", "page-bbbb", 5, 3.1416)
    room.reveal(klass.code, secret)
    assert klass.public()["counts"] == {"3.14": 2}
    for bad in (float("nan"), True, "3", 1e300):
        refused("answer", room.answer, klass.code, "10.0.0.2", "page-cccc", 5, bad)
