"""scripts/loadtest.py still runs against the app: a tiny class, and the plain-HTTP call it times."""

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "loadtest.py"


def loadtest():
    if str(SCRIPT.parent) not in sys.path:  # as when the script is run: its own directory first
        sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("loadtest", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_small_class_runs_without_errors_and_reports_what_the_readme_quotes(app_url, monkeypatch):
    lt = loadtest()
    slow = {"/mask_experiment", "/scale_experiment", "/cost"}  # minutes of training: not in a unit test
    absent = {"/model_attention"}  # its default model, "gpt2", is not switched on in the test app: it says so
    real = lt.endpoint_defaults
    monkeypatch.setattr(lt, "endpoint_defaults",
                        lambda c: {k: v for k, v in real(c).items() if k not in slow | absent})
    report = lt.classroom(app_url, None, students=3, clicks=3, think=0.01, seconds=None)
    assert report["errors"] == 0 and report["all"]["n"] == 9 and report["first_clicks"]["n"] == 3
    assert {"p50_ms", "p95_ms"} <= set(report["all"]) and report["client_cpu_ms_per_request"] > 0


def test_the_plain_http_call_gets_a_complete_answer(app_url):
    lt = loadtest()
    data = ["the cat sat", "multi-head", True, True, 2, 16, 0, "{}"]
    assert 0 < lt.raw_call(app_url, "attention", data, session="test-loadtest") < 60
