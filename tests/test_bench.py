"""The bench runs in --quick mode and writes its outputs; its memory method and ratios are sound."""

from __future__ import annotations

import json

import pytest
import torch

from core.bench import cost
from core.bench.longseq import VARIANT_ROWS, BenchSpec, _run_row_child, rows_for, summarise
from core.bench.worker import peak_growth_mib
from core.cli import main


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    return out, main(["bench", "--quick", "--T", "16", "48", "--window", "8", "--reps", "1", "--out", str(out)])


def test_quick_bench_writes_json_and_png(quick_run, capsys):
    out, code = quick_run
    assert code == 0
    result = json.loads((out / "bench.json").read_text())
    rows = {p["row"] for p in result["points"]}
    assert rows == set(rows_for(BenchSpec()))  # every variant and every reference, no flex
    assert not [p for p in result["points"] if "error" in p]
    assert all(p["time_s"] > 0 and p["ref_time_s"] > 0 for p in result["points"])
    assert {p["T"] for p in result["points"]} == {16, 48}
    assert set(result["summary"]["variants"]) == set(VARIANT_ROWS)
    assert (out / "bench.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "peak RSS growth" in result["meta"]["method"]


def test_peak_growth_sees_a_big_allocation():
    growth = peak_growth_mib(lambda: torch.ones(64 * 2**20 // 4))  # 64 MiB, freed straight away
    if growth is None:
        pytest.skip("/proc/self/clear_refs is not available here")
    assert 60 <= growth < 200


@pytest.mark.kernel_free
def test_summary_divides_ratios_from_the_same_process():
    points = [
        {"row": "sliding-window", "T": 64, "time_s": 1, "ref_time_s": 2, "ratio_vs_sdpa": 0.5, "peak_mib": 10.0},
        {"row": "dense-mask-sdpa", "T": 64, "time_s": 8, "ref_time_s": 2, "ratio_vs_sdpa": 4.0, "peak_mib": 300.0},
        {"row": "multi-head", "T": 64, "time_s": 3, "ref_time_s": 1.5, "ratio_vs_sdpa": 2.0, "peak_mib": 1.0},
        {"row": "multi-head", "T": 32, "time_s": 1, "ref_time_s": 1, "ratio_vs_sdpa": 1.0, "peak_mib": 1.0},
    ]
    s = summarise(points, BenchSpec(Ts=(32, 64)))
    assert s["T"] == 64
    assert s["window"]["time_vs_dense-mask-sdpa"] == pytest.approx(0.125)
    assert s["window"]["ok"] is True
    assert s["variants"]["multi-head"]["ok"] is False  # 2x raw SDPA misses the 1.5x target
    assert s["variants"]["sliding-window"]["ok"] is True


def test_rows_run_in_their_own_process():
    points = _run_row_child("sdpa", [16], BenchSpec(reps=1))
    assert points[0]["row"] == "sdpa" and points[0]["T"] == 16 and points[0]["peak_mib"] is not None


def test_a_failed_row_is_reported_not_fatal():
    (point,) = _run_row_child("nope", [16], BenchSpec())
    assert point["row"] == "nope" and point["error"].startswith("ValueError: unknown benchmark row 'nope'")


# ---- the Cost tab's numbers (core.bench.cost) ---------------------------------------------------


def test_square_sizes_grow_as_t_squared_and_t_times_window():
    small, big = cost.square_sizes(1024, 64), cost.square_sizes(2048, 64)
    assert big["naive"] == 4 * small["naive"] == 4 * 4 * 2048 * 2048 * 4 // 4
    assert 1.9 < big["windowed"] / small["windowed"] < 2.1  # linear in T at fixed window
    assert big["fused"] == 0


@pytest.mark.kernel_free
def test_live_measure_reports_the_trace_squares_it_held():
    rows = cost.live_measure([16, 48], window=4)
    assert [r["T"] for r in rows] == [16, 48]
    for r in rows:  # scores, scaled, masked, weights: (1, 4, T, T) fp32; mask: (1, 1, T, T) bool
        assert r["naive_mib"] == pytest.approx((4 * 4 * r["T"] ** 2 * 4 + r["T"] ** 2) / 2**20)
        assert min(r["naive_ms"], r["fused_ms"], r["windowed_ms"]) > 0
    with pytest.raises(ValueError):
        cost.live_measure([cost.LIVE_MAX_T * 2])


def test_saved_benchmark_ships_with_every_variant_at_8192(tmp_path):
    saved = cost.load_saved()
    assert saved is not None, "core/assets/bench.json is missing: run attention-lab bench --flex --out core/assets"
    at_8192 = {p["row"] for p in saved["points"] if p.get("T") == 8192}
    assert set(VARIANT_ROWS) | {"sdpa", "dense-mask-sdpa"} <= at_8192
    assert cost.saved_rows(saved) and cost.load_saved(tmp_path / "missing.json") is None


def test_measure_now_tabulates_what_it_measured_rounded_for_reading(monkeypatch):
    measured = [{"T": T, "naive_mib": T / 3, "windowed_mib": T / 7, "naive_ms": 1.23456, "fused_ms": 0.5,
                 "windowed_ms": 0.25} for T in (32, 64)]
    asked = []
    monkeypatch.setattr(cost, "live_measure", lambda Ts, window: (asked.append((Ts, window)), measured)[1])
    rows, table = cost.measure_up_to(100.0, "8")
    assert asked == [([32, 64], 8)] and rows is measured
    assert table == [[32, 10.67, 4.57, 1.23, 0.5, 0.25], [64, 21.33, 9.14, 1.23, 0.5, 0.25]]
    cost.measure_up_to(20, 8)
    assert asked[-1] == ([20], 8)  # below the first step, just the T asked for


def test_cost_tab_measure_returns_the_figure_of_the_rows_it_tabulates():
    from core.ui import cost_tab

    chart, shown = cost_tab.measure(64, 8)
    table = shown["data"]  # with its headers, in the reader's language
    assert [row[0] for row in table] == [32, 64] and len(shown["headers"]) == len(table[0])
    memory = chart["panels"][0]["series"]
    measured = [s for s in memory if s["name"].startswith("naive, measured")]
    assert measured[0]["x"] == [32, 64]  # the live points are the rows in the table
    assert [round(v, 2) for v in measured[0]["y"]] == [row[1] for row in table]
