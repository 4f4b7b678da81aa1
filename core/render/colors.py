"""Colour maps the browser views interpolate: perceptually uniform and colour-blind safe, as hex stops.

The stops are matplotlib's own maps sampled at 11 points (tests compare them with matplotlib), so a
view drawn in the browser and the PNG exported for a worksheet use the same colours.
"""

from __future__ import annotations

VIRIDIS = ("#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c", "#22a884", "#44bf70", "#7ad151",
           "#bddf26", "#fde725")  # weights and other values >= 0
RDBU_R = ("#053061", "#2065ab", "#4393c3", "#90c4dd", "#d1e5f0", "#f7f6f6", "#fddbc7", "#f3a481", "#d6604d",
          "#b1182b", "#67001f")  # signed values (Q, K, V, scores): blue below 0, red above, white at 0
MAPS = {"viridis": VIRIDIS, "RdBu_r": RDBU_R}
# Okabe & Ito's eight colours, distinguishable with every common colour-vision deficiency: one per head or line.
CATEGORICAL = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
MAY_ATTEND = "#E69F00"  # the mask view: a position a query may attend to
