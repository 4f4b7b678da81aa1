"""The reliability suite's server: the app exactly as app.py builds it, plus the hostile plugins.

    python scripts/reliability_app.py      # GRADIO_SERVER_PORT etc. as for app.py
"""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # hostile_plugins (its workers import it by name too), and core
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import hostile_plugins  # noqa: E402

from core.registry import load_registry  # noqa: E402
from core.ui.app import build_demo, launch  # noqa: E402

demo = build_demo(load_registry(plugins=hostile_plugins.PLUGINS))

if __name__ == "__main__":
    launch(demo)
