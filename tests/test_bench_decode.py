"""`attention-lab bench --decode` runs (tiny shapes) and writes its table and JSON; its ratios are read right."""

from __future__ import annotations

import json

import pytest

from core.bench.decode import FLAT_TARGET, GROWTH_TARGET, summarise
from core.cli import main


@pytest.mark.kernel_free
def test_quick_decode_bench_writes_the_table_and_json(tmp_path, capsys):
    code = main(["bench", "--decode", "--quick", "--T", "8", "24", "--reps", "1", "--out", str(tmp_path)])
    assert code == 0
    result = json.loads((tmp_path / "decode.json").read_text())
    assert [p["T"] for p in result["points"]] == [8, 24]
    for p in result["points"]:
        assert p["cached_s"] > 0 and p["uncached_s"] > 0 and p["cached_steps"] == p["uncached_steps"] == 1
        assert p["speedup"] == pytest.approx(p["uncached_s"] / p["cached_s"])
        assert p["cache_mib"] > 0
    assert set(result["summary"]) >= {"cached_growth", "uncached_growth", "cached_flat", "uncached_grows"}
    assert result["meta"]["model"]["n_layers"] == 2 and result["meta"]["threads"] >= 1
    table = capsys.readouterr().out
    assert "cached ms/token" in table and "from T=8 to T=24" in table and "decode.json" in table


@pytest.mark.kernel_free
def test_growth_is_longest_over_shortest_against_the_targets():
    points = [
        {"T": 1024, "cached_s": 0.012, "uncached_s": 0.9, "speedup": 75.0},
        {"T": 256, "cached_s": 0.010, "uncached_s": 0.1, "speedup": 10.0},
        {"T": 4096, "cached_s": 0.018, "uncached_s": 1.2, "speedup": 66.7},
    ]
    s = summarise(points)
    assert (s["from_T"], s["to_T"]) == (256, 4096)
    assert s["cached_growth"] == pytest.approx(1.8) and s["cached_flat"] is (1.8 <= FLAT_TARGET)
    assert s["uncached_growth"] == pytest.approx(12.0) and s["uncached_grows"] is (12.0 >= GROWTH_TARGET)
    assert not summarise([{**points[1]}, {**points[2], "cached_s": 0.03}])["cached_flat"]


def test_one_length_is_not_a_ratio(capsys):
    assert main(["bench", "--decode", "--T", "64"]) == 2
    assert "two or more T" in capsys.readouterr().err
