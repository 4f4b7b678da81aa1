"""The registered variants, as a table: proof that plugins reach the app with no UI code."""

from __future__ import annotations

import gradio as gr

TITLE = "Variants"


def variant_rows(registry) -> list[list[str]]:
    """One row per registered variant: name, title, plugin, summary."""
    return [[v.name, v.title, v.plugin, v.summary] for v in registry.variants.values()]


def build(ctx) -> None:
    gr.Dataframe(
        value=variant_rows(ctx.registry),
        headers=["variant", "title", "plugin", "summary"],
        interactive=False,
        label="Registered attention variants",
    )
    if ctx.registry.errors:
        gr.Dataframe(
            value=[[e.plugin, e.stage, e.reason] for e in ctx.registry.errors],
            headers=["plugin", "stage", "reason"],
            interactive=False,
            label="Plugins that failed to load (skipped)",
        )
