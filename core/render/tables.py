"""Tables for the page: widths that make a Gradio Dataframe fit its box (its cells then wrap, nothing scrolls)."""

from __future__ import annotations


def equal_widths(columns: int) -> list[str]:
    """CSS widths sharing a table's width equally between its columns: ["20.00%", ...] for 5 (none for 0)."""
    return [f"{100 / columns:.2f}%"] * columns if columns > 0 else []
