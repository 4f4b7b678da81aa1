"""A lesson folder written by a careless or hostile author (tests/hostile_lessons.py): every file the app must not
show is one sentence naming the file (and line), said where the teacher looks (the shelf, the server's log, the
Lesson tab's box, `attention-lab lesson check`, in the page's language), and everything else still loads; reading it
never hangs on a named pipe nor reads /dev/zero; what loads reaches the page only as markdown-it's HTML."""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path

import pytest

from core import i18n
from core.lab import lesson_fit, lesson_shelf
from core.lab import lesson_format as fmt
from core.lab.lesson_values import Known
from core.registry import load_registry
from core.render.lesson_html import ALLOWED, WRAPPER
from tests.hostile_lessons import LOADED, SECRET, build

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def registry():
    return load_registry(entry_points=False)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    place = tmp_path_factory.mktemp("class") / "lessons"
    return place, build(place)


def read_in_time(place, registry, seconds: float = 60.0) -> lesson_shelf.Shelf:
    """The app's shelf of the folder, read in a thread: a read that blocks (a named pipe opened) fails the test."""
    out: list = []
    reader = threading.Thread(target=lambda: out.append(lesson_shelf.shelf(
        [(lesson_shelf.BUILT_IN, "built-in"), (place, "teacher")], Known.of(registry))), daemon=True)
    reader.start()
    reader.join(seconds)
    assert out, f"reading the lesson folder took more than {seconds} s (a named pipe or a device read whole?)"
    return out[0]


def test_every_hostile_file_is_one_sentence_naming_it_and_the_rest_loads(folder, registry):
    place, refused = folder
    shelf = read_in_time(place, registry)
    assert LOADED | {"chapter", "v1-v2", "by-hand"} == set(shelf.names())
    assert Path(shelf.get("chapter").path).parent == lesson_shelf.BUILT_IN  # the teacher's `chapter` never mixed in
    said = {Path(e.path).name: str(e) for e in shelf.errors}
    assert set(said) == set(refused), set(said) ^ set(refused)
    for file, words in refused.items():
        sentence = said[file]
        assert sentence.startswith(f"{file}") and words in sentence and "\n" not in sentence, sentence
        assert len(sentence) < 300 and SECRET not in sentence
    assert [len(shelf.get(n).steps) for n in ("hostile", "tall", "fits")] == [8, 1, 1]


@pytest.mark.parametrize("case", ["outside.md", "zero.md", "pipe.md", "big.md"])
def test_the_symlink_the_device_the_pipe_and_5_mb_alone_each_give_one_sentence(tmp_path, registry, case):
    """Each on its own in a teacher's folder beside a good lesson: one sentence, the good lesson and the built-ins load."""
    place = tmp_path / "lessons"
    build(place)
    for f in list(place.iterdir()):
        if f.name in (case, "fits.md"):
            continue
        shutil.rmtree(f) if f.is_dir() and not f.is_symlink() else f.unlink()
    shelf = read_in_time(place, registry)
    assert len(shelf.errors) == 1 and str(shelf.errors[0]).startswith(f"{case}: this ")
    assert {"chapter", "v1-v2", "by-hand", "fits"} == set(shelf.names())


def test_a_file_named_directly_is_judged_the_same(tmp_path, registry):
    """ATTENTION_LAB_LESSONS=/dev/zero, or `lesson check` on a named pipe: the file's own folder is where it is."""
    os.mkfifo(tmp_path / "p.md")
    for place, words in (("/dev/zero", "zero: this is a device, not a file"),
                         (tmp_path / "p.md", "p.md: this is a named pipe, not a file")):
        shelf = lesson_shelf.shelf([(place, "teacher")])
        assert [str(e) for e in shelf.errors] == [words + "; lessons and their images are plain files"]


def test_the_app_says_each_one_in_its_log_at_start(folder, registry, monkeypatch, caplog):
    from core.serve import lessons

    place, refused = folder
    monkeypatch.setenv(lessons.ENV, str(place))
    with caplog.at_level(logging.WARNING, logger="attention_lab.lessons"):
        shelf = lessons.load(registry)
    logged = [r.getMessage() for r in caplog.records if r.name == "attention_lab.lessons"]
    assert len(logged) == len(refused) == len(shelf.errors)
    for file, words in refused.items():
        assert any(line.startswith(f"lesson not loaded: {file}") and words in line for line in logged), file


def test_lesson_check_refuses_exactly_what_the_app_refuses_and_never_hangs(folder, registry):
    place, refused = folder
    done = subprocess.run([sys.executable, "-m", "core", "lesson", "check", str(place), "--no-entry-points"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 1
    app = {str(e) for e in read_in_time(place, registry).errors}
    assert set(done.stderr.strip().splitlines()) == app
    out = done.stdout.splitlines()
    warned = [line for line in out if line.startswith("warning:")]
    assert f"warning: tall.md line 6: step 'Too tall' is about {lesson_fit.height(fmt.read(place / 'tall.md').steps[0])}" \
           f" px tall, more than the {lesson_fit.ROOM} px a 1024×768 screen has for it; shorten its text " \
           f"(docs/lessons.md, \"One screen\")" in warned
    assert not any(line.startswith("warning: fits.md") for line in warned)  # (the image step of hostile.md counts
    # its image at its largest, 300 px: it may warn too)
    assert {line.split(":")[0] for line in out if line.endswith(", ok")} == {"fits.md", "hostile.md", "tall.md"}


def test_lesson_check_says_ok_to_the_built_in_lessons_with_no_warning():
    done = subprocess.run([sys.executable, "-m", "core", "lesson", "check", str(lesson_shelf.BUILT_IN),
                           "--no-entry-points"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and done.stderr == "" and "warning" not in done.stdout
    assert done.stdout.count(", ok") == 6


class Elements(HTMLParser):
    """Every element and attribute of an HTML text."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def test_what_loads_reaches_the_page_only_as_the_renderers_html(folder, registry):
    from core.serve import lessons

    place, _ = folder
    lesson = read_in_time(place, registry).get("hostile")
    for k, step in enumerate(lesson.steps):
        parser = Elements()
        parser.feed(lessons.text_html(lesson, k))
        (outer, attrs), *inner = parser.found
        assert (outer, attrs) == ("div", {"class": WRAPPER})
        for tag, attrs in inner:
            assert tag in ALLOWED and set(attrs) <= set(ALLOWED[tag]), (step.title, tag, attrs)
            if tag == "a" and attrs["href"].startswith("http"):
                assert attrs["rel"] == "noopener noreferrer" and attrs["target"] == "_blank"
            if tag == "img":  # the app's own address of a file of the lesson's folder
                assert re.fullmatch(r"lesson-image/[0-9a-f]{24}\.png", attrs["src"]), attrs
            assert not any(v and ("javascript:" in v or "other.invalid" in v and tag != "a") for v in attrs.values())
    assert "<div style" not in "".join(lessons.text_html(lesson, k) for k in range(len(lesson.steps)))


def test_a_lesson_image_is_served_from_its_folder_and_nothing_else_is(folder, registry):
    from core.serve import lesson_images, lessons

    place, _ = folder
    lesson = read_in_time(place, registry).get("hostile")
    src = re.search(r'src="lesson-image/([0-9a-f]+)(\.png)"', lessons.text_html(lesson, 6))
    data, kind = lesson_images.image(src.group(1), src.group(2))
    assert kind == "image/png" and data == (place / "pics" / "ok.png").read_bytes()
    assert lesson_images.image(src.group(1), ".gif") is None and lesson_images.image("0" * 24, ".png") is None
    (place / "pics" / "ok.png").rename(place / "pics" / "moved.png")
    try:  # swapped for a link out of the folder after the check: refused as it is read
        os.symlink(place.parent / "outside" / "pic.png", place / "pics" / "ok.png")
        assert lesson_images.image(src.group(1), src.group(2)) is None
    finally:
        (place / "pics" / "ok.png").unlink()
        (place / "pics" / "moved.png").rename(place / "pics" / "ok.png")


@pytest.mark.parametrize("language, words", [("zh-CN", "不是文件"), ("es", "no un archivo")])
def test_a_lessons_sentence_is_said_in_the_pages_language(folder, registry, language, words):
    from core.ui import lesson_tab

    place, _ = folder
    shelf = read_in_time(place, registry)
    pipe = next(e for e in shelf.errors if e.file == "pipe.md")
    with i18n.speaking(language):
        said, box = str(pipe), lesson_tab.failed_html(shelf)
    assert said.startswith("pipe.md") and words in said and "named pipe" not in said, said
    assert words in box and str(pipe) not in box and "did not load" not in box
    assert str(pipe) == "pipe.md: this is a named pipe, not a file; lessons and their images are plain files"


def test_a_deep_link_to_a_lesson_that_did_not_load_says_so_in_one_line(folder, registry):
    from core.ui import lesson_tab

    place, _ = folder
    shelf = read_in_time(place, registry)
    line = lesson_tab.missing_html(shelf, "chapter-2")
    assert "There is no lesson called &#x27;chapter-2&#x27;" in line
    (place.parent / "other").mkdir(exist_ok=True)
    (place.parent / "other" / "mine.md").write_text(
        "---\nlesson: mine\ntitle: Mine\nlanguage: en\n---\n## A\nview: heatmaps\nheads: 9\n\nx\n", encoding="utf-8")
    broken = lesson_shelf.shelf([(place.parent / "other", "teacher")])
    line = lesson_tab.missing_html(broken, "mine")
    assert line.count("<p") == 1 and "The lesson &#x27;mine&#x27; did not load, so it is not shown: mine.md line 8: " \
                                      "heads is a whole number from 1 to 8, not 9" in line
