"""`attention-lab plugins`: every variant, where it came from, and the plugins that failed."""

from __future__ import annotations

import argparse

HELP = "list registered variants and plugin errors"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-entry-points", action="store_true", help="built-in variants only")


def run(args: argparse.Namespace) -> int:
    from core.registry import load_registry

    registry = load_registry(entry_points=not args.no_entry_points)
    rows = [("variant", "title", "plugin", "distribution", "version", "status")]
    for v in registry.variants.values():
        info = registry.plugins.get(v.plugin)
        rows.append((v.name, v.title, v.plugin, info.distribution if info else "", info.version if info else "", "ok"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    if registry.errors:
        print(f"\n{len(registry.errors)} plugin error(s):")
        for e in registry.errors:
            print(f"  {e}")
    return 0
