"""What a KV cache really holds after a prompt: each layer's kept keys and values, one row per token.

The Generate tab draws them so a student sees a generated word add one row to K and to V in every
layer. The rows come from the model's own cache (core.gpt.decode.Decoder, the path generation uses), never
from a formula written here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from ..config import ConfigError
from ..gpt.decode import Decoder
from ..i18n import mark, t
from ..model import GPT

MESSAGES = {"empty": mark("the sentence has no tokens; type at least one word")}


@dataclass(frozen=True)
class CacheRows:
    """Each layer's cache after the prompt: K and V (kept tokens x values), and where those tokens sit."""

    positions: list[int]  # absolute position of each kept token, oldest first (a rolling cache drops some)
    keys: Tensor  # (n_layers, kept, Hkv * hd): the layer's K for kept token i, its heads side by side
    values: Tensor  # (n_layers, kept, Hkv * hd)
    kv_heads: int
    head_dim: int
    layer_shape: tuple[int, int, int, int]  # K (and V) in each layer: (batch 1, Hkv, kept, hd)
    bytes_per_token: int  # K and V of one more token, every layer, in the cache's own dtype
    cache_bytes: int  # every layer's K and V as kept now


@torch.no_grad()
def cache_rows(model: GPT, ids: Sequence[int]) -> CacheRows:
    """Run the prompt into a fresh cache, as generation does, and read back what each layer kept."""
    if not ids:
        raise ConfigError(t(MESSAGES["empty"]))
    cache = Decoder(model, torch.tensor([list(ids)]), use_cache=True).cache
    first = cache[0].keys  # (1, Hkv, kept, hd)
    _, Hkv, kept, hd = first.shape

    def flat(t: Tensor) -> Tensor:
        return t[0].permute(1, 0, 2).reshape(kept, Hkv * hd)  # (Hkv, kept, hd) -> (kept, Hkv * hd)

    keys = torch.stack([flat(c.keys) for c in cache])  # (L, kept, Hkv * hd)
    values = torch.stack([flat(c.values) for c in cache])  # (L, kept, Hkv * hd)
    per_token = 2 * len(cache) * Hkv * hd * first.element_size()
    return CacheRows(
        positions=cache[0].positions.tolist(), keys=keys, values=values, kv_heads=Hkv, head_dim=hd,
        layer_shape=(1, Hkv, kept, hd), bytes_per_token=per_token, cache_bytes=sum(c.nbytes for c in cache),
    )
