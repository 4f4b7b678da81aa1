"""`attention-lab serve`: the app, as `python app.py` runs it."""

from __future__ import annotations

import argparse
import os

HELP = "serve the Gradio app (GRADIO_SERVER_NAME / GRADIO_SERVER_PORT respected)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))


def run(args: argparse.Namespace) -> int:
    os.environ["GRADIO_SERVER_NAME"], os.environ["GRADIO_SERVER_PORT"] = args.host, str(args.port)
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # before gradio is imported, as app.py does
    from core.ui.app import build_demo, launch

    demo = build_demo()
    try:
        launch(demo)
    except OSError as exc:  # a busy or forbidden port is the user's to fix: say so in one sentence
        reason = str(exc).strip().split(". ")[0].splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"cannot serve on {args.host}:{args.port} ({reason}); choose another --port") from None
    return 0
