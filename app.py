"""Attention Lab: the Gradio app. `python app.py` (or `make run`); Hugging Face Spaces runs it as is."""

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # before gradio is imported
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from core.ui.app import build_demo, launch  # noqa: E402

demo = build_demo()

if __name__ == "__main__":
    launch(demo)
