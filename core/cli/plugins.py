"""`attention-lab plugins`: every variant, where it came from, and the plugins that failed."""

from __future__ import annotations

import argparse

HELP = "list registered variants, their plugins and versions, and plugin errors"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-entry-points", action="store_true", help="built-in variants only")


def run(args: argparse.Namespace) -> int:
    from core.kit.report import VARIANT_HEADERS, format_table, variant_rows
    from core.registry import load_registry

    registry = load_registry(entry_points=not args.no_entry_points)
    print(format_table(VARIANT_HEADERS, variant_rows(registry)))
    if registry.errors:
        print(f"\n{len(registry.errors)} plugin error(s); the lab runs without them:")
        for e in registry.errors:
            print(f"  {e}")
    return 0
