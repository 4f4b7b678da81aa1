"""The fast cases of scripts/attack.py on their own server: after each, the student is answered at ≤ 3x p50."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "attack.py"


@pytest.mark.slow
def test_a_flood_junk_and_the_rest_routes_cost_the_student_little():
    if str(SCRIPT.parent) not in sys.path:
        sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("attack", SCRIPT)
    attack = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(attack)
    rows = {r["attack"]: r for r in attack.main(["--quick", "flood", "junk", "rest"])}
    for row in rows.values():
        assert row["after"] == "answered" and row["student_errors"][-1] == 0, row
        assert row["p50_ratio"] < 3, row
    assert set(rows["flood"]["answers"]) <= {"200", "429"}
    assert all(code.startswith("4") or code == "200" for code in rows["junk"]["answers"]), rows["junk"]
    assert "0 tracebacks" in rows["junk"]["log"]
    assert rows["rest"]["answers"] == {"404": 6}
