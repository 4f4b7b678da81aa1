"""Colour maps the browser views interpolate: perceptually uniform and colour-blind safe, as hex stops.

The stops are matplotlib's own maps sampled at 11 points (tests compare them with matplotlib), so a
view drawn in the browser and the PNG exported for a worksheet use the same colours. WCAG 2.1's contrast
ratio is computed here once (web/core.js computes the same in the page): a number written in a cell is black
or white, whichever stands out more from the cell (never under 4.58:1), and a head's colour keeps 3:1 against
the page in the light and the dark scheme.
"""

from __future__ import annotations

VIRIDIS = ("#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c", "#22a884", "#44bf70", "#7ad151",
           "#bddf26", "#fde725")  # weights and other values >= 0
RDBU_R = ("#053061", "#2065ab", "#4393c3", "#90c4dd", "#d1e5f0", "#f7f6f6", "#fddbc7", "#f3a481", "#d6604d",
          "#b1182b", "#67001f")  # signed values (Q, K, V, scores): blue below 0, red above, white at 0
MAPS = {"viridis": VIRIDIS, "RdBu_r": RDBU_R}
# Okabe & Ito's eight colours, distinguishable with every common colour-vision deficiency: one per head or line.
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
# The same eight, each moved along its own hue until it keeps 3:1 against the page: darker on white (orange,
# sky blue and yellow were 1.3-2.3:1), lighter on a dark page (blue, and black that was black on black).
HEADS_LIGHT = ("#0072B2", "#D55E00", "#009E73", "#C870A1", "#BB8100", "#1C95D9", "#000000", "#8C8400")
HEADS_DARK = ("#2F8FD8", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#A0A0A0", "#F0E442")
CATEGORICAL = HEADS_LIGHT  # what the server sends (and a PNG on white draws); a dark page swaps in HEADS_DARK
BACKGROUNDS = {"light": ("#ffffff",), "dark": ("#0f0f11", "#27272a")}  # the page and a block (Gradio's neutral 950, 800)
MAY_ATTEND = "#E69F00"  # the mask view: a position a query may attend to
INKS = ("#000000", "#ffffff")  # what a number in a cell is written in


def luminance(hex_colour: str) -> float:
    """WCAG 2.1's relative luminance of "#rrggbb"."""
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2.1's contrast ratio of two colours, 1 to 21."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def ink(cell: str) -> str:
    """The text colour for a number drawn on `cell`: black or white, whichever contrasts more."""
    return max(INKS, key=lambda i: contrast(i, cell))
