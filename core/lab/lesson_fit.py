"""Will a step fit one 1024×768 screen? An estimate from its file alone, for `attention-lab lesson check` to warn.

At 1024×768 the step's text starts 257 px down the page (the app's title, the tab bar, the lesson bar), in a column
472 px wide, at 20 px (titles at 25 px); the check and the step's controls follow it. The view beside it is fitted
to the screen by the app itself. So a step fits when

    text + CHECK + EXPECT per expectation + its controls  <=  ROOM = 768 - 257 = 511 px

with the text laid out line by line as the page does it: each ASCII character as wide as in DejaVu Sans (the sans
serif a Debian browser uses; other systems' are narrower, so the estimate errs tall), a Chinese or Japanese
character 1 em, words wrapped whole; a paragraph line 27 px, a title line 32.5 px, a code line 24 px, an image
IMAGE px (its largest), the margins between blocks. CHECK is 104 px, four lines of the check (the built-in steps'
checks run from one to seven lines: a long one is the view's, not the file's). Measured in Chromium on the built-in
lessons, the estimate is within 7% of every step's drawn text in both languages (tests/test_browser_lessons.py
holds it to 10%); docs/lessons.md, "One screen", says it in words.
"""

from __future__ import annotations

import math
import unicodedata

from .lesson_markdown import parser

TOP = 257  # px from the top of a 1024×768 page to the step's text
ROOM = 768 - TOP  # px for the text, the check and the controls
WIDTH = 472  # px: the text's column at 1024 px
FONT, TITLE_FONT = 20, 25  # px
LINE, TITLE_LINE, CODE_LINE = 27, 32.5, 24  # px per line of a paragraph, a title, a code block
GAP, TITLE_GAP, CODE_PAD = 10, 8, 20  # px after a paragraph or a list, after the title; a code block's padding
WIDE_EM = 1.0  # a Chinese or Japanese character (em)
# The advance of each ASCII character from ' ' to '~' (em) in DejaVu Sans and its bold (titles), the sans serif a
# Debian browser draws the page with; other systems' fonts are narrower, so the estimate errs on the tall side.
ASCII = (0.318, 0.401, 0.46, 0.838, 0.636, 0.95, 0.78, 0.275, 0.39, 0.39, 0.5, 0.838, 0.318, 0.361, 0.318, 0.337,
         *(0.636,) * 10, 0.337, 0.337, 0.838, 0.838, 0.838, 0.531, 1.0, 0.684, 0.686, 0.698, 0.77, 0.632, 0.575, 0.775,
         0.752, 0.295, 0.295, 0.656, 0.557, 0.863, 0.748, 0.787, 0.603, 0.787, 0.695, 0.635, 0.611, 0.732, 0.684, 0.989,
         0.685, 0.611, 0.685, 0.39, 0.337, 0.39, 0.838, 0.5, 0.5, 0.613, 0.635, 0.55, 0.635, 0.615, 0.352, 0.635, 0.634,
         0.278, 0.278, 0.579, 0.278, 0.974, 0.634, 0.612, 0.635, 0.635, 0.411, 0.521, 0.392, 0.634, 0.592, 0.818, 0.592,
         0.592, 0.525, 0.636, 0.337, 0.636, 0.838)
BOLD = (0.348, 0.456, 0.521, 0.838, 0.696, 1.002, 0.872, 0.306, 0.457, 0.457, 0.523, 0.838, 0.38, 0.415, 0.38, 0.365,
        *(0.696,) * 10, 0.4, 0.4, 0.838, 0.838, 0.838, 0.58, 1.0, 0.774, 0.762, 0.734, 0.83, 0.683, 0.683, 0.821, 0.837,
        0.372, 0.372, 0.775, 0.637, 0.995, 0.837, 0.85, 0.733, 0.85, 0.77, 0.72, 0.682, 0.812, 0.774, 1.103, 0.771,
        0.724, 0.725, 0.457, 0.365, 0.457, 0.838, 0.5, 0.5, 0.675, 0.716, 0.593, 0.716, 0.678, 0.435, 0.716, 0.712,
        0.343, 0.343, 0.665, 0.343, 1.042, 0.712, 0.687, 0.716, 0.716, 0.493, 0.595, 0.478, 0.712, 0.652, 0.924, 0.645,
        0.652, 0.582, 0.712, 0.365, 0.712, 0.838)
OTHER_EM = 0.62  # any other character (é, ü, √, →, ·)
CHECK = 104  # px: four lines of the check
EXPECT = 26  # px: one more line of the check for each `expect:` (what it measured, under the view's own check)
IMAGE = 300  # px: an image's largest height in a step (the page's CSS)
CONTROLS = {"causal": 40, "scaled": 40, "sentence": 95, "mistake": 83, "mode": 83}  # px each, as drawn


def _em(ch: str, table: tuple[float, ...]) -> float:
    if " " <= ch <= "~":
        return table[ord(ch) - 32]
    return WIDE_EM if unicodedata.east_asian_width(ch) in ("W", "F") else OTHER_EM


def _width(text: str, font: int) -> float:
    """A run of text's width in px at this font size (a title's: bold)."""
    table = BOLD if font == TITLE_FONT else ASCII
    return sum(_em(ch, table) for ch in text) * font


def lines(text: str, font: int = FONT, width: float = WIDTH) -> int:
    """How many lines text takes in a column: words wrapped whole, a wide character a word of its own (a line may
    break before or after it with no space)."""
    pieces: list[tuple[str, bool]] = []  # (a piece that does not break, whether a space comes before it)
    for part in text.split():
        run, spaced = "", True
        for ch in part:
            if unicodedata.east_asian_width(ch) in ("W", "F"):
                if run:
                    pieces.append((run, spaced))
                    spaced = False
                pieces.append((ch, spaced))
                run, spaced = "", False
            else:
                run += ch
        if run:
            pieces.append((run, spaced))
    count, used = 1, 0.0
    space = _width(" ", font)
    for piece, spaced in pieces:
        w = _width(piece, font)
        gap = space if used and spaced else 0.0
        if used and used + gap + w > width:
            count, used, gap = count + 1, 0.0, 0.0
        used += gap + w
        if used > width:  # a word longer than the line
            extra = math.ceil(used / width) - 1
            count, used = count + extra, used - extra * width
    return count


def _plain(token) -> str:
    """An inline token's text as the page shows it (no ** or ` marks)."""
    return parser().renderer.renderInlineAsText(token.children or [], parser().options, {})


def text_height(title: str, text: str) -> int:
    """The px a step's title and text take in its column, block by block as markdown-it reads them."""
    px = lines(title, TITLE_FONT) * TITLE_LINE + TITLE_GAP
    depth = 0
    for token in parser().parse(text):
        if token.type in ("bullet_list_open", "ordered_list_open", "blockquote_open"):
            depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close", "blockquote_close"):
            depth -= 1
            px += GAP if depth == 0 else 0
        elif token.type == "inline":
            indent = 30 * depth
            words = _plain(token).replace("\n", " ")  # (a soft line break is a space)
            px += lines(words, FONT, WIDTH - indent) * LINE if words.strip() else 0
            px += IMAGE * sum(child.type == "image" for child in token.children or ())
        elif token.type == "paragraph_close" and depth == 0:
            px += GAP
        elif token.type in ("fence", "code_block"):
            px += len(token.content.rstrip("\n").split("\n")) * CODE_LINE + CODE_PAD + GAP
        elif token.type == "hr":
            px += 2 * GAP
    return px


def height(step) -> int:
    """A step's estimated px from the top of its text to the bottom of its last control (with CHECK for its check)."""
    return round(text_height(step.title, step.text) + CHECK + EXPECT * len(getattr(step, "expect", ()))
                 + sum(CONTROLS.get(c, 40) for c in step.controls))
