"""Numbers for the page, apart from its words: a matrix packed for the wire (and read back) and the colour bar.

Kept out of core.render.matrix so what only reads or colours a view's numbers (checks, PNG exports, the model
pack) needs none of its labels, i18n or lab measurements; the contract they fill: core.render.matrix.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from . import colors


def packed(values: Any, dtype: str = "f32") -> dict:
    """A matrix for the page as one base64 string: {"f32": ..., "shape": [R, C]} (little-endian float32, -inf and
    NaN kept) or {"u8": ...} for 0/1 flags. A string costs Gradio and the page nothing per number; nested lists
    of 32,768 numbers cost seconds (measured in docs/app.md)."""
    a = np.ascontiguousarray(values, dtype="<f4" if dtype == "f32" else np.uint8)
    return {dtype: base64.b64encode(a.tobytes()).decode("ascii"), "shape": list(a.shape)}


def unpacked(value: Any) -> np.ndarray:
    """The matrix of a packed dict or of nested lists ("-inf"/"inf" strings, null as NaN)."""
    if isinstance(value, dict):
        kind = "f32" if "f32" in value else "u8"
        dtype = "<f4" if kind == "f32" else np.uint8
        return np.frombuffer(base64.b64decode(value[kind]), dtype=dtype).reshape(value["shape"])
    return np.array([[np.nan if v is None else float(v) for v in row] for row in value], dtype=float)


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    return [round(lo + (hi - lo) * k / (n - 1), 6) for k in range(n)]


def weight_scale(lo: float = 0.0, hi: float = 1.0) -> dict:
    """Weights: viridis from lo (usually 0) to hi (usually 1)."""
    return {"min": lo, "max": hi, "stops": list(colors.VIRIDIS), "ticks": _ticks(lo, hi), "digits": 2}


def signed_scale(values: Any) -> dict:
    """Signed numbers (Q, K, V, scores): diverging around 0, symmetric, so white means 0."""
    a = np.asarray(values, dtype=float)
    finite = a[np.isfinite(a)]
    m = float(np.abs(finite).max()) if finite.size else 1.0
    m = m or 1.0
    return {"min": -m, "max": m, "stops": list(colors.RDBU_R), "ticks": _ticks(-m, m), "digits": 2}


def value_scale(values: Any) -> dict:
    """Any matrix: signed if it has negatives, else 0 to its largest value."""
    a = np.asarray(values, dtype=float)
    finite = a[np.isfinite(a)]
    if finite.size and finite.min() < 0:
        return signed_scale(a)
    return weight_scale(0.0, float(finite.max()) if finite.size and finite.max() > 0 else 1.0)


def fitted_scale(w: Any) -> dict:
    """Weights of a long sentence: 0 to their 95th percentile (rounded up to 0.05), so rows of small weights show;
    the first rows' large weights are drawn at full colour (the page fits its own weights the same way)."""
    v = np.sort(np.asarray(w, dtype=float)[np.asarray(w) > 0])  # (blocked weights are exactly 0)
    top = float(v[int(0.95 * (v.size - 1))]) if v.size else 1.0
    top = min(1.0, max(0.05, np.ceil(top * 20 - 1e-9) / 20))  # (the page rounds the same way)
    return weight_scale(0.0, top)
