"""Where each press takes a presenter: a question before its view, the end screen after the last step, a link's step
that is not there (core/ui/lesson_moves.py), and the Lesson tab's pieces that say so (core/ui/lesson_screens.py)."""

from __future__ import annotations

import html
from dataclasses import dataclass

from core.i18n import speaking
from core.ui import lesson_screens
from core.ui.lesson_moves import END, At, ahead, arrive, linked, loads, moved


@dataclass(frozen=True)
class Step:
    title: str
    ask: str = ""
    notes: str = ""


@dataclass(frozen=True)
class Lesson:
    name: str
    title: str
    steps: tuple


LESSON = Lesson("demo", "A demo", (Step("one"), Step("two", ask="Which key wins?"), Step("three")))


def test_a_question_shows_first_and_the_next_press_reveals_its_view_then_moves_on():
    at = moved(LESSON, arrive(LESSON, 0), +1)
    assert at == At("demo", 1, asking=True)
    at = moved(LESSON, at, +1)
    assert at == At("demo", 1, asking=False)  # the same step, its view and check revealed
    assert moved(LESSON, at, +1) == At("demo", 2)


def test_what_is_built_ahead_is_where_the_next_press_leads_and_past_a_question_the_step_after_it():
    assert ahead(LESSON, arrive(LESSON, 0)) == [At("demo", 1, asking=True)]
    assert ahead(LESSON, At("demo", 1, asking=True)) == [At("demo", 1), At("demo", 2)]
    assert ahead(LESSON, At("demo", 2)) == [At("demo", 3)]  # (the end screen: Screens.ahead skips it)


def test_back_shows_the_step_before_whole_and_a_link_opens_a_question_first():
    assert moved(LESSON, At("demo", 2), -1) == At("demo", 1, asking=False)
    assert moved(LESSON, At("demo", 1, asking=True), -1) == At("demo", 0)
    assert moved(LESSON, At("demo", 0), -1) == At("demo", 0)
    assert arrive(LESSON, 1) == At("demo", 1, asking=True)


def test_the_last_step_leads_to_the_end_screen_and_back():
    end = moved(LESSON, At("demo", 2), +1)
    assert end == At("demo", 3) and moved(LESSON, end, +1) == end  # the end screen stays
    assert moved(LESSON, end, -1) == At("demo", 2)


def test_the_position_round_trips_and_garbage_is_no_lesson():
    at = At("demo", 1, True)
    assert loads(at.dumps()) == at
    assert loads('["demo", 2]') == At("demo", 2)  # (the old two-part position)
    assert loads("not json") == At("", 0) and loads(None) == At("", 0)


def test_a_link_names_a_step_the_lesson_has_or_opens_the_first_and_says_so():
    assert linked("2", 3) == (1, True) and linked("end", 3) == (3, True) and linked(END, 3) == (3, True)
    for wrong in ("0", "4", "-1", "two", ""):
        assert linked(wrong, 3) == (0, False), wrong
    with speaking("en"):
        line = lesson_screens.no_step("demo", "9", 3)
    assert line == "The lesson 'demo' has no step '9'; it has steps 1 to 3, so it opens on step 1."
    with speaking("zh-CN"):
        assert lesson_screens.no_step("demo", "9", 3) != line  # said in the page's language


def test_the_end_screen_and_the_outline_list_every_step_as_a_jump_escaped():
    lesson = Lesson("demo", "<b>A</b>", (Step("one <i>"), Step("two")))
    with speaking("en"):
        end, outline = lesson_screens.end_html(lesson), lesson_screens.outline_html(lesson, 1)
    for page in (end, outline):
        assert page.count('class="al-jump"') == 2 and "<i>" not in page and "<b>" not in page
        assert html.escape("one <i>") in page
    assert 'data-k="1" aria-current="step"' in outline and "aria-current" not in end


def test_speaker_notes_and_a_question_are_text_never_markup():
    notes = lesson_screens.notes_html("first <script>\nsecond")
    assert notes.count("<p>") == 2 and "<script>" not in notes
    with speaking("en"):
        assert "No notes for this step." in lesson_screens.notes_html("")
        ask = lesson_screens.ask_html("T", "What <wins>?")
    assert "&lt;wins&gt;" in ask and "Next press: the answer." in ask
