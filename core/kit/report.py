"""Rows for the plugins table and the conformance report, shared by the CLI and the Plugins tab.

The words in them (headers, statuses, stages, check names, reasons) are in the current language: English in a
terminal, the page's in a request. Names (variants, plugins, packages) and a third-party plugin's own text stay as
they are; a built-in variant's title is looked up (core.i18n.lookup).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..i18n import lookup, mark, t
from ..registry import Registry

if TYPE_CHECKING:
    from .conformance import CheckReport

VARIANT_HEADERS = [mark("variant"), mark("title"), mark("plugin"), mark("distribution"), mark("status")]
PLUGIN_HEADERS = [mark("plugin"), mark("distribution"), mark("version"), mark("source"), mark("variants")]
ERROR_HEADERS = [mark("plugin"), mark("distribution"), mark("stage"), mark("reason")]
REPORT_HEADERS = [mark("check"), mark("result"), "ms", mark("detail")]


def headers(names: list[str]) -> list[str]:
    """A table's headers in the current language."""
    return [t(name) for name in names]


def variant_rows(registry: Registry) -> list[list[str]]:
    """One row per variant (status ok), then one per failed plugin (no variant, status failed)."""
    rows = []
    for v in registry.variants.values():
        info = registry.plugins.get(v.plugin)
        title = lookup(v.title) if info is not None and info.builtin else v.title  # a plugin's words are its own
        rows.append([v.name, title, v.plugin, info.label if info else "", t("ok")])
    for e in registry.errors:
        rows.append(["-", "-", e.plugin, e.distribution, t("failed ({stage})", stage=t(e.stage))])
    return rows


def plugin_rows(registry: Registry) -> list[list[str]]:
    """One row per loaded plugin: where it came from and which variants it gave."""
    rows = []
    for name, info in registry.plugins.items():
        names = ", ".join(v.name for v in registry.variants.values() if v.plugin == name)
        rows.append([name, info.distribution, info.version, info.source, names or t("(none)")])
    return rows


def error_rows(registry: Registry) -> list[list[str]]:
    """One row per plugin failure: who, from which package, at what stage, and why."""
    return [[e.plugin, e.distribution, t(e.stage), e.says()] for e in registry.errors]


def report_rows(report: CheckReport) -> list[list[str]]:
    """One row per check, in the kit's order: pass, FAIL with its sentence, or skipped with the reason."""
    from .checks import CHECKS

    skipped = getattr(report, "skipped", {}) or {}
    rows = []
    for check in [*CHECKS, *(c for c in report.timings if c not in CHECKS)]:
        ms = f"{report.timings[check] * 1000:.0f}" if check in report.timings else ""
        if check in report.found:
            rows.append([t(check), t("FAIL"), ms, report.found[check]])
        elif check in skipped:
            rows.append([t(check), t("FAIL") if check in report.repeated else t("skipped"), ms, skipped[check]])
        elif check in report.timings:
            rows.append([t(check), t("pass"), ms, ""])
    return rows


def format_table(headers: list[str], rows: list[list[str]]) -> str:
    """Plain-text columns for a terminal."""
    table = [headers, *rows]
    widths = [max(len(str(r[i])) for r in table) for i in range(len(headers))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in table)
