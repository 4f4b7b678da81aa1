"""Deterministic weights: the same seed gives the same layer, whatever other threads draw meanwhile."""

from __future__ import annotations

import math

import torch
from torch import nn

SEED_MAX = 2**32 - 1  # every seed a person types, in every tab and endpoint: 0 to 4294967295 (torch takes 64 bits)


def seeded_init(module: nn.Module, seed: int) -> nn.Module:
    """Draw every weight from a private generator (torch's global RNG is never touched).

    Linear layers follow PyTorch's default bound U(-1/sqrt(fan_in), 1/sqrt(fan_in)); other
    parameters (a plugin's raw matrices) use 1/sqrt of their last dimension.
    """
    g = torch.Generator().manual_seed(int(seed))
    done: set[int] = set()
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.Linear):
                bound = 1 / math.sqrt(m.in_features)
                for p in (m.weight, m.bias):
                    if p is not None:
                        p.copy_(torch.rand(p.shape, generator=g) * 2 * bound - bound)
                        done.add(id(p))
        for _, p in module.named_parameters():
            if id(p) not in done:
                bound = 1 / math.sqrt(p.shape[-1] if p.dim() else 1)
                p.copy_(torch.rand(p.shape, generator=g) * 2 * bound - bound)
    return module
