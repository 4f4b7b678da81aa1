"""`attention-lab lesson check FILE`: read lesson files as the app does; exit 1 with each file's sentence if any has a
mistake the app would refuse or a step's `expect:` does not hold on its view (computed live, as the class sees it),
and warn (exit 0) when a step is estimated too tall for a 1024×768 screen."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from core.i18n import mark, t

HELP = "check a lesson file (exit 1 with the sentence that names its file and line)"
MESSAGES = {
    "ok": mark("{file}: lesson {name} ({language}), {n} steps, ok"),
    "tall": mark("warning: {file} line {line}: step {title} is about {height} px tall, more than the {room} px a "
                 "1024×768 screen has for it; shorten its text (docs/lessons.md, \"One screen\")"),
    "failed": mark("{file} line {line}: step {title} expects {expected}, but its view measures {measured}"),
    "refused": mark("{file} line {line}: step {title} cannot be shown: {reason}"),
    "expected": mark("{file}: {n} expectations hold"),
    "unmeasured": mark("{file} line {line}: step {title}: {said}"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="validate one lesson file, or every file of a folder")
    check.add_argument("file", metavar="FILE", help="a lesson file (.md) or a folder of them")
    check.add_argument("--no-entry-points", action="store_true", help="know only the built-in variants")
    check.add_argument("--no-expect", action="store_true", help="read the files only; do not compute the steps' "
                       "views to check their expect: lines")


def run(args: argparse.Namespace) -> int:
    from core.lab import lesson_fit, lesson_shelf
    from core.lab.lesson_values import Known
    from core.registry import load_registry

    registry = load_registry(entry_points=not args.no_entry_points)
    checked = Path(args.file)
    built_in = lesson_shelf.BUILT_IN.resolve()
    here = checked.resolve() if checked.exists() else checked
    mine = here == built_in or built_in in here.parents
    # The app's shelf: the built-in lessons first (a teacher's `chapter` clashes with them), then the files checked.
    places = ([] if mine else [(built_in, lesson_shelf.BUILT_IN_SOURCE)]) + [(checked, "checked")]
    shelf = lesson_shelf.shelf(places, Known.of(registry))
    theirs = [e for e in shelf.errors if mine or built_in not in Path(e.path).resolve().parents]
    for error in theirs:
        print(error, file=sys.stderr)
    shown = sorted((lesson for versions in shelf.lessons.values() for lesson in versions.values()
                    if mine or lesson.source == "checked"), key=lambda lesson: lesson.path)
    for lesson in shown:
        for step in lesson.steps:
            height = lesson_fit.height(step)
            if height > lesson_fit.ROOM:
                print(t(MESSAGES["tall"], file=Path(lesson.path).name, line=step.line, title=repr(step.title),
                        height=height, room=lesson_fit.ROOM))
        print(t(MESSAGES["ok"], file=Path(lesson.path).name, name=repr(lesson.name), language=lesson.language,
                n=len(lesson.steps)))
    failed = 0 if args.no_expect else expectations(registry, shown)
    return 1 if theirs or failed else 0


def expectations(registry, lessons) -> int:
    """Every step with `expect:` lines shown as the app shows it; each expectation that does not hold is one sentence
    (file, line, expected, measured) on stderr. -> how many failed."""
    from core.config import ConfigError
    from core.lab.lesson_expect import OPS, number, written
    from core.serve import lessons as serve
    from core.serve.plugins import AppLab

    lab, failed = AppLab(registry), 0
    if any(step.view == "training" and step.expect for lesson in lessons for step in lesson.steps):
        from core.serve.experiments import warm

        warm()  # the class's default runs, trained (or read from the cache) as the app warms them: measured, not waited for
    for lesson in lessons:
        name, n = Path(lesson.path).name, 0
        for step in lesson.steps:
            if not step.expect:
                continue
            try:
                shown = serve.shown(lab, step)
            except ConfigError as exc:
                print(t(MESSAGES["refused"], file=name, line=step.line, title=repr(step.title), reason=exc),
                      file=sys.stderr)
                failed += 1
                continue
            for o in shown.outcomes:
                if o.held is None:  # (no real model, a run still training: said, neither held nor failed)
                    print(t(MESSAGES["unmeasured"], file=name, line=o.expect.line, title=repr(step.title),
                            said=o.text))
                    continue
                n += 1
                if o.held is False:
                    failed += 1
                    e = o.expect
                    bad = sorted({number(v) for v in o.measured if not e.holds(v)}) if o.measured else ["—"]
                    measured = ", ".join(bad[:3]) + (" …" if len(bad) > 3 else "")
                    print(t(MESSAGES["failed"], file=name, line=e.line, title=repr(step.title),
                            expected=f"{e.what()} {OPS[e.op]} {written(e.value)}", measured=measured),
                          file=sys.stderr)
        if n:
            print(t(MESSAGES["expected"], file=name, n=n))
    return failed
