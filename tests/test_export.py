"""PNG export: any view the page was sent, drawn once by matplotlib; a page cannot make the server draw other numbers."""

import io
import os

import numpy as np
import pytest
from PIL import Image

from core.config import ConfigError
from core.render import charts, export, matrix
from core.serve import exports


def image(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data))


def test_heatmaps_model_view_and_charts_export_as_png():
    heat = matrix.heatmaps(["The", "$x^", "你", "🎉", "<img src=x>"], [np.eye(5)] * 4, list("abcd"),
                           blocked=~np.tril(np.ones((5, 5), dtype=bool)))
    a = image(export.png(heat))
    assert a.format == "PNG" and a.size[0] > 500 and a.size[1] > 500
    other = matrix.heatmaps(["The", "$x^", "你", "🎉", "<img src=x>"], [np.eye(5) * 0.5] * 4, list("abcd"))
    assert export.png(other) != export.png(heat)
    model = matrix.model_view(list("abc"), np.random.default_rng(0).random((2, 2, 3, 3)), [["t"] * 2] * 2,
                              [["d"] * 2] * 2, (0, 1))
    assert image(export.png(model)).size[0] > 300
    chart = charts.chart([charts.panel("t", charts.axis("x", log=2), charts.axis("y", log=10),
                                       [charts.series("a", [2, 4, 8], [1, 10, None]), charts.series("b", [2], [3])])])
    assert image(export.png(chart)).size[0] > 300
    with pytest.raises(ValueError):
        export.png({"kind": "nope"})


def test_only_views_the_server_sent_are_drawn_and_each_once(tmp_path, monkeypatch):
    drawn = []
    monkeypatch.setattr(export, "png", lambda v, png=export.png: drawn.append(v["stamp"]) or png(v))  # loaded on use
    view = exports.remember(matrix.heatmaps(["a", "b"], [np.eye(2)], ["h"]))
    first = exports.png_file({"stamp": view["stamp"], "heads": "ignored"}, folder=str(tmp_path))
    assert exports.png_file({"stamp": view["stamp"]}, folder=str(tmp_path)) == first and drawn == [view["stamp"]]
    assert len(os.listdir(tmp_path)) == 1 and open(first, "rb").read()[:4] == b"\x89PNG"
    with pytest.raises(ConfigError, match="no longer on the server"):
        exports.png_file({"stamp": "0123456789abcdef", "kind": "heatmaps"})
    with pytest.raises(ConfigError):
        exports.png_file("<img src=x onerror=alert(1)>")


def test_the_png_folder_stays_under_its_budget(tmp_path):
    from core.serve.files import written_once

    paths = [written_once(str(tmp_path), f"f{i}.png", lambda: b"x" * 1000, max_bytes=5000) for i in range(12)]
    assert sum(f.stat().st_size for f in tmp_path.iterdir()) <= 5000
    assert os.path.exists(paths[-1]) and not os.path.exists(paths[0])  # the oldest went first
