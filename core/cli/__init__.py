"""The `attention-lab` command: plugins, check, serve, bench, train. Mistakes get a sentence."""

from __future__ import annotations

import argparse
import importlib
import sys

# subcommand -> module that defines add_arguments(parser) and run(args) -> int.
COMMANDS = {
    "plugins": "core.cli.plugins",
    "check": "core.cli.check",
    "serve": "core.cli.serve",
    "train": "core.cli.train",
    "bench": "core.cli.bench",
}


def main(argv: list[str] | None = None) -> int:
    """Parse, dispatch, and turn a user's mistake into one line on stderr (exit 2)."""
    from ..config import ConfigError

    parser = argparse.ArgumentParser(prog="attention-lab", description="Attention Lab: the attention layer, one stage at a time.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, modname in COMMANDS.items():
        mod = importlib.import_module(modname)
        mod.add_arguments(sub.add_parser(name, help=mod.HELP, description=mod.HELP))
    args = parser.parse_args(argv)
    try:
        return int(importlib.import_module(COMMANDS[args.command]).run(args) or 0)
    except (ConfigError, ValueError, FileNotFoundError) as exc:
        print(f"attention-lab {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
