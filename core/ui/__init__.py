"""Gradio Blocks for the lab: one module per tab, layout and wiring only."""
