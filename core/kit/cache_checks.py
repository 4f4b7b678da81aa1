"""The kit's cache check: what GPT.generate(use_cache=True) runs must equal the full recompute, with no cache code."""

from __future__ import annotations

import torch
from torch import Tensor

from ..fast_paths import KVCache
from ..i18n import t
from .cases import Case, describe
from .guard import CheckFailed, Guarded
from .subject import ATOL, RTOL, Subject, allclose

PIECES = ((0, 3), (3, 4), (4, 6), (6, 7), (7, 8), (8, 9))  # a 3-token prompt, then mostly one token a step


def check_cached_decoding(s: Subject) -> None:
    """Token by token through forward_cached, as generate decodes, equal to forward on the whole sequence."""
    with torch.no_grad():
        for config in s.deep:
            m, where = s.build(config), describe(config)
            for n, case in enumerate((Case(9, 1), Case(9, 3))):
                x, at = case.x(config.d_model, s.seed), f"{case}, {where}"
                full = m.forward(x, None, at)  # (B, T, d_model); first, so a fault of forward is named as such
                if n == 0 and (reason := m._call(t("the KV cache's check"), m.module.cache_blocker, where)) is not None:
                    raise CheckFailed(t("GPT.generate(use_cache=True) refuses it: {reason}", reason=reason), where)
                cached = decoded(m, x, at)  # (B, T, d_model)
                if cached.shape != full.shape or not allclose(cached, full, atol=ATOL, rtol=RTOL):
                    diff = (cached - full).abs().max().item() if cached.shape == full.shape else float("nan")
                    raise CheckFailed(t("decoding with the KV cache differs from the full recompute by {diff}",
                                        diff=format(diff, ".2g")), at)


def decoded(m: Guarded, x: Tensor, at: str) -> Tensor:
    """x (B, T, d) in the pieces generate feeds a layer, through one growing cache -> (B, T, d_model)."""
    cache = KVCache()
    return torch.cat([m._call("forward_cached", lambda a=a, b=b: m.module.forward_cached(x[:, a:b], cache), at)
                      for a, b in PIECES], dim=1)
