"""core.plots: figures come back as PNG data URLs, drawn from the data, without pyplot state."""

import base64
import io
import subprocess
import sys

import numpy as np
from PIL import Image

from core import plots


def png(url: str) -> Image.Image:
    assert url.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def test_heatmap_grid_is_a_png_that_depends_on_the_weights():
    tokens = ["The", "cat", "sat"]
    eye = np.eye(3)
    flat = np.full((3, 3), 1 / 3)
    a = plots.heatmap_grid([eye, flat], tokens, ["head 0", "head 1"])
    b = plots.heatmap_grid([eye, flat], tokens, ["head 0", "head 1"])
    c = plots.heatmap_grid([flat, flat], tokens, ["head 0", "head 1"])
    assert png(a).size[0] > 100 and png(a).size[1] > 100
    assert a == b  # deterministic: the view cache can hand back the same bytes
    assert a != c


def test_more_heads_make_a_bigger_figure_and_four_heads_are_a_square_grid():
    tokens = [str(i) for i in range(6)]
    one = png(plots.heatmap_grid([np.eye(6)], tokens, ["h"]))
    four = png(plots.heatmap_grid([np.eye(6)] * 4, tokens, list("abcd")))
    three = png(plots.heatmap_grid([np.eye(6)] * 3, tokens, list("abc")))
    assert four.size[0] > one.size[0] and four.size[1] > one.size[1]  # 2 x 2
    assert three.size[0] > four.size[0] and three.size[1] < four.size[1]  # 1 x 3


def test_tick_labels_escape_mathtext_and_replace_missing_glyphs():
    assert plots.tick_label("$x$") == r"\$x\$"
    assert plots.tick_label("cat") == "cat"
    assert plots.tick_label("你") == "U+4F60"  # DejaVu has no CJK: show the code point, not a box
    assert plots.labels(["a", "a"]) == ["0 a", "1 a"]  # repeated words stay distinct


def test_hostile_tokens_draw_without_error():
    tokens = ["$", "$x^", "\\frac{", "<img src=x onerror=alert(1)>", "你", "👍🏽", "_"]
    url = plots.heatmap_grid([np.eye(len(tokens))], tokens, ["head 0"])
    assert png(url).size[0] > 0


def test_minus_infinity_cells_are_drawn_and_written():
    m = np.array([[0.0, -np.inf], [1.0, 2.0]])
    url = plots.heatmap_grid([m], ["a", "b"], ["masked"], vmin=None, vmax=None)
    assert png(url).size[0] > 0


def test_bars_and_lines():
    assert png(plots.bars([0.0, 0.0, 0.3], ["a", "b", "c"], 2, "t", "y")).size[0] > 0
    url = plots.lines([2, 4, 8], {"s": [1, 2, 3], "u": [3, 2, 1]}, [("p", "y", ["s", "u"])], "d")
    assert png(url).size[0] > 0


def test_no_pyplot_state():
    code = (
        "import sys, numpy as np; from core import plots;"
        "plots.heatmap_grid([np.eye(2)], ['a', 'b'], ['h']);"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_mask_image_depends_only_on_the_pattern_and_is_cached():
    tri = np.tril(np.ones((5, 5), dtype=bool))
    a = plots.mask_image(tri)
    assert plots.mask_image(tri.copy()) is a  # cached across sentences of the same length
    assert plots.mask_image(np.ones((5, 5), dtype=bool)) != a
