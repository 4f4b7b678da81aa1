"""The model view for the page in one string: every layer x head's weights as 16-bit fractions of the scale.

matrix.model_view packs each head as float32 (and repeats the mask per head): for GPT-2 on 20 tokens
that is ~0.5 MB a toggle. Here the same numbers travel as one base64 uint16 array (L, H, T, T) of
round(65535 * (w - min) / (max - min)) — 1.5e-5 apart, far below the 2 decimals a hover shows — and the
mask once (or each distinct mask once, with each layer's index: a sliding-window layer's band, a global one's
triangle); modelview.js decodes it. The PNG export redraws the float32 dict
(core.serve.real_model.png_file).
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from .scales import unpacked

STEPS = 65535


def compact(view: dict[str, Any], weights: Any) -> dict[str, Any]:
    """The model view dict with its matrices as one "values" {"u16", "shape"} (a key the page's translation never
    walks into) and the mask once, "blocked_all"."""
    w = np.asarray(weights, dtype=float)  # (L, H, T, T)
    lo, hi = view["scale"]["min"], view["scale"]["max"]
    q = np.clip(np.rint((w - lo) / ((hi - lo) or 1.0) * STEPS), 0, STEPS).astype("<u2")
    out = {k: v for k, v in view.items() if k != "layers"}
    out["layers"] = [[{"title": head["title"]} for head in layer] for layer in view["layers"]]
    out["values"] = {"u16": base64.b64encode(q.tobytes()).decode("ascii"), "shape": list(q.shape)}
    masks = [layer[0]["blocked"] for layer in view["layers"] if layer and "blocked" in layer[0]]
    if masks and len(masks) == len(view["layers"]):
        unique = list({m["u8"]: m for m in masks}.values())  # a sliding layer's band and a global layer's triangle
        if len(unique) == 1:
            out["blocked_all"] = unique[0]
        else:
            out["blocked_masks"] = unique
            out["blocked_index"] = [next(i for i, u in enumerate(unique) if u["u8"] == m["u8"]) for m in masks]
    return out


def expanded(packed: dict[str, Any]) -> np.ndarray:
    """The (L, H, T, T) weights a compact view carries, as the page decodes them."""
    q = np.frombuffer(base64.b64decode(packed["values"]["u16"]), dtype="<u2").reshape(packed["values"]["shape"])
    lo, hi = packed["scale"]["min"], packed["scale"]["max"]
    return lo + q.astype(float) / STEPS * (hi - lo)


def blocked(packed: dict[str, Any], layer: int = 0) -> np.ndarray | None:
    """The (T, T) mask a compact view carries for `layer` (True = blocked), or None."""
    if "blocked_masks" in packed:
        return unpacked(packed["blocked_masks"][packed["blocked_index"][layer]]).astype(bool)
    return unpacked(packed["blocked_all"]).astype(bool) if "blocked_all" in packed else None
