"""Checks that no token reads the future: perturb a later token or backpropagate, and watch the earlier rows."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial

import torch
from torch import Tensor

from ..i18n import t
from .cases import AUTOGRAD_LENGTHS, Case
from .guard import CheckFailed, Guarded
from .subject import Subject, equal


def perturb_position(x: Tensor, position: int, seed: int = 0) -> Tensor:
    """A copy of x with token `position` replaced by a different random vector (every batch row)."""
    g = torch.Generator().manual_seed(seed)
    changed = x.clone()
    changed[:, position] = torch.randn(x.shape[0], x.shape[-1], generator=g, dtype=x.dtype).to(x.device)
    return changed


def probe_positions(T: int, seed: int = 0) -> list[int]:
    """Which tokens to perturb: all of them up to T=9; beyond, both sides of every power of two, the last, and 6 drawn."""
    if T <= 9:
        return list(range(1, T))
    near = {p + d for p in (1, 2, 4, 8, 16, 32, 64) for d in (-1, 0, 1)} | {T - 1}
    drawn = random.Random(seed * 7919 + T).sample(range(1, T), 6)
    return sorted(p for p in near | set(drawn) if 1 <= p < T)


def _first_leak(fn: Callable[[Tensor], Tensor], x: Tensor, seed: int = 0) -> tuple[int, int] | None:
    """Perturb token p (see probe_positions); every output row before p must stay byte-identical.
    The first leak: (the earlier token that changed, the later token p), or None."""
    base = fn(x)
    for p in probe_positions(x.shape[1], seed):
        changed = fn(perturb_position(x, p, seed=p))
        if not equal(base[:, :p], changed[:, :p]):
            return next(i for i in range(p) if not equal(base[:, i], changed[:, i])), p
    return None


def _check_causal(s: Subject, path: str) -> None:
    """One probe for both paths: the views come from trace, the model runs forward, and neither may leak."""
    with torch.no_grad():
        for m, case, x, where in s.runs(every_case=False):
            if path == "trace" and case.padded:
                continue  # the traced path is dearer; padding is probed on forward and compared by the next checks
            pad = case.padding()
            fn = partial(_forward_output if path == "forward" else _trace_output, m, pad=pad, where=where)
            leak = _first_leak(fn, x, s.seed)
            if leak:
                raise CheckFailed(t("{path} reads the future: token {first} changed when token {p} did", path=path,
                                    first=leak[0], p=leak[1]), where)


def _forward_output(m: Guarded, x: Tensor, pad: Tensor | None, where: str) -> Tensor:
    """forward as a function of x alone, for _first_leak."""
    return m.forward(x, pad, where)


def _trace_output(m: Guarded, x: Tensor, pad: Tensor | None, where: str) -> Tensor:
    """trace's output as a function of x alone, for _first_leak."""
    return m.trace(x, pad, where).output


def check_causal_forward(s: Subject) -> None:
    """The model and generation run forward: a later token must never change an earlier output."""
    _check_causal(s, "forward")


def check_causal_trace(s: Subject) -> None:
    """The app's views come from trace: it must be as causal as forward."""
    _check_causal(s, "trace")


def check_causal_autograd(s: Subject) -> None:
    """Backpropagate a random direction from each output row i; inputs j > i must get exactly zero gradient."""
    g = torch.Generator().manual_seed(1)
    for m, case, x, where in s.runs(lengths=AUTOGRAD_LENGTHS, every_case=False):
        x = x.clone().requires_grad_(True)
        out = m.forward(x, case.padding(), where)  # (B, T, d)
        for i in (p - 1 for p in probe_positions(case.T, s.seed)):
            (grad,) = torch.autograd.grad(out[:, i], x, torch.randn(out[:, i].shape, generator=g), retain_graph=True,
                                          allow_unused=True)
            if grad is None:
                continue
            later = grad[:, i + 1 :].abs().amax(dim=(0, 2))  # (T - i - 1,)
            if later.max() > 0:
                j = i + 1 + int(later.nonzero()[0])
                raise CheckFailed(t("the gradient of output {i} with respect to later input {j} is not zero", i=i, j=j),
                                  where)


def check_control_sees_future(s: Subject) -> None:
    """The mask toggle must do something: with causal=False an earlier token reacts to a later one."""
    m, case = s.build(causal=False), Case(7, 3)
    x = case.x(s.base.d_model, s.seed)
    with torch.no_grad():
        out, changed = m.forward(x, None, str(case)), m.forward(perturb_position(x, case.T - 1, seed=99), None, str(case))
    if equal(out[:, : case.T - 1], changed[:, : case.T - 1]):
        raise CheckFailed(t("with causal=False no earlier token reacts to a later one; honour config.causal "
                            "(or pick options that let a token see further)"))
