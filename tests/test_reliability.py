"""The reliability suite's smoke version: the app with hostile plugins, on loopback, each part at a small size.

The full sizes (the figures in docs/reliability.md) take ~20 minutes: `python scripts/reliability.py`.
"""

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "reliability.py"


def reliability():
    if str(SCRIPT.parent) not in sys.path:  # as when the script is run: its own directory first
        sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("reliability", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_smoke_version_holds_every_bound(tmp_path, capsys):
    out = tmp_path / "report.json"
    code = reliability().main(["--quick", "--plugins", "hang,exit,nan", "--fuzz", "80",
                               "--sessions", "60", "--traces", "25", "--bodies", "2", "--students", "4",
                               "--clicks", "3", "--json", str(out)])
    import json

    report = json.loads(out.read_text())
    assert code == 0 and report["server_alive"] and report["crashes"] == []
    for name, row in ((k, v) for k, v in report["plugins"].items() if k != "part_seconds"):
        if name == "nan":
            assert row["kind"] == "answer" and "plugin 'hostile-nan' returned" in row["user_saw"]
        else:
            assert row["kind"] == "sentence" and row["user_saw"].startswith(f"plugin 'hostile-{name}' ")
        assert row["others_errors"] == 0
    hang = report["plugins"]["hang"]
    assert hang["user_waited_s"] < 15
    assert hang["others_ratio_p50_vs_alone"] < 3  # its slots are lent while it hangs (without: ~40x)
    assert report["fuzz"]["non_sentence_errors"] == 0 and report["fuzz"]["calls"] >= 80
    assert report["bodies"]["statuses"] == {"413": 2} and report["bodies"]["growth_mib"] <= 50
    assert report["sessions"]["errors"] == 0 and report["sessions"]["sessions"] == 60
    assert report["traces"]["downloaded"] == 25 and report["traces"]["growth_mib"] <= 25 * 0.2
    assert report["class"]["mixups"] == 0 and report["class"]["by_kind"] == {"answer": 12}
