"""Lessons are files: the built-ins load in both languages, a mistake is one sentence naming its file and line and
costs only its own file, a teacher's folder and a plugin add lessons, and `attention-lab lesson check` says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.cli import main
from core.lab import lesson_format as fmt
from core.lab import lesson_shelf
from core.registry import load_registry

ROOT = Path(__file__).resolve().parents[1]
GOOD = """---
lesson: my-lesson
title: My lesson
language: en
---
## The mask
view: heatmaps
sentence: a b c d
controls: causal

Turn the mask off.
"""


def broken(line: str) -> str:
    """GOOD with its sentence line (line 8) replaced."""
    return GOOD.replace("sentence: a b c d", line)


@pytest.fixture(scope="module")
def registry():
    return load_registry(entry_points=False)


def test_the_three_built_in_lessons_load_in_english_and_chinese_with_the_same_steps(registry):
    from core.serve import lessons

    shelf = lessons.load(registry)
    assert shelf.errors == []
    for name in ("chapter", "v1-v2", "by-hand"):
        en, zh = shelf.lessons[name]["en"], shelf.lessons[name]["zh-CN"]
        assert len(en.steps) >= 8
        assert [(s.view, s.state, s.controls) for s in en.steps] == [(s.view, s.state, s.controls) for s in zh.steps]
        assert [claims(s) for s in en.steps] == [claims(s) for s in zh.steps]  # the same claims, checked
        assert [(bool(s.ask), s.answers[0] in ("tokens", "number"), len(s.answers), bool(s.notes)) for s in en.steps] \
            == [(bool(s.ask), s.answers[0] in ("tokens", "number"), len(s.answers), bool(s.notes)) for s in zh.steps]
        assert all(s.text for s in zh.steps)


def claims(step):
    """A step's expectations without their lines (which differ between a lesson's files)."""
    return [(e.measure, e.op, e.value, e.tokens, e.head, e.part) for e in step.expect]


@pytest.mark.parametrize(("line", "words"), [
    ("view: heatmap", "view 'heatmap' is not known; did you mean 'heatmaps'?"),
    ("causal: maybe", "causal is true or false, not 'maybe'"),
    ("variant: no-such-variant", "variant 'no-such-variant' is not registered"),
    ("heads: 9", "heads is a whole number from 1 to 8, not 9"),
    ("card: softmax-dim", "view heatmaps does not read 'card'"),
    ("colour: red", "'colour' is not a state key"),
])
def test_a_mistake_is_one_sentence_naming_the_file_and_its_line(registry, tmp_path, line, words):
    path = tmp_path / "broken.md"
    path.write_text(broken(line), encoding="utf-8")
    with pytest.raises(fmt.LessonError) as caught:
        fmt.read(path, set(registry.variants))
    sentence = str(caught.value)
    assert sentence.startswith("broken.md line 8: ") and words in sentence and "\n" not in sentence, sentence


def test_the_line_named_is_the_line_with_the_mistake(tmp_path):
    path = tmp_path / "l.md"
    path.write_text(GOOD.replace("controls: causal", "controls: causal, stage"), encoding="utf-8")
    with pytest.raises(fmt.LessonError, match=r"^l\.md line 9: view heatmaps offers the controls causal, scaled, "
                                              r"sentence, not 'stage'$"):
        fmt.read(path)
    path.write_text(GOOD.replace("view: heatmaps", "view: trained\nrow: -1"), encoding="utf-8")
    with pytest.raises(fmt.LessonError, match=r"^l\.md line 8: row is a whole number from 0 to 63, not -1$"):
        fmt.read(path)


def test_a_broken_lesson_costs_only_itself_and_a_teachers_folder_adds_lessons(registry, tmp_path, monkeypatch):
    from core.serve import lessons

    (tmp_path / "mine.md").write_text(GOOD, encoding="utf-8")
    (tmp_path / "wrong.md").write_text(broken("variant: flash"), encoding="utf-8")
    monkeypatch.setenv(lessons.ENV, str(tmp_path))
    shelf = lessons.load(registry)
    assert {"chapter", "v1-v2", "by-hand", "my-lesson"} <= set(shelf.names())
    assert shelf.get("my-lesson").source == lessons.ENV
    assert len(shelf.errors) == 1 and str(shelf.errors[0]).startswith("wrong.md line 8: variant 'flash' is not registered")


def test_a_folder_that_is_not_there_is_said_and_the_built_ins_still_load(registry, tmp_path, monkeypatch):
    from core.serve import lessons

    monkeypatch.setenv(lessons.ENV, str(tmp_path / "nowhere"))
    shelf = lessons.load(registry)
    assert "chapter" in shelf.names() and len(shelf.errors) == 1 and "no such folder" in str(shelf.errors[0])


def test_two_lessons_with_one_name_keep_the_first_and_say_so(tmp_path):
    (tmp_path / "a.md").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.md").write_text(GOOD, encoding="utf-8")
    shelf = lesson_shelf.shelf([(tmp_path, "test")])
    assert Path(shelf.get("my-lesson").path).name == "a.md"
    assert [str(e) for e in shelf.errors] == ["b.md line 2: lesson 'my-lesson' (en) is already loaded from a.md; rename it"]


def test_a_lessons_text_never_carries_html():
    from core.render.lesson_html import step_html

    text = step_html("T", '<img src=x onerror="alert(1)"> a & b, and `x < y` in code, \\`<b>x</b>\\`')
    assert "<img" not in text and "&lt;img" in text and "a &amp; b" in text and "<code>x &lt; y</code>" in text
    assert "<b>" not in text and "&lt;b&gt;x&lt;/b&gt;" in text  # a backslash-escaped backtick fools nothing


def test_the_formats_lists_are_the_labs_own():
    from core.lab.ablate import MODES
    from core.lab.failure_modes import KEYS
    from core.transfer import MISTAKES
    from core.ui.attention_tab import D_MODELS
    from core.ui.step_tab import STAGES

    assert (fmt.CARDS, fmt.MISTAKES, fmt.MODES, fmt.STAGES, list(fmt.D_MODELS)) == (
        KEYS, MISTAKES, MODES, STAGES, D_MODELS)


def test_lesson_check_exits_0_for_a_good_file_and_1_with_the_sentence_for_a_broken_one(tmp_path, capsys):
    good, bad = tmp_path / "good.md", tmp_path / "bad.md"
    good.write_text(GOOD, encoding="utf-8")
    bad.write_text(broken("scaled: perhaps"), encoding="utf-8")
    assert main(["lesson", "check", str(good), "--no-entry-points"]) == 0
    assert "good.md: lesson 'my-lesson' (en), 1 steps, ok" in capsys.readouterr().out
    assert main(["lesson", "check", str(bad), "--no-entry-points"]) == 1
    assert capsys.readouterr().err.strip() == "bad.md line 8: scaled is true or false, not 'perhaps'"
    assert main(["lesson", "check", str(lesson_shelf.BUILT_IN), "--no-entry-points"]) == 0


def test_the_chapters_first_step_is_it_finding_the_damages_under_the_trained_weights(registry):
    from core.serve import lessons
    from core.serve.plugins import AppLab

    step = lessons.load(registry).get("chapter", "zh-CN").steps[0]
    shown = lessons.show(AppLab(registry), step.view, lessons.state(step))
    assert shown.view["highlight"] == 4 and shown.view["rows"][4] == "它"
    query, rest = shown.check.split(" → ")
    word, weight = rest.split(": ")
    assert (query, word) == ("它", "违约金") and float(weight) >= 0.9


def test_every_built_in_step_shows_a_view_and_a_check(registry):
    from core.serve import lessons
    from core.serve.plugins import AppLab

    lab, shelf = AppLab(registry), lessons.load(registry)
    for name in ("chapter", "v1-v2", "by-hand"):
        for i, step in enumerate(shelf.get(name).steps):
            shown = lessons.show(lab, step.view, lessons.state(step))
            assert shown.check, (name, i)
            assert shown.view is not None or step.view == "real-chapter", (name, i)  # (no Chinese-capable model
            # here: it says how to name one)


def test_hook_register_lessons(tmp_path, monkeypatch):
    """A plugin's register_lessons(register) adds its lessons; a hook that raises costs only that plugin."""
    from core import hookimpl
    from core.serve import lessons

    (tmp_path / "mine.md").write_text(GOOD, encoding="utf-8")

    class Ships:
        @hookimpl
        def register_lessons(self, register):
            register(str(tmp_path))

    class Raises:
        @hookimpl
        def register_lessons(self, register):
            raise RuntimeError("no lessons today")

    registry = load_registry(entry_points=False, plugins=[Ships(), Raises()])
    assert registry.lessons == [("Ships", str(tmp_path))]
    assert [e.plugin for e in registry.errors] == ["Raises"] and "no lessons today" in str(registry.errors[0])
    shelf = lessons.load(registry)
    assert shelf.get("my-lesson").source == "plugin Ships" and "chapter" in shelf.names()


def test_the_alibi_example_ships_a_lesson_about_its_bias(monkeypatch):
    import importlib.util

    from core.serve import lessons

    init = ROOT / "examples" / "alibi_plugin" / "attention_lab_alibi" / "__init__.py"  # this checkout's, not an install
    spec = importlib.util.spec_from_file_location("alibi_example_here", init)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    registry = load_registry(entry_points=False, plugins=[module])
    shelf = lessons.load(registry)
    assert shelf.errors == [] and "alibi" in shelf.names()
    assert any(s.state.get("variant") == "alibi" for s in shelf.get("alibi").steps)


def test_docs_lessons_names_every_view_and_every_key_and_its_example_is_a_lesson():
    import re

    docs = (ROOT / "docs" / "lessons.md").read_text(encoding="utf-8")
    for name in (*fmt.VIEWS, *fmt.KEYS):
        assert f"| `{name}` |" in docs, name
    example = re.search(r"<!-- example:lesson -->\n```markdown\n(.*?)```", docs, re.S).group(1)
    shipped = ROOT / "examples" / "alibi_plugin" / "attention_lab_alibi" / "lessons" / "alibi.md"
    assert example == shipped.read_text(encoding="utf-8")
    assert fmt.parse(example, "alibi.md").name == "alibi"
    for name in ("chapter", "v1-v2", "by-hand"):
        steps = len(fmt.read(lesson_shelf.BUILT_IN / f"{name}.md").steps)
        assert re.search(rf"\| `{name}` \|[^\n]*\| {steps} \|", docs), name


@pytest.mark.parametrize("language, where, missing, dropout", [
    ("zh-CN", "第 2 步，共 9 步", "没有叫 'nope' 的课程", "条连接中丢掉了"),
    ("es", "paso 2 de 9", "No hay ninguna lección llamada 'nope'", "se eliminan"),
])
def test_the_lesson_tab_and_its_checks_speak_the_pages_language(registry, language, where, missing, dropout):
    import html

    from core import i18n
    from core.serve import lessons
    from core.serve.plugins import AppLab
    from core.ui import lesson_tab

    shelf = lessons.load(registry)
    step = next(s for s in shelf.get("v1-v2").steps if s.view == "dropout")
    english = lessons.show(AppLab(registry), step.view, lessons.state(step))
    with i18n.speaking(language):
        said = lessons.show(AppLab(registry), step.view, lessons.state(step))  # (the same cached numbers)
        assert where in lesson_tab.where_html("v1-v2", 2, 9)
        assert missing in html.unescape(lesson_tab.missing_html(shelf, "nope"))
        assert lesson_tab.loaded_text(shelf, ["chapter"]) != "Lessons loaded: chapter (en, zh-CN)"
    assert dropout in said.check and said.check != english.check and english.check.startswith("p = 0.5: ")
    assert said.view["heads"][0]["title"] != english.view["heads"][0]["title"]  # "evaluation", in its language
