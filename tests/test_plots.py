"""core.render.plots: how tokens are labelled in exported figures; figures never touch pyplot state."""

import subprocess
import sys

from core.render import plots


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


def test_no_pyplot_state():
    code = (
        "import sys, numpy as np; from core.render import export, matrix;"
        "export.png(matrix.heatmaps(['a', 'b'], [np.eye(2)], ['h']));"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
