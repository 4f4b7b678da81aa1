"""Checks on what forward and trace return: shapes and finite values, the same answer twice, rows, padding, batches."""

from __future__ import annotations

import torch
from torch import Tensor

from ..i18n import t
from .cases import Case
from .guard import CheckFailed
from .subject import ATOL, RTOL, Subject, allclose, equal


def check_shapes_and_values(s: Subject) -> None:
    """Forward and trace at every length, batch and padding: right shapes, no NaN, no inf (the guard checks)."""
    with torch.no_grad():
        for m, case, x, where in s.runs():
            m.forward(x, case.padding(), where)
            m.trace(x, case.padding(), where)


def check_same_answer_twice(s: Subject) -> None:
    """The same input twice gives the same output: no hidden state, no randomness in eval mode."""
    with torch.no_grad():
        for m, case, x, where in s.runs(lengths=(9,)):
            first, again = m.forward(x, case.padding(), where), m.forward(x, case.padding(), where)
            if not equal(first, again):
                raise CheckFailed(t("forward gave a different answer for the same input the second time; "
                                    "keep no state between calls and no randomness in eval mode"), where)


def check_rows_sum_to_one(s: Subject) -> None:
    """The heatmaps show each row as a distribution over keys: no negative weight, every real row sums to 1."""
    with torch.no_grad():
        for m, case, x, where in s.runs():
            tr = m.trace(x, case.padding(), where)
            rows = _real_rows(tr.weights, case)  # (real queries, H, T)
            if (rows < 0).any():
                raise CheckFailed(t("some attention weights are negative; declare normalised=False if they may be"),
                                  where)
            if not allclose(rows.sum(-1), torch.ones_like(rows.sum(-1)), atol=ATOL):
                raise CheckFailed(t("a row of attention weights does not sum to 1; declare normalised=False "
                                    "if the weights are not a distribution over keys"), where)


def check_padding(s: Subject) -> None:
    """A batch pads short sentences: padding rows stay zero and real tokens answer as they would alone."""
    with torch.no_grad():
        for m, case, x, where in s.runs():
            if not case.padded:
                continue
            pad = case.padding()
            out, tr = m.forward(x, pad, where), m.trace(x, pad, where)
            if out[~pad].abs().max() > 0 or tr.weights.permute(0, 2, 1, 3)[~pad].abs().max() > 0:
                raise CheckFailed(t("padding query rows must have zero weights and zero output"), where)
            for b, n in enumerate(case.lengths):
                alone = m.forward(x[b : b + 1, :n], None, where)[0]  # the sequence without its padding
                if not allclose(out[b, :n], alone, atol=ATOL, rtol=RTOL):
                    raise CheckFailed(t("real tokens change when padding is added; padding keys must be invisible"),
                                      where)


def check_batch_rows_independent(s: Subject) -> None:
    """A sentence's answer must not depend on which other sentences share its batch."""
    with torch.no_grad():
        for m, case, x, where in s.runs(lengths=(7, 33)):
            if case.B == 1 or case.padded:
                continue
            out = m.forward(x, None, where)
            for b in range(case.B):
                if not allclose(out[b], m.forward(x[b : b + 1], None, where)[0], atol=ATOL, rtol=RTOL):
                    raise CheckFailed(t("sequence {b}'s output depends on the other sequences in its batch", b=b), where)


def _real_rows(weights: Tensor, case: Case) -> Tensor:
    """weights (B, H, T, T) -> the rows of real queries (n, H, T)."""
    rows = weights.permute(0, 2, 1, 3)  # (B, T, H, T)
    pad = case.padding()
    return rows.reshape(-1, *rows.shape[2:]) if pad is None else rows[pad]
