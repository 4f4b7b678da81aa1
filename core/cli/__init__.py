"""The `attention-lab` command: plugins, check, new-plugin, install, serve, bench, train, lesson. Mistakes get a sentence."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import threading

# subcommand -> module that defines add_arguments(parser) and run(args) -> int.
COMMANDS = {
    "plugins": "core.cli.plugins",
    "check": "core.cli.check",
    "new-plugin": "core.cli.new_plugin",
    "install": "core.cli.install",
    "serve": "core.cli.serve",
    "train": "core.cli.train",
    "bench": "core.cli.bench",
    "lesson": "core.cli.lesson",
}


def main(argv: list[str] | None = None) -> int:
    """Parse, dispatch, and turn a user's mistake into one line on stderr (exit 2)."""
    from ..config import ConfigError
    from ..plugin_collect import reraised

    parser = argparse.ArgumentParser(prog="attention-lab", description="Attention Lab: the attention layer, one stage at a time.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, modname in COMMANDS.items():
        mod = importlib.import_module(modname)
        mod.add_arguments(sub.add_parser(name, help=mod.HELP, description=mod.HELP))
    args = parser.parse_args(argv)
    try:
        return int(importlib.import_module(COMMANDS[args.command]).run(args) or 0)
    except (ConfigError, ValueError, FileNotFoundError) as exc:
        if reraised(exc):  # ATTENTION_LAB_STRICT=1: the plugin's own exception, traceback and all
            raise
        print(f"attention-lab {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def console() -> None:
    """The `attention-lab` script: main(), then exit even when plugin code left threads running."""
    try:
        code = main()
    except SystemExit as exc:  # argparse's --help and usage errors
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - strict mode's re-raise: print it as Python would, then leave
        import traceback

        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        os._exit(code)  # a non-daemon thread would otherwise keep the process alive after the answer
    raise SystemExit(code)
