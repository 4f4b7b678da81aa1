"""Builds the Gradio app from the tab modules; each tab module has TITLE and build(ctx)."""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # no network at run time

import gradio as gr  # noqa: E402

from core.registry import Registry, load_registry  # noqa: E402

# Tab modules, in the order they appear. Each defines TITLE: str and build(ctx: AppContext) -> None,
# called inside `with gr.Tab(TITLE):`.
TABS = [
    "core.ui.variants_tab",
]


@dataclass
class AppContext:
    """What every tab may use: the registry of variants, loaded once per app."""

    registry: Registry


def build_demo(registry: Registry | None = None) -> gr.Blocks:
    """The whole app as one Blocks; no network, no analytics."""
    ctx = AppContext(registry=registry or load_registry())
    with gr.Blocks(title="Attention Lab", analytics_enabled=False) as demo:
        gr.Markdown("# Attention Lab\nThe attention layer of GPT-style models, one stage at a time.")
        for modname in TABS:
            tab = importlib.import_module(modname)
            with gr.Tab(tab.TITLE):
                tab.build(ctx)
    return demo


def launch(demo: gr.Blocks, **kwargs) -> None:
    """Serve on GRADIO_SERVER_NAME:GRADIO_SERVER_PORT (127.0.0.1:7860 by default)."""
    demo.launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
        server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
        **kwargs,
    )
