"""core.render.charts and the charts built on it: every line and bar is the experiment's own numbers."""

import json

import pytest

from core.bench.cost import square_sizes
from core.lab.experiments import MaskParams, MaskRun, ScaleParams, ScaleRun
from core.lab.masking import sqrt_d_experiment
from core.render import charts, cost_plot, experiment_plots, lab_charts


def by_name(chart, panel=0):
    return {s["name"]: s for s in chart["panels"][panel]["series"]}


@pytest.mark.kernel_free
def test_sqrt_d_chart_plots_the_experiment_on_a_log2_axis():
    exp = sqrt_d_experiment()
    c = lab_charts.sqrt_d_chart(exp)
    unscaled = by_name(c)[lab_charts.SQRT_D["unscaled"]]
    assert unscaled["x"] == [float(d) for d in exp.dims] and unscaled["y"] == list(exp.max_weight["unscaled"])
    assert c["panels"][0]["x"]["log"] == 2 and c["panels"][1]["hlines"][0]["y"] == pytest.approx(exp.uniform_entropy)
    assert {e["text"] for e in c["legend"]} >= {lab_charts.SQRT_D["scaled"], lab_charts.SQRT_D["unscaled"]}
    json.dumps(c, allow_nan=False)


def test_causality_bars_mark_the_edited_position_and_keep_the_users_word_short():
    c = lab_charts.causality_bars([0.0, 0.0, 0.3], ["a", "b", "c"], 2, "x" * 50, True)
    p = c["panels"][0]
    assert p["type"] == "bars" and p["highlight"] == 2 and p["series"][0]["y"] == [0.0, 0.0, 0.3]
    assert p["x"]["categories"] == ["0 a", "1 b", "2 c"] and len(p["title"]) < 80


def test_mask_and_scale_charts_grow_with_the_run():
    run = MaskRun(MaskParams(steps=20), steps=[0, 1, 2], masked=[5.0, 4.0, 3.0], unmasked=[5.0, 2.0, 0.5],
                  eval_steps=[0, 2], masked_honest=[5.1, 3.2], unmasked_honest=[5.2, 6.0])
    c = experiment_plots.mask_chart(run)
    lines = by_name(c)
    assert lines[experiment_plots.MASK["unmasked"]]["y"] == [5.0, 2.0, 0.5]
    assert lines[experiment_plots.MASK["unmasked_honest"]]["dash"] is True
    assert c["panels"][0]["x"]["max"] == 19  # the axis spans the whole run while it grows
    s = ScaleRun(ScaleParams(steps=10), steps=[0, 1], uniform_entropy=1.5)
    for key in ("max_weight", "entropy", "grad_norm", "loss"):
        getattr(s, key).update(scaled=[0.5, 0.4], unscaled=[0.9, 1.0])
    sc = experiment_plots.scale_chart(s)
    assert len(sc["panels"]) == 4 and sc["panels"][2]["y"]["log"] == 10


def test_cost_chart_draws_the_square_against_the_band():
    rows = [{"T": 32, "naive_mib": 0.1, "windowed_mib": 0.05, "naive_ms": 1.0, "fused_ms": 0.5, "windowed_ms": 0.7}]
    c = cost_plot.live_chart(rows, window=16, max_T=256)
    naive = by_name(c)[cost_plot.LIVE["naive"]]
    assert naive["x"] == [16.0, 32.0, 64.0, 128.0, 256.0] and naive["y"][1] == square_sizes(32, 16)["naive"] / 2**20
    saved = cost_plot.saved_chart({"points": [{"row": "sdpa", "T": 256, "time_s": 0.01, "peak_mib": None}]})
    assert saved["panels"][0]["series"][0]["dash"] and saved["panels"][1]["series"][0]["y"] == [None]


def test_the_saved_cost_lines_each_have_a_style_of_their_own():
    """Ten lines told apart from the back of a room: no two share colour, marker and dash; each named at its end."""
    rows = ["single-head", "multi-head", "multi-head-stacked", "gqa", "sliding-window", "window-before", "trace",
            "sdpa", "dense-mask-sdpa", "flex"]
    saved = cost_plot.saved_chart({"points": [{"row": r, "T": t, "time_s": 0.01, "peak_mib": 1.0}
                                              for r in rows for t in (256, 512)]})
    for p in saved["panels"]:
        styles = {(s["color"] % 8, s["marker"], s["dash"]) for s in p["series"]}  # colour, marker, dash: codes
        assert len(styles) == 10 and p["direct_labels"] > 0 and all(s["width"] >= 4 for s in p["series"])
        assert [s["short"] for s in p["series"]] == [*rows[:-1], "FlexAttention"]


def test_chart_stamps_change_with_the_numbers():
    a = charts.chart([charts.panel("t", charts.axis("x"), charts.axis("y"), [charts.series("s", [1], [2])])])
    b = charts.chart([charts.panel("t", charts.axis("x"), charts.axis("y"), [charts.series("s", [1], [3])])])
    assert a["stamp"] != b["stamp"]
