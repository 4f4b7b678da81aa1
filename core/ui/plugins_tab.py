"""The Plugins tab: where each variant came from, what failed to load, the conformance kit, and Reload."""

from __future__ import annotations

from typing import Any

import gradio as gr

from core.i18n import mark, t
from core.kit.report import (
    ERROR_HEADERS,
    PLUGIN_HEADERS,
    REPORT_HEADERS,
    VARIANT_HEADERS,
    error_rows,
    headers,
    plugin_rows,
    report_rows,
    variant_rows,
)
from core.registry import Registry
from core.render.tables import equal_widths
from core.serve import plugins

from .common import CPU_GROUP, CPU_LIMIT, user_errors
from .i18n import static

TITLE = mark("Plugins")
INTRO = mark("""### Plugins
Every variant in this lab, built-in or not, is a pluggy plugin. A plugin that fails to load is
listed below and skipped; the rest of the lab runs without it. **Check** runs the conformance kit
on the real module, each check in its own process with a time limit: shapes at every length, batch
and padding, NaN and inf, weights edited in place, rows that sum to 1, causality by perturbing later
tokens and by autograd, forward against trace for every causal/scaled setting, and the `causal=False` control.
**Reload** picks up plugins installed since the app started (`attention-lab install -e PATH`); a plugin
whose code changed needs a restart. Write your own: `attention-lab new-plugin NAME` and `docs/plugins.md`.""")
NO_ERRORS = mark("No plugin failed to load.")
RELOADED = mark("Reloaded: {variants} variants from {plugins} plugins, {errors} plugin error(s).")


def run_check(registry: Registry, name: str) -> tuple[str, list[list[str]]]:
    """The kit's verdict as plain text and one row per check (plugin text is never rendered as HTML).

    A third-party variant is checked in its plugin's worker process, with a time limit (core.serve.plugins)."""
    report = plugins.check(registry, name)
    return str(report), report_rows(report)


def reload(registry: Registry) -> tuple[str, list[list[str]], list[list[str]], list[list[str]], list[str]]:
    """Load the plugins again in place (the app's other tabs share this registry); the tables' new rows."""
    registry.reload()
    status = t(RELOADED, variants=len(registry.variants), plugins=len(registry.plugins), errors=len(registry.errors))
    return status, plugin_rows(registry), variant_rows(registry), error_rows(registry), list(registry.variants)


def table(names: list[str], rows: list[list[str]]) -> dict[str, Any]:
    """A table's value with its headers, both in the current language (a Dataframe's headers are server text)."""
    return {"headers": headers(names), "data": rows}


def tables(registry: Registry) -> tuple[dict[str, Any], ...]:
    """The tab's tables as they open (the report's empty), in the current language."""
    return (table(PLUGIN_HEADERS, plugin_rows(registry)), table(VARIANT_HEADERS, variant_rows(registry)),
            table(ERROR_HEADERS, error_rows(registry)), table(REPORT_HEADERS, []))


def _table(value: dict[str, Any], label: str, elem_id: str, visible: bool = True) -> gr.Dataframe:
    return gr.Dataframe(value=value["data"], headers=value["headers"], datatype="str", interactive=False, wrap=True,
                        label=static(label), elem_id=elem_id, visible=visible, elem_classes=["al-break-table"],
                        column_widths=equal_widths(len(value["headers"])))  # (fits 1024 px: cells wrap)


def build(ctx) -> None:
    registry: Registry = ctx.registry
    gr.Markdown(static(INTRO))
    with gr.Row():
        again = gr.Button(static("Reload plugins"), elem_id="plugins-reload")
        status = gr.Textbox(label=static("registry"), value="", interactive=False, elem_id="plugins-status")
    first = tables(registry)  # (English: a page in another language gets them again in its own, below)
    loaded = _table(first[0], mark("Loaded plugins"), "plugins-loaded")
    variants = _table(first[1], mark("Variants and where they come from"), "plugins-variants")
    errors = _table(first[2], mark("Plugins that failed to load (skipped)"), "plugins-errors",
                    visible=bool(registry.errors))
    no_errors = gr.Markdown(static(NO_ERRORS), elem_id="plugins-no-errors", visible=not registry.errors)
    with gr.Row():
        names = list(registry.variants)
        variant = gr.Dropdown(names, value=names[0] if names else None, label=static("variant to check"),
                              elem_id="plugins-check-variant")
        go = gr.Button(static("Check"), variant="primary", elem_id="plugins-check")
    summary = gr.Textbox(label=static("conformance report"), lines=3, interactive=False, elem_id="plugins-report")
    rows = _table(first[3], mark("every check, in order"), "plugins-report-rows")
    switched_off = gr.Textbox(label=static("plugins switched off in this run (they kept failing)"), interactive=False,
                              elem_id="plugins-switched-off")  # (filled when the tab is shown, in its language)
    if getattr(ctx, "first_values", None) is not None:  # the app's context (a test may build the tab alone)
        ctx.first_values([loaded, variants, errors, rows], lambda: tables(registry))
    if getattr(ctx, "tab", None) is not None:
        ctx.tab.select(lambda: plugins.switched_off_text(registry), None, switched_off, api_visibility="private")
        ctx.filled_on_show(switched_off)

    @user_errors
    def check(name: str) -> tuple[str, dict[str, Any]]:
        """Run the conformance kit on the chosen variant."""
        text, report = run_check(registry, name)
        return text, table(REPORT_HEADERS, report)

    @user_errors
    def on_reload() -> tuple:
        """Reload the registry and refresh every table on this tab."""
        text, plugin_table, variant_table, error_table, choices = reload(registry)
        return (text, table(PLUGIN_HEADERS, plugin_table), table(VARIANT_HEADERS, variant_table),
                gr.update(value=table(ERROR_HEADERS, error_table), visible=bool(error_table)),
                gr.update(visible=not error_table), gr.update(choices=choices))

    go.click(check, [variant], [summary, rows], api_name="check_variant",
             concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
    again.click(on_reload, [], [status, loaded, variants, errors, no_errors, variant], api_name="reload_plugins",
                concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
