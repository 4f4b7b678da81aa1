"""Start-up loads only what the first page needs: the PNG export's matplotlib waits for the first export."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_building_the_app_does_not_import_matplotlib():
    code = "import sys, app; assert app.demo is not None; print(sorted(m for m in sys.modules if m.startswith('matplotlib')))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


def test_the_png_export_loads_matplotlib_when_asked():
    code = ("import sys; from core.serve import exports; assert 'matplotlib' not in sys.modules; "
            "from core.render import export; assert 'matplotlib.figure' in sys.modules; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
