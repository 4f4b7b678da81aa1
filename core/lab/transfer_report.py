"""The Weight-transfer tab's numbers: v2 -> v1 (with the classic mistakes), stacked -> fused, fused -> PyTorch."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from ..classic import SelfAttention_v1, SelfAttention_v2
from ..config import AttentionConfig
from ..i18n import t
from ..mistakes import ConfigError, whole
from ..registry import Registry
from ..seeding import seeded_init
from ..transfer import MISTAKES, compare, fused_to_multihead_attention, transfer_stacked_to_fused, transfer_v2_to_v1
from .session import rounded, seed_value
from .threads import GLOBAL_RNG

# "Your journey starts with one step", 3-d embeddings as printed in the classic text (6, 3).
JOURNEY = (
    (0.43, 0.15, 0.89), (0.55, 0.87, 0.66), (0.57, 0.85, 0.64),
    (0.22, 0.58, 0.33), (0.77, 0.25, 0.10), (0.05, 0.80, 0.55),
)
MAX_DIM = 64
ATOL = 1e-5  # float32: a few ulps of outputs of order 1, whatever the CPU's vector unit


def classic_classes() -> tuple[type[nn.Module], type[nn.Module]]:
    """SelfAttention_v1 and _v2 (core.classic; attention_plugins.single_head re-exports them)."""
    return SelfAttention_v1, SelfAttention_v2


@dataclass(frozen=True)
class TransferReport:
    """What a student sees after copying v2's weights into v1: shapes, both outputs, the verdict."""

    seed: int
    d_in: int
    d_out: int
    mistake: str
    shapes: list[list[str]]  # rows: module, parameter, kind, shape
    out_v2: list[list[float]] = field(default_factory=list)  # (6, d_out)
    out_v1: list[list[float]] = field(default_factory=list)  # (6, d_out)
    equal: bool = False  # within the dtype's tolerance: the same function, up to float rounding
    exact: bool = False  # bit for bit; two kernels (x @ W and nn.Linear's x @ W.T) need not be, on every CPU
    max_abs_diff: float | None = None
    error: str | None = None
    verdict: str = ""
    query_weight: list[list[float]] = field(default_factory=list)  # (d_out, d_in) v2's W_query.weight, as stored

    def outputs_table(self, which: str) -> tuple[list[str], list[list]]:
        """(headers, rows) of v2's or v1's output; one row of dashes when the copy failed."""
        headers = [f"out{j}" for j in range(self.d_out)]
        rows = self.out_v2 if which == "v2" else self.out_v1
        return headers, rows or [["—" for _ in headers]]

    def payload(self) -> dict[str, Any]:
        """The /transfer JSON: {"equal", "exact", "max_abs_diff", "atol", "error"} plus the verdict."""
        return {"equal": self.equal, "exact": self.exact, "max_abs_diff": self.max_abs_diff, "atol": ATOL,
                "error": self.error, "verdict": self.verdict}


def _inputs(d_in: int, seed: int) -> torch.Tensor:
    """The classic journey embeddings when d_in = 3, otherwise seeded uniform ones.  (6, d_in)"""
    if d_in == 3:
        return torch.tensor(JOURNEY)
    return torch.rand(6, d_in, generator=torch.Generator().manual_seed(seed))


def v2_to_v1(seed: int = 123, d_in: int = 3, d_out: int = 2, mistake: str = "none") -> TransferReport:
    """torch.manual_seed(seed); build v2 then v1 as the classic code does; copy v2 -> v1; compare outputs (its words
    in the current language; core.serve.transfer keeps them per language)."""
    seed, d_in, d_out = seed_value(seed), whole("d_in", d_in), whole("d_out", d_out)
    for name, value in (("d_in", d_in), ("d_out", d_out)):
        if not 1 <= value <= MAX_DIM:
            raise ConfigError(t("{name}={value} is out of range; choose {low} to {high}", name=name, value=value,
                                low=1, high=MAX_DIM))
    if mistake not in MISTAKES:
        raise ConfigError(t("mistake={mistake} is not known; choose {known}", mistake=repr(mistake),
                            known=", ".join(MISTAKES)))
    v1_cls, v2_cls = classic_classes()
    with GLOBAL_RNG, torch.random.fork_rng(devices=[]):  # (the classic classes draw from it)
        torch.manual_seed(seed)
        v2, v1 = v2_cls(d_in, d_out), v1_cls(d_in, d_out)
    shapes = [["SelfAttention_v2", f"{n}.weight", "nn.Linear (d_out, d_in)", str(tuple(getattr(v2, n).weight.shape))]
              for n in ("W_query", "W_key", "W_value")]
    shapes += [["SelfAttention_v1", n, "nn.Parameter (d_in, d_out)", str(tuple(getattr(v1, n).shape))]
               for n in ("W_query", "W_key", "W_value")]
    x = _inputs(d_in, seed)  # (6, d_in)
    base = dict(seed=seed, d_in=d_in, d_out=d_out, mistake=mistake, shapes=shapes,
                query_weight=rounded(v2.W_query.weight.detach(), 4))
    try:
        transfer_v2_to_v1(v2, v1, mistake=mistake)
    except ConfigError as exc:
        return TransferReport(**base, error=str(exc), verdict=t("The copy failed: {error}", error=str(exc)))
    eq = compare(v2, v1, x, atol=ATOL)
    with torch.no_grad():
        out_v2, out_v1 = rounded(v2(x), 4), rounded(v1(x), 4)  # (6, d_out) each
    verdict = eq.verdict
    if mistake != "none" and eq.equal:
        verdict = t("{verdict} (this mistake happens to be harmless here)", verdict=verdict)
    elif mistake != "none":
        verdict = t("{verdict}: no error was raised, the answer is silently wrong", verdict=verdict)
    return TransferReport(**base, out_v2=out_v2, out_v1=out_v1, equal=eq.equal, exact=eq.exact,
                          max_abs_diff=eq.max_abs_diff,
                          verdict=verdict)


@dataclass(frozen=True)
class OtherTransfer:
    """One more pair of layers that compute the same thing once the weights are copied."""

    title: str
    max_abs_diff: float
    equal: bool
    verdict: str


def other_transfers(registry: Registry, seed: int = 123, d_model: int = 16, n_heads: int = 4) -> list[OtherTransfer]:
    """Stacked heads -> fused qkv, and fused -> nn.MultiheadAttention, each checked on the same input (their titles
    and verdicts in the current language)."""
    seed = seed_value(seed)
    config = AttentionConfig(d_model=d_model, n_heads=n_heads)
    stacked = seeded_init(registry.build("multi-head-stacked", config), seed).eval()
    fused = seeded_init(registry.build("multi-head", config), seed + 1).eval()  # different weights until the copy
    x = torch.randn(1, 6, d_model, generator=torch.Generator().manual_seed(seed))  # (1, 6, d)
    transfer_stacked_to_fused(stacked, fused)
    first = compare(stacked, fused, x)
    second = compare(fused, fused_to_multihead_attention(fused), x)
    return [
        OtherTransfer(t("{n} stacked heads (MultiHeadAttentionWrapper) → one fused qkv (CausalSelfAttention)",
                        n=n_heads), first.max_abs_diff, first.equal, first.verdict),
        OtherTransfer(t("fused CausalSelfAttention → PyTorch's nn.MultiheadAttention (mask polarity flipped once)"),
                      second.max_abs_diff, second.equal, second.verdict),
    ]
