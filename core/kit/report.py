"""Rows for the plugins table and the conformance report, shared by the CLI and the Plugins tab."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..registry import Registry

if TYPE_CHECKING:
    from .conformance import CheckReport

VARIANT_HEADERS = ["variant", "title", "plugin", "distribution", "status"]
PLUGIN_HEADERS = ["plugin", "distribution", "version", "source", "variants"]
ERROR_HEADERS = ["plugin", "distribution", "stage", "reason"]
REPORT_HEADERS = ["check", "result", "ms", "detail"]


def variant_rows(registry: Registry) -> list[list[str]]:
    """One row per variant (status ok), then one per failed plugin (no variant, status failed)."""
    rows = []
    for v in registry.variants.values():
        info = registry.plugins.get(v.plugin)
        rows.append([v.name, v.title, v.plugin, info.label if info else "", "ok"])
    for e in registry.errors:
        rows.append(["-", "-", e.plugin, e.distribution, f"failed ({e.stage})"])
    return rows


def plugin_rows(registry: Registry) -> list[list[str]]:
    """One row per loaded plugin: where it came from and which variants it gave."""
    rows = []
    for name, info in registry.plugins.items():
        names = ", ".join(v.name for v in registry.variants.values() if v.plugin == name)
        rows.append([name, info.distribution, info.version, info.source, names or "(none)"])
    return rows


def error_rows(registry: Registry) -> list[list[str]]:
    """One row per plugin failure: who, from which package, at what stage, and why."""
    return [[e.plugin, e.distribution, e.stage, e.reason] for e in registry.errors]


def report_rows(report: CheckReport) -> list[list[str]]:
    """One row per check, in the kit's order: pass, FAIL with its sentence, or skipped with the reason."""
    from .checks import CHECKS

    why = dict(f.split(": ", 1) for f in report.failures)
    skipped = getattr(report, "skipped", {}) or {}
    rows = []
    for check in [*CHECKS, *(c for c in report.timings if c not in CHECKS)]:
        ms = f"{report.timings[check] * 1000:.0f}" if check in report.timings else ""
        if check in why:
            rows.append([check, "FAIL", ms, why[check]])
        elif check in skipped:
            rows.append([check, "FAIL" if skipped[check].startswith("same") else "skipped", ms, skipped[check]])
        elif check in report.timings:
            rows.append([check, "pass", ms, ""])
    return rows


def format_table(headers: list[str], rows: list[list[str]]) -> str:
    """Plain-text columns for a terminal."""
    table = [headers, *rows]
    widths = [max(len(str(r[i])) for r in table) for i in range(len(headers))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in table)
