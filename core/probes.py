"""Probes that test a module from the outside: perturb inputs, differentiate, compare."""

from __future__ import annotations

import torch
from torch import Tensor, nn


def row_max_abs_diff(module: nn.Module, x: Tensor, x_changed: Tensor, **kwargs) -> Tensor:
    """Max |output change| per output row when x becomes x_changed.  (B, T, d) -> (T,) for batch 0."""
    with torch.no_grad():
        out, out_changed = module(x, **kwargs), module(x_changed, **kwargs)  # (B, T, d)
    return (out - out_changed).abs().amax(dim=-1)[0]  # (T,)


def perturb_position(x: Tensor, position: int, seed: int = 0) -> Tensor:
    """A copy of x with token `position` replaced by a different random vector (every batch row)."""
    g = torch.Generator().manual_seed(seed)
    changed = x.clone()
    changed[:, position] = torch.randn(x.shape[0], x.shape[-1], generator=g, dtype=x.dtype).to(x.device)
    return changed


def dependency_matrix(module: nn.Module, x: Tensor, **kwargs) -> Tensor:
    """|d out_i / d x_j| from autograd: the Frobenius norm of each (d, d) Jacobian block.  -> (T, T)"""
    x0 = x[:1].detach()  # (1, T, d)

    def f(inp: Tensor) -> Tensor:
        return module(inp[None], **kwargs)[0]  # (T, d) -> (T, d)

    jac = torch.autograd.functional.jacobian(f, x0[0], vectorize=True)  # (T, d, T, d)
    return jac.pow(2).sum(dim=(1, 3)).sqrt()  # (T_out, T_in)


def __getattr__(name: str):
    """Re-export the conformance kit lazily (it imports this module, so no import cycle)."""
    if name in ("check_variant", "CheckReport", "CheckFailed"):
        from . import conformance

        return getattr(conformance, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
