"""The chapter's failure modes as "spot the bug" cards, each computed live and caught by a live check.

Every card runs the chapter's minimal attention twice, once as written and once with ONE line
changed (core.lab.attention_bugs holds those exact lines; a test checks the card's text against their
source): what the wrong line does to the weights, or the exact error torch raises, and a check
that passes on the right code and fails on the wrong one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import Tensor

from core.i18n import t
from core.lab.masking import three_ways
from core.lab.text import embed

from .attention_bugs import (
    DEVICE_RIGHT,
    DEVICE_WRONG,
    DTYPE_RIGHT,
    DTYPE_WRONG,
    FILL_RIGHT,
    FILL_WRONG,
    PADDING_RIGHT,
    PADDING_WRONG,
    SOFTMAX_RIGHT,
    SOFTMAX_WRONG,
    attention,
    attention_float_mask,
    attention_mask_elsewhere,
    attention_softmax_over_queries,
    attention_zero_fill,
    padded_attention,
)

TOKENS = ("合同", "违约金", "过高", "，", "它")  # the chapter's sentence, first five words
KEYS = ("softmax-dim", "zero-fill", "mask-dtype", "mask-device", "padding-nan")  # the cards, in the order cards() gives
PAD = "<pad>"
HEAD_DIM = 4

@dataclass(frozen=True)
class Check:
    """A check run on one version of the code: did it pass, and what it measured."""

    passed: bool
    detail: str


@dataclass(frozen=True)
class Card:
    """One "spot the bug" card: the two lines, what each does, and the check run on both."""

    key: str
    title: str
    wrong_code: str
    right_code: str
    effect: str  # one or two sentences with the measured numbers
    check: str  # what the check asserts
    check_right: Check
    check_wrong: Check
    tokens: list[str]
    wrong: dict[str, Any]  # weights / row sums / error, as JSON-ready numbers and text
    right: dict[str, Any]
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _qkv(tokens: tuple[str, ...] = TOKENS, seed: int = 0) -> tuple[Tensor, Tensor, Tensor]:
    """The sentence's embeddings through three seeded projections: q, k, v (T, HEAD_DIM)."""
    x = embed(tokens, 8, seed)[0]  # (T, 8)
    w = torch.randn(3, 8, HEAD_DIM, generator=torch.Generator().manual_seed(seed)) / math.sqrt(8)  # (3, 8, hd)
    return x @ w[0], x @ w[1], x @ w[2]


def _rounded(t: Tensor) -> Any:
    return [[None if math.isnan(v) else round(v, 4) for v in row] for row in t.tolist()] if t.dim() == 2 else [
        None if math.isnan(v) else round(v, 4) for v in t.tolist()]


def _error(fn: Callable[[], object]) -> str | None:
    """The exact message the call raises ("TypeError: ..."), or None when it runs."""
    try:
        fn()
    except (RuntimeError, TypeError) as e:
        return f"{type(e).__name__}: {e}"
    return None


def check_rows_and_causality(fn: Callable, q: Tensor, k: Tensor, v: Tensor) -> Check:
    """Each query's weights sum to 1 over the keys, and changing the last token leaves earlier rows as they were."""
    _, w = fn(q, k, v)
    q2, k2, v2 = q.clone(), k.clone(), v.clone()
    q2[-1], k2[-1], v2[-1] = q[-1] + 1.0, k[-1] - 1.0, v[-1] + 1.0  # a different last token
    out, _ = fn(q, k, v)
    out2, _ = fn(q2, k2, v2)
    row_error = float((w.sum(-1) - 1).abs().max())
    moved = float((out[:-1] - out2[:-1]).abs().max())
    passed = row_error < 1e-5 and moved == 0.0
    return Check(passed, t("rows off 1 by up to {error:.3g}; changing the last token moved earlier outputs by up to "
                           "{moved:.3g}", error=row_error, moved=moved))


def check_future_weight(fn: Callable, q: Tensor, k: Tensor, v: Tensor) -> Check:
    """No weight above the diagonal: position i reads nothing after i."""
    _, w = fn(q, k, v)
    future = float(w.triu(1).sum(-1).max())
    return Check(future == 0.0, t("largest weight a row puts on the future: {future:.3g}", future=future))


def check_runs_causal(fn: Callable, q: Tensor, k: Tensor, v: Tensor) -> Check:
    """The function runs, and its weights are causal with rows summing to 1."""
    err = _error(lambda: fn(q, k, v))
    if err is not None:
        return Check(False, err)
    _, w = fn(q, k, v)
    ok = float(w.triu(1).abs().sum()) == 0.0 and float((w.sum(-1) - 1).abs().max()) < 1e-5
    return Check(ok, t("runs; weights causal, rows sum to 1") if ok else t("runs, but the weights are not causal"))


def check_padding(fn: Callable, q: Tensor, k: Tensor, v: Tensor, key_real: Tensor) -> Check:
    """No NaN in weights, outputs or gradients, and real tokens get exactly what they get without padding."""
    qg = q.clone().requires_grad_(True)
    out, w = fn(qg, k, v, key_real)
    out.sum().backward()
    nan = int(torch.isnan(out).sum() + torch.isnan(w).sum() + torch.isnan(qg.grad).sum())
    real = key_real[0]
    alone, _ = attention(q[0, real], k[0, real], v[0, real])
    diff = float((out[0, real] - alone).detach().abs().max()) if nan == 0 else float("nan")
    return Check(nan == 0 and diff < 1e-6, t("NaN values in weights, output and gradient: {nan}; real tokens vs the "
                                             "same sentence unpadded: max |diff| {diff:.3g}", nan=nan, diff=diff))


def _softmax_card(q: Tensor, k: Tensor, v: Tensor) -> Card:
    _, right = attention(q, k, v)
    _, wrong = attention_softmax_over_queries(q, k, v)
    rows = wrong.sum(-1)
    effect = t("Softmax over dim=-2 normalises each key's column instead of each query's row: row sums become "
               "{sums} instead of 1. No weight sits above the diagonal, but every column's denominator adds up later "
               "queries, so a row changes when a future token does.",
               sums=", ".join(f"{r:.2f}" for r in rows.tolist()))
    return Card(
        "softmax-dim", t("Softmax over the wrong dimension"), SOFTMAX_WRONG, SOFTMAX_RIGHT, effect,
        t("each row sums to 1 and changing a future token leaves earlier outputs unchanged"),
        check_rows_and_causality(attention, q, k, v), check_rows_and_causality(attention_softmax_over_queries, q, k, v),
        list(TOKENS),
        {"weights": _rounded(wrong), "row_sums": _rounded(rows), "column_sums": _rounded(wrong.sum(-2))},
        {"weights": _rounded(right), "row_sums": _rounded(right.sum(-1)), "column_sums": _rounded(right.sum(-2))},
    )


def _fill_card(q: Tensor, k: Tensor, v: Tensor) -> Card:
    scores = q @ k.transpose(-2, -1) / HEAD_DIM**0.5  # (T, T)
    ways = three_ways(scores)
    leak = ways.leak_per_row
    effect = t("exp(0) = 1, so the masked future still gets weight: row 0 puts {first:.2f} of its weight on tokens "
               "after it, and every row but the last leaks (up to {worst:.2f}).", first=leak[0], worst=max(leak))
    return Card(
        "zero-fill", t("0 instead of -inf"), FILL_WRONG, FILL_RIGHT, effect,
        t("no weight above the diagonal"),
        check_future_weight(attention, q, k, v), check_future_weight(attention_zero_fill, q, k, v),
        list(TOKENS),
        {"weights": _rounded(ways.zero_fill), "future_weight_per_row": _rounded(torch.tensor(leak))},
        {"weights": _rounded(ways.neg_inf), "future_weight_per_row": [0.0] * len(leak)},
    )


def _dtype_card(q: Tensor, k: Tensor, v: Tensor) -> Card:
    err = _error(lambda: attention_float_mask(q, k, v))
    _, right = attention(q, k, v)
    return Card(
        "mask-dtype", t("A mask of the wrong dtype"), DTYPE_WRONG, DTYPE_RIGHT,
        t("torch.ones makes floats; ~ (logical not) and masked_fill need a bool mask, so the call stops with an "
          "error before any weight exists. The fix is one argument: dtype=torch.bool."),
        t("the attention runs and its weights are causal"),
        check_runs_causal(attention, q, k, v), check_runs_causal(attention_float_mask, q, k, v),
        list(TOKENS), {"weights": None, "error": err}, {"weights": _rounded(right), "error": None},
    )


def _device_card(q: Tensor, k: Tensor, v: Tensor) -> Card:
    gpu = torch.cuda.is_available()
    other = "cpu" if gpu else "meta"
    if gpu:  # the real case: q, k, v on the GPU, the mask made on the CPU
        q, k, v = q.cuda(), k.cuda(), v.cuda()
        note = t("Run just now on this machine's GPU: q, k, v on cuda, the mask made on the CPU.")
    else:
        note = t("This machine has no GPU, so the lab meets the same mismatch another way: q, k, v stay on the CPU "
                 "and the mask is made on PyTorch's meta device (a device without data), standing in for a second "
                 "device. The message above is what torch said just now; on a GPU it names cuda:0 and cpu instead.")

    def wrong_fn(q_: Tensor, k_: Tensor, v_: Tensor) -> tuple[Tensor, Tensor]:
        return attention_mask_elsewhere(q_, k_, v_, other)

    err = _error(lambda: wrong_fn(q, k, v))
    _, right = attention(q, k, v)
    return Card(
        "mask-device", t("A mask on the wrong device"), DEVICE_WRONG, DEVICE_RIGHT,
        t("The mask lives on {other}, the scores on {device}: masked_fill cannot mix them and stops with an error. "
          "The fix: make the mask where the scores are, device=q.device.", other=other, device=q.device.type),
        t("the attention runs and its weights are causal"),
        check_runs_causal(attention, q, k, v), check_runs_causal(wrong_fn, q, k, v),
        list(TOKENS), {"weights": None, "error": err, "device": other},
        {"weights": _rounded(right.cpu()), "error": None, "device": q.device.type}, note,
    )


def _padding_card(seed: int) -> Card:
    tokens = (PAD, PAD, *TOKENS[:3])
    qr, kr, vr = _qkv(TOKENS[:3], seed)  # (3, hd) the real tokens
    g = torch.Generator().manual_seed(seed + 1)
    pads = torch.randn(3, 2, HEAD_DIM, generator=g)  # whatever the padding's embeddings give
    q, k, v = (torch.cat([p, r])[None] for p, r in zip(pads, (qr, kr, vr), strict=True))  # (1, 5, hd)
    key_real = torch.tensor([[False, False, True, True, True]])

    def right_fn(*a):
        return padded_attention(*a, guard=True)

    def wrong_fn(*a):
        return padded_attention(*a, guard=False)

    _, w_right = right_fn(q, k, v, key_real)
    out_wrong, w_wrong = wrong_fn(q, k, v, key_real)
    nan_rows = [i for i in range(len(tokens)) if bool(torch.isnan(w_wrong[0, i]).any())]
    effect = t("Left padding: query rows {rows} (padding) may see only padding, so every score in the row is -inf and "
               "softmax divides 0 by 0: NaN, in the weights and in the output. A row with nothing to see may see "
               "everything instead, and its output is zeroed afterwards.", rows=", ".join(map(str, nan_rows)))
    return Card(
        "padding-nan", t("Fully masked padding rows give NaN"), PADDING_WRONG,
        f"{PADDING_WRONG}\n{PADDING_RIGHT}  # then: out = out * key_real[..., None]", effect,
        t("no NaN in weights, outputs or gradients, and real tokens get what they get without padding"),
        check_padding(right_fn, q, k, v, key_real), check_padding(wrong_fn, q, k, v, key_real),
        list(tokens),
        {"weights": _rounded(w_wrong[0]), "nan_rows": nan_rows, "output_nan": bool(torch.isnan(out_wrong).any())},
        {"weights": _rounded(w_right[0]), "nan_rows": [], "output_nan": False},
    )


def cards(seed: int = 0) -> tuple[Card, ...]:
    """Every failure mode of the chapter, computed now, its texts in the current language (core.i18n); the first
    cross-device error in a process is slow (torch builds its C++ backtrace once), so core.serve.chapter keeps
    them (per language) and warms them in the background."""
    q, k, v = _qkv(TOKENS, seed)
    return (_softmax_card(q, k, v), _fill_card(q, k, v), _dtype_card(q, k, v), _device_card(q, k, v),
            _padding_card(seed))


def cards_payload(seed: int = 0) -> list[dict[str, Any]]:
    """The cards as JSON-ready dicts (for an endpoint or a view)."""
    return [c.to_dict() for c in cards(seed)]
