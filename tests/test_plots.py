"""core.render.plots: figures come back as PNG data URLs, drawn from the data, without pyplot state."""

import base64
import io
import subprocess
import sys

from PIL import Image

from core.render import plots


def png(url: str) -> Image.Image:
    assert url.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def test_tick_labels_escape_mathtext_and_replace_missing_glyphs():
    assert plots.tick_label("$x$") == r"\$x\$"
    assert plots.tick_label("cat") == "cat"
    assert plots.tick_label("𓀀") == "U+13000"  # no font of ours has it: show the code point, not a box


def test_cjk_tokens_keep_their_characters_through_the_fallback_font():
    # the CJK font comes from Debian's fonts-wqy-microhei (packages.txt on a Space, .ci/run and make test here)
    assert len(plots.font_family()) == 2, "no CJK font installed: apt-get install fonts-wqy-microhei"
    assert plots.tick_label("你") == "你" and plots.tick_label("语言") == "语言"
    assert plots.labels(["我", "爱"]) == ["0 我", "1 爱"]
    assert plots.labels(["a", "a"]) == ["0 a", "1 a"]  # repeated words stay distinct


def test_long_tokens_are_cut_in_their_labels():
    assert plots.tick_label("x" * 40) == "x" * (plots.MAX_LABEL - 1) + "…"
    assert plots.tick_label("$" * 40).count("$") == plots.MAX_LABEL - 1  # cut first, then escaped whole


def test_bars_and_lines_are_drawn_from_their_numbers():
    bars = plots.bars([0.0, 0.0, 0.3], ["a", "b", "c"], 2, "t", "y")
    assert bars == plots.bars([0.0, 0.0, 0.3], ["a", "b", "c"], 2, "t", "y")  # deterministic
    assert bars != plots.bars([0.0, 0.0, 0.3], ["a", "b", "c"], 0, "t", "y")  # the highlight moves
    assert bars != plots.bars([0.0, 0.2, 0.3], ["a", "b", "c"], 2, "t", "y")  # so does a value
    rising = plots.lines([2, 4, 8], {"s": [1, 2, 3], "u": [3, 2, 1]}, [("p", "y", ["s", "u"])], "d")
    assert rising != plots.lines([2, 4, 8], {"s": [1, 2, 4], "u": [3, 2, 1]}, [("p", "y", ["s", "u"])], "d")
    assert png(rising).size[0] > png(bars).size[0] / 2


def test_no_pyplot_state():
    code = (
        "import sys, numpy as np; from core.render import heatmap; from core.render import plots;"
        "heatmap.heatmap_grid([np.eye(2)], ['a', 'b'], ['h']); plots.bars([1.0], ['a'], 0, 't', 'y');"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
