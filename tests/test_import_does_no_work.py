"""Importing any module of core does no work: no environment written, no static paths, no lender set (issue #21)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import importlib, json, os, pkgutil, sys
import gradio
from gradio.data_classes import _StaticFiles  # where gr.set_static_paths keeps its paths (tests/test_gradio_seams.py)
before, paths = dict(os.environ), list(_StaticFiles.all_paths)
import core
names = sorted({m.name for m in pkgutil.walk_packages(core.__path__, "core.")} - {"core.__main__"})
for name in names:
    importlib.import_module(name)
from core.serve.slots import CPU
print(json.dumps({"modules": len(names), "env": {k: v for k, v in os.environ.items() if before.get(k) != v},
                  "gone": [k for k in before if k not in os.environ], "paths": [str(p) for p in _StaticFiles.all_paths
                  if p not in paths], "lender": CPU._lender is not None}))
"""


def test_importing_every_module_of_core_changes_no_environment_and_no_static_path():
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRADIO_ANALYTICS_ENABLED": "False"}
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300, check=True).stdout
    found = json.loads(out.strip().splitlines()[-1])
    assert found["modules"] > 100
    assert found["env"] == {} and found["gone"] == [], found
    assert found["paths"] == [] and found["lender"] is False, found
