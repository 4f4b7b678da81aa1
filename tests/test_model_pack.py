"""The model view travels in one uint16 string: the page gets the same weights to 1.5e-5, the export the float32."""

from __future__ import annotations

import json

import numpy as np

from core.render import matrix, model_pack


def test_the_compact_view_carries_every_head_to_within_the_hovers_precision():
    rng = np.random.default_rng(0)
    w = rng.random((3, 4, 20, 20))
    w = np.tril(w) / np.tril(w).sum(-1, keepdims=True)  # rows sum to 1, zero above the diagonal
    allowed = np.tril(np.ones((20, 20), dtype=bool))
    titles = [[f"L{la} H{h}" for h in range(4)] for la in range(3)]
    full = matrix.model_view([f"t{i}" for i in range(20)], w, titles, titles, (2, 0), allowed=allowed)
    small = model_pack.compact(full, w)
    assert np.abs(model_pack.expanded(small) - w).max() <= 1 / 65535  # a hover shows 2 decimals
    assert (model_pack.blocked(small) == ~allowed).all()
    assert small["stamp"] == full["stamp"] and small["layers"][1][2] == {"title": "L1 H2"}
    assert len(json.dumps(small)) < 0.5 * len(json.dumps(full))
