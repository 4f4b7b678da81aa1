"""The Plugins tab: where each variant came from, what failed to load, and the conformance kit, live."""

from __future__ import annotations

import gradio as gr

from core.kit.report import (
    ERROR_HEADERS,
    PLUGIN_HEADERS,
    REPORT_HEADERS,
    VARIANT_HEADERS,
    error_rows,
    plugin_rows,
    report_rows,
    variant_rows,
)
from core.registry import Registry
from core.serve import plugins

from .common import CPU_GROUP, CPU_LIMIT, user_errors

TITLE = "Plugins"
INTRO = """### Plugins
Every variant in this lab, built-in or not, is a pluggy plugin. A plugin that fails to load is
listed below and skipped; the rest of the lab runs without it. **Check** runs the conformance kit
on the real module: shapes, rows that sum to 1, padding without NaN, causality by perturbing later
tokens and by autograd, forward against trace, and the `causal=False` control.
Write your own: `docs/plugins.md`; from a terminal: `attention-lab plugins`, `attention-lab check NAME`."""


def run_check(registry: Registry, name: str) -> tuple[str, list[list[str]]]:
    """The kit's verdict as plain text and one row per check (plugin text is never rendered as HTML).

    A third-party variant is checked in its plugin's worker process, with a time limit (core.serve.plugins)."""
    report = plugins.check(registry, name)
    return str(report), report_rows(report)


def _table(headers: list[str], rows: list[list[str]], label: str, elem_id: str) -> gr.Dataframe:
    return gr.Dataframe(value=rows, headers=headers, datatype="str", interactive=False, wrap=True,
                        label=label, elem_id=elem_id)


def build(ctx) -> None:
    registry: Registry = ctx.registry
    gr.Markdown(INTRO)
    _table(PLUGIN_HEADERS, plugin_rows(registry), "Loaded plugins", "plugins-loaded")
    _table(VARIANT_HEADERS, variant_rows(registry), "Variants and where they come from", "plugins-variants")
    if registry.errors:
        _table(ERROR_HEADERS, error_rows(registry), f"{len(registry.errors)} plugin(s) failed to load (skipped)",
               "plugins-errors")
    else:
        gr.Markdown("No plugin failed to load.", elem_id="plugins-no-errors")
    with gr.Row():
        names = list(registry.variants)
        variant = gr.Dropdown(names, value=names[0] if names else None, label="variant to check",
                              elem_id="plugins-check-variant")
        go = gr.Button("Check", variant="primary", elem_id="plugins-check")
    summary = gr.Textbox(label="conformance report", lines=3, interactive=False, elem_id="plugins-report")
    rows = _table(REPORT_HEADERS, [], "every check, in order", "plugins-report-rows")
    switched_off = gr.Textbox(label="plugins switched off in this run (they kept failing)", interactive=False,
                              elem_id="plugins-switched-off", value=plugins.switched_off_text(registry))
    if getattr(ctx, "tab", None) is not None:
        ctx.tab.select(lambda: plugins.switched_off_text(registry), None, switched_off, api_visibility="private")

    @user_errors
    def check(name: str) -> tuple[str, list[list[str]]]:
        """Run the conformance kit on the chosen variant."""
        return run_check(registry, name)

    go.click(check, [variant], [summary, rows], api_name="check_variant",
             concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
