"""Builds the Gradio app from the tab modules; each tab module has TITLE and build(ctx)."""

from __future__ import annotations

import importlib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # no network at run time
# Gradio's queue recomputes a pandas summary of up to 10,000 past events after EVERY event (for its
# /monitoring page): a cost that grows with the server's age. Keep the last 1,000, summarised every 100.
os.environ.setdefault("GRADIO_ANALYTICS_MAX_EVENTS", "1000")
os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "100")
# Gradio's "run history" keeps every call's inputs and outputs in the browser's localStorage (up to 100), re-read
# and re-written whole on every event: ~1 ms of the page's time per KB of outputs, growing with each click, and
# a class's sentences left on shared machines. Off (the API's own /runs page is not part of the lab).
os.environ.setdefault("GRADIO_RUN_HISTORY", "False")

import gradio as gr  # noqa: E402

from core.lab.session import Lab  # noqa: E402
from core.registry import Registry, load_registry  # noqa: E402

log = logging.getLogger("attention_lab.ui")

# Tab modules, in the order they appear. Each defines TITLE: str and build(ctx: AppContext) -> None,
# called inside `with gr.Tab(TITLE):`.
TABS = [
    "core.ui.attention_tab",
    "core.ui.step_tab",
    "core.ui.causality_tab",
    "core.ui.transfer_tab",
    "core.ui.masking_tab",
    "core.ui.plugins_tab",
    "core.ui.cost_tab",
    "core.ui.model_tab",
    "core.ui.experiments_tab",
]


@dataclass
class AppContext:
    """What every tab may use: the registry (loaded once per app), the cached lab, and shared components."""

    registry: Registry
    lab: Lab | None = None  # cached computations of the Attention/Step/Causality/Masking tabs
    shared: dict[str, Any] = field(default_factory=dict)  # components one tab offers the next (by name)
    tab: gr.Tab | None = None  # the gr.Tab being built: tabs fill themselves on .select (lazy start-up)
    warm: list[Callable[[], Any]] = field(default_factory=list)  # what to compute once the app serves, in order

    def __post_init__(self) -> None:
        if self.lab is None:
            self.lab = Lab(self.registry)


def build_demo(registry: Registry | None = None) -> gr.Blocks:
    """The whole app as one Blocks; no network, no analytics."""
    ctx = AppContext(registry=registry or load_registry())
    with gr.Blocks(title="Attention Lab", analytics_enabled=False) as demo:
        gr.Markdown("# Attention Lab\nThe attention layer of GPT-style models, one stage at a time.")
        for modname in TABS:
            tab = importlib.import_module(modname)
            with gr.Tab(tab.TITLE) as ctx.tab:
                tab.build(ctx)
    demo.lab_warm = ctx.warm  # for launch(): the tabs' defaults, computed after the first page is served
    return demo


def launch_options() -> dict[str, Any]:
    """How the app is served everywhere (app.py, tests): a built-in theme with local fonts only, no SSR/Node."""
    return {
        "theme": gr.themes.Default(font=["ui-sans-serif", "system-ui", "sans-serif"],
                                   font_mono=["ui-monospace", "monospace"]),  # no Google Fonts download
        "ssr_mode": False,
        "show_error": True,  # gr.Error messages reach the page; they are one escaped sentence, never a traceback
        "run_history": False,  # see GRADIO_RUN_HISTORY above
    }


def launch(demo: gr.Blocks, **kwargs) -> None:
    """Serve on GRADIO_SERVER_NAME:GRADIO_SERVER_PORT (127.0.0.1:7860 by default); then warm the tabs.

    Warming (ATTENTION_LAB_WARM=0 turns it off) starts after the first page is served, so it never
    delays start-up: each tab's default view and the trained model's opening view (~3 s in all), then
    the two default experiments (~17 s, in a worker process).
    """
    demo.launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
        server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
        **{**launch_options(), **kwargs, "prevent_thread_lock": True},
    )
    if os.environ.get("ATTENTION_LAB_WARM", "1") != "0":
        warm(getattr(demo, "lab_warm", []))
    demo.block_thread()


def warm(jobs: list[Callable[[], Any]]) -> threading.Thread:
    """The tabs' warm-up jobs, one after the other in one background thread (cheap ones first)."""

    def work() -> None:
        for job in jobs:
            try:
                job()
            except Exception:  # never take the server down: a click computes it instead
                log.exception("warming up failed in %s", getattr(job, "__qualname__", job))

    thread = threading.Thread(target=work, name="attention-lab-warm", daemon=True)
    thread.start()
    return thread
