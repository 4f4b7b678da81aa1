"""`attention-lab lesson check FILE`: read a lesson file as the app does; exit 1 with the one sentence if it has a mistake."""

from __future__ import annotations

import argparse
import sys

HELP = "check a lesson file (exit 1 with the sentence that names its file and line)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="validate one lesson file, or every file of a folder")
    check.add_argument("file", metavar="FILE", help="a lesson file (.md) or a folder of them")
    check.add_argument("--no-entry-points", action="store_true", help="know only the built-in variants")


def run(args: argparse.Namespace) -> int:
    from core.lab.lesson_format import LessonError, read
    from core.lab.lesson_shelf import files
    from core.registry import load_registry

    variants = set(load_registry(entry_points=not args.no_entry_points).variants)
    failed = 0
    for path in files(args.file):
        try:
            lesson = read(path, variants)
        except LessonError as exc:
            print(exc, file=sys.stderr)
            failed += 1
            continue
        print(f"{path.name}: lesson {lesson.name!r} ({lesson.language}), {len(lesson.steps)} steps, ok")
    return 1 if failed else 0
