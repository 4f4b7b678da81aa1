"""Checks that trace tells the truth: it agrees with forward, and each stage follows the one formula."""

from __future__ import annotations

import math

import torch

from ..attention import AttentionModule, AttentionTrace, repeat_kv
from ..i18n import t
from .cases import Case
from .guard import CheckFailed
from .subject import ATOL, RTOL, Subject, allclose


def check_forward_matches_trace(s: Subject) -> None:
    """Same output on both paths, for every combination of causal and scaled the app can send."""
    with torch.no_grad():
        for causal in (True, False):
            for scaled in (True, False):
                for m, case, x, where in s.runs(every_case=(causal, scaled) == (True, True), causal=causal, scaled=scaled):
                    pad = case.padding()
                    out, traced = m.forward(x, pad, where), m.trace(x, pad, where).output
                    if not allclose(out, traced, atol=ATOL, rtol=RTOL):
                        diff = (out - traced).abs().max().item()
                        raise CheckFailed(t("forward and trace disagree by {diff} with causal={causal}, "
                                            "scaled={scaled}; the app's views come from trace", diff=format(diff, ".2g"),
                                            causal=causal, scaled=scaled), where)


def check_trace_is_the_formula(s: Subject) -> None:
    """The step-through shows trace's stages as the one formula: each must follow from the last, mask on or off."""
    with torch.no_grad():
        for causal in (True, False):
            for m, case, x, where in s.runs(lengths=(1, 9, 33), causal=causal):
                _formula(m.module, m.trace(x, case.padding(), where), case, where)


def _formula(module: AttentionModule, tr: AttentionTrace, case: Case, where: str) -> None:
    """Each stage follows from the one before it, as AttentionTrace documents; with several maps, map by map."""
    several = bool(tr.maps)
    mask = tr.mask.expand_as(tr.weights)  # (B, H, T, T)
    map_mask = mask.unsqueeze(2).expand_as(tr.masked) if several else mask  # (B, H, [M,] T, T)
    real = torch.ones(case.B, case.T, dtype=torch.bool) if case.padding() is None else case.padding()
    if not mask.any(-1)[real[:, None, :].expand(-1, mask.shape[1], -1)].all():
        raise CheckFailed(t("a real token may attend to no key at all; let every query see at least itself"), where)
    k = repeat_kv(tr.k, tr.q.shape[1])  # (B, H, T, hd)
    if type(module).score is AttentionModule.score and not allclose(tr.scores, tr.q @ k.transpose(-2, -1),
                                                                     atol=ATOL, rtol=RTOL):
        raise CheckFailed(t("trace.scores is not q · kᵀ"), where)
    expected = tr.scores / math.sqrt(tr.q.shape[-1]) if module.config.scaled else tr.scores
    bias = module.bias(case.T, tr.scores.device)
    expected = expected if bias is None else expected + (bias.unsqueeze(-3) if several else bias)
    if not allclose(tr.scaled, expected, atol=ATOL, rtol=RTOL):
        raise CheckFailed(t("trace.scaled is not scores / √d_head (plus bias()), as config.scaled says"), where)
    if not allclose(tr.masked[map_mask], tr.scaled[map_mask], atol=ATOL, rtol=RTOL):
        raise CheckFailed(t("trace.masked differs from trace.scaled where the mask allows attention"), where)
    rows = real[:, None, :, None].expand_as(mask)  # (B, H, T, T) real query rows
    if tr.weights[~mask].abs().sum() > 0:
        raise CheckFailed(t("trace.weights is not zero where trace.mask forbids attention"), where)
    normalise = torch.softmax if type(module).normalise is AttentionModule.normalise else None
    expected_w = (torch.softmax(tr.masked, dim=-1) if normalise else module.normalise(tr.masked)).masked_fill(~map_mask, 0)
    if several:
        maps = torch.stack(list(tr.maps.values()), dim=2)  # (B, H, M, T, T)
        map_rows = rows.unsqueeze(2).expand_as(maps)
        if not allclose(maps[map_rows], expected_w[map_rows], atol=ATOL, rtol=RTOL):
            raise CheckFailed(t("trace.maps are not normalise(trace.masked), map by map"), where)
        expected_w = module.combine(expected_w).masked_fill(~mask, 0)  # (B, H, T, T)
    if not allclose(tr.weights[rows], expected_w[rows], atol=ATOL, rtol=RTOL):
        what = "softmax(trace.masked)" if normalise else "normalise(trace.masked)"
        raise CheckFailed(t("trace.weights is not {formula}", formula="combine(" + what + ")" if several else what), where)
    if not allclose(tr.context, tr.weights @ repeat_kv(tr.v, tr.q.shape[1]), atol=ATOL, rtol=RTOL):
        raise CheckFailed(t("trace.context is not weights · v"), where)
