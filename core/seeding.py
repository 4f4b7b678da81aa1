"""Deterministic weights: the same seed gives the same layer, whatever other threads draw meanwhile."""

from __future__ import annotations

import math
from fnmatch import fnmatchcase

import torch
from torch import nn

SEED_MAX = 2**32 - 1  # every seed a person types, in every tab and endpoint: 0 to 4294967295 (torch takes 64 bits)


def seeded_init(module: nn.Module, seed: int) -> nn.Module:
    """Draw every weight from a private generator (torch's global RNG is never touched).

    Linear layers follow PyTorch's default bound U(-1/sqrt(fan_in), 1/sqrt(fan_in)); other
    parameters (a plugin's raw matrices) use 1/sqrt of their last dimension. A submodule's
    `keep_init` (parameter names or patterns, "*" = all) keeps what its __init__ set; their draws
    are still taken, so keeping one parameter never changes the numbers of the others.
    """
    g = torch.Generator().manual_seed(int(seed))
    kept = kept_parameters(module)
    done: set[int] = set()

    def draw(p: nn.Parameter, bound: float) -> None:
        values = torch.rand(p.shape, generator=g) * 2 * bound - bound
        if id(p) not in kept:
            p.copy_(values)
        done.add(id(p))

    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.Linear):
                for p in (m.weight, m.bias):
                    if p is not None:
                        draw(p, 1 / math.sqrt(m.in_features))
        for _, p in module.named_parameters():
            if id(p) not in done:
                draw(p, 1 / math.sqrt(max(p.shape[-1], 1) if p.dim() else 1))  # a zero-width matrix draws nothing
    return module


def kept_parameters(module: nn.Module) -> set[int]:
    """ids of the parameters some submodule's keep_init names (relative to that submodule), so the draw skips them."""
    kept: set[int] = set()
    for m in module.modules():
        patterns = getattr(type(m), "keep_init", ())
        patterns = (patterns,) if isinstance(patterns, str) else tuple(patterns)
        if patterns:
            kept.update(id(p) for name, p in m.named_parameters() if any(fnmatchcase(name, pat) for pat in patterns))
    return kept
