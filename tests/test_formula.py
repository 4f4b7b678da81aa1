"""One formula, four paths: explicit (trace), fast (forward), cached (forward_cached) and banded agree for every variant."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from torch import Tensor

from attention_plugins.sliding_window import SlidingWindowAttention
from core import AttentionConfig, AttentionModule, Variant, hookimpl, load_registry
from core.fast_paths import BLOCK, KVCache
from core.masks import padding_mask

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ATOL = 1e-5


class Sharpened(AttentionModule):
    """Its own score and normalise (no fast_attention): every fast path must run the explicit formula."""

    def score(self, q: Tensor, k: Tensor) -> Tensor:
        return 2.0 * (q @ k.transpose(-2, -1))  # (B, H, T, T)

    def normalise(self, masked: Tensor) -> Tensor:
        return torch.softmax(masked, dim=-1) ** 2 / (torch.softmax(masked, dim=-1) ** 2).sum(-1, keepdim=True)


class SharpenedWindow(SlidingWindowAttention):
    """The banded kernel with a normalise of its own: the blocks go through the explicit formula."""

    normalise = Sharpened.normalise


@hookimpl
def register_attention_variants(register) -> None:
    register(Variant("sharpened", "Sharpened", "own score and normalise", Sharpened))
    register(Variant("sharpened-window", "Sharpened window", "banded, own normalise", SharpenedWindow,
                     options=load_registry(entry_points=False).variants["sliding-window"].options))


def _registry():
    for name in ("alibi_plugin", "linear_plugin"):
        if str(EXAMPLES / name) not in sys.path:
            sys.path.insert(0, str(EXAMPLES / name))
    import attention_lab_alibi
    import attention_lab_linear

    return load_registry(entry_points=False, plugins=[attention_lab_alibi, attention_lab_linear, sys.modules[__name__]])


REGISTRY = _registry()
CASES = [(name, {"n_kv_heads": 2} if name == "gqa" else {}) for name in sorted(REGISTRY.variants)]
CASES += [("sliding-window", {"window": 3, "stride": 5}), ("sharpened-window", {"window": 3, "stride": 4})]


def _build(name: str, options: dict, causal: bool = True) -> AttentionModule:
    torch.manual_seed(0)
    config = AttentionConfig(d_model=16, n_heads=4, causal=causal, options=options)
    return REGISTRY.build(name, config).eval()


@pytest.mark.floats
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("name, options", CASES, ids=[f"{n}-{o}" if o else n for n, o in CASES])
def test_fast_explicit_cached_and_banded_paths_agree(name, options, causal):
    layer = _build(name, options, causal)
    T = BLOCK + 20  # past BLOCK + window: a sliding window runs its banded kernel
    x = torch.randn(2, T, 16, generator=torch.Generator().manual_seed(1))
    kpm = padding_mask([T, T - 9], T)
    with torch.no_grad():
        for mask in (None, kpm):
            fast, explicit = layer(x, key_padding_mask=mask), layer.trace(x, key_padding_mask=mask).output
            assert torch.allclose(fast, explicit, atol=ATOL), f"{name}: forward and trace differ"
        if causal and layer.cache_blocker() is None:
            cache = KVCache()
            pieces = [layer.forward_cached(x[:, a:b], cache) for a, b in ((0, 5), (5, 6), (6, 20), (20, T))]
            assert torch.allclose(torch.cat(pieces, dim=1), layer(x), atol=ATOL), f"{name}: cached and forward differ"


def test_a_variant_with_its_own_formula_is_cached_exactly():
    assert _build("sharpened", {}).cache_blocker() is None
    assert _build("sharpened-window", {"window": 3, "stride": 0}).cache_blocker() is None
