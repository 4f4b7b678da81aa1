"""The conformance kit: run a variant's real module and check every promise the lab relies on."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import Tensor

from ..attention import AttentionModule, AttentionTrace
from ..config import AttentionConfig, ConfigError, option_problem
from ..seeding import seeded_init
from ..variant import Variant, construct

B, T = 2, 6  # a batch of two short sequences is enough to see every rule broken
ATOL = 1e-5


class CheckFailed(AssertionError):
    """One promise broken; the message is one sentence for the plugin author."""


@dataclass(frozen=True)
class CheckReport:
    """What check_variant found: passed, one sentence per failure, seconds per check."""

    passed: bool
    failures: list[str] = field(default_factory=list)  # "check: one sentence", in the order run
    timings: dict[str, float] = field(default_factory=dict)  # check -> seconds, every check that ran
    variant: str = ""

    def __str__(self) -> str:
        head = f"{self.variant}: {'passed' if self.passed else 'FAILED'} ({len(self.timings)} checks)"
        return "\n".join([head, *(f"  - {f}" for f in self.failures)])


@dataclass
class _Subject:
    """The variant under test, built fresh for each check so no check can poison the next."""

    variant: Variant
    config: AttentionConfig
    x: Tensor  # (B, T, d_model)
    lengths: tuple[int, ...] = (T, T - 2)  # second sequence ends in two padding tokens

    def build(self, **changes) -> AttentionModule:
        config = self.config.replace(**changes) if changes else self.config
        return seeded_init(construct(self.variant, config), 0).eval()  # private generator: global RNG untouched

    @property
    def padding(self) -> Tensor:
        return torch.arange(T)[None, :] < torch.tensor(self.lengths)[:, None]  # (B, T) True = real


def _check_options(variant: Variant) -> None:
    problem = option_problem(variant.options)
    if problem:
        raise CheckFailed(f"variant {problem}")
    names = [o.name for o in variant.options]
    resolved = variant.resolve(AttentionConfig())
    if set(resolved.options) != set(names):
        raise CheckFailed("resolving the default config did not fill in every option")
    for o in variant.options:
        outside = [b - 1 for b in (o.minimum,) if b is not None] + [b + 1 for b in (o.maximum,) if b is not None]
        for value in outside:
            try:
                variant.resolve(AttentionConfig(options={o.name: value}))
            except ConfigError:
                continue
            raise CheckFailed(f"option {o.name}={value} is outside its range but was accepted")


def _check_shapes(s: _Subject) -> None:
    m = s.build()
    with torch.no_grad():
        out, tr = m(s.x), m.trace(s.x)
    d = s.config.d_model
    if not isinstance(out, Tensor) or tuple(out.shape) != (B, T, d):
        raise CheckFailed(f"forward returned shape {_shape(out)}; expected {(B, T, d)}")
    if not isinstance(tr, AttentionTrace):
        raise CheckFailed(f"trace returned a {type(tr).__name__}, not an AttentionTrace")
    H = tr.q.shape[1] if tr.q.dim() == 4 else -1
    for name in ("scores", "scaled", "masked", "weights"):
        if tuple(getattr(tr, name).shape) != (B, H, T, T):
            raise CheckFailed(f"trace.{name} has shape {_shape(getattr(tr, name))}; expected {(B, H, T, T)}")
    if tr.context.shape[:3] != (B, H, T) or tuple(tr.output.shape) != (B, T, d):
        raise CheckFailed(f"trace.context/output have shapes {_shape(tr.context)}/{_shape(tr.output)}")


def _check_rows_sum_to_one(s: _Subject) -> None:
    m = s.build()
    with torch.no_grad():
        w = m.trace(s.x).weights  # (B, H, T, T)
    if (w < 0).any() or not torch.allclose(w.sum(-1), torch.ones_like(w.sum(-1)), atol=ATOL):
        raise CheckFailed("attention weights are negative or a row does not sum to 1")


def _check_padding(s: _Subject) -> None:
    m, pad = s.build(), s.padding
    with torch.no_grad():
        out, tr = m(s.x, key_padding_mask=pad), m.trace(s.x, key_padding_mask=pad)
        short = m(s.x[1:, : s.lengths[1]])  # the padded sequence without its padding
    if not (torch.isfinite(out).all() and torch.isfinite(tr.output).all() and torch.isfinite(tr.weights).all()):
        raise CheckFailed("padding produced NaN or inf; padding query rows must be zero, never NaN")
    if out[~pad].abs().max() > 0 or tr.weights.permute(0, 2, 1, 3)[~pad].abs().max() > 0:
        raise CheckFailed("padding query rows must have zero weights and zero output")
    if not torch.allclose(out[1, : s.lengths[1]], short[0], atol=ATOL):
        raise CheckFailed("real tokens change when padding is added; padding keys must be invisible")
    real_rows = tr.weights.permute(0, 2, 1, 3)[pad]  # (real queries, H, T)
    if not torch.allclose(real_rows.sum(-1), torch.ones_like(real_rows.sum(-1)), atol=ATOL):
        raise CheckFailed("with padding, a real token's weights do not sum to 1")


def perturb_position(x: Tensor, position: int, seed: int = 0) -> Tensor:
    """A copy of x with token `position` replaced by a different random vector (every batch row)."""
    g = torch.Generator().manual_seed(seed)
    changed = x.clone()
    changed[:, position] = torch.randn(x.shape[0], x.shape[-1], generator=g, dtype=x.dtype).to(x.device)
    return changed


def _later_input_changes(fn: Callable[[Tensor], Tensor], x: Tensor) -> list[str]:
    """Perturb each token p in turn; every output row before p must be byte-identical."""
    with torch.no_grad():
        base = fn(x)
        leaks = []
        for p in range(1, T):
            changed = fn(perturb_position(x, p, seed=p))
            if not torch.equal(base[:, :p], changed[:, :p]):
                first = int(next(i for i in range(p) if not torch.equal(base[:, i], changed[:, i])))
                leaks.append(f"token {first} changed when token {p} did")
    return leaks


def _check_causal_forward(s: _Subject) -> None:
    leaks = _later_input_changes(s.build(), s.x)
    if leaks:
        raise CheckFailed(f"forward reads the future: {leaks[0]}")


def _check_causal_trace(s: _Subject) -> None:
    m = s.build()
    leaks = _later_input_changes(lambda x: m.trace(x).output, s.x)
    if leaks:
        raise CheckFailed(f"trace reads the future: {leaks[0]}")


def _check_causal_autograd(s: _Subject) -> None:
    """Backpropagate a random direction from each output row i; inputs j > i must get exactly zero gradient."""
    m = s.build()
    x = s.x.clone().requires_grad_(True)
    out = m(x)  # (B, T, d)
    g = torch.Generator().manual_seed(1)
    for i in range(T - 1):
        (grad,) = torch.autograd.grad(out[:, i], x, torch.randn(out[:, i].shape, generator=g), retain_graph=True)
        later = grad[:, i + 1 :].abs().amax(dim=(0, 2))  # (T - i - 1,)
        if later.max() > 0:
            j = i + 1 + int(later.nonzero()[0])
            raise CheckFailed(f"the gradient of output {i} with respect to later input {j} is not zero")


def _check_forward_matches_trace(s: _Subject) -> None:
    m = s.build()
    with torch.no_grad():
        for pad in (None, s.padding):
            out, traced = m(s.x, key_padding_mask=pad), m.trace(s.x, key_padding_mask=pad).output
            if not torch.allclose(out, traced, atol=ATOL, rtol=1e-4):
                diff = (out - traced).abs().max().item()
                raise CheckFailed(f"forward and trace disagree by {diff:.2g} ({'with' if pad is not None else 'no'} padding)")


def _check_trace_is_the_formula(s: _Subject) -> None:
    with torch.no_grad():
        tr = s.build().trace(s.x)
    weights = torch.softmax(tr.masked, dim=-1)
    if not torch.allclose(weights, tr.weights, atol=ATOL):
        raise CheckFailed("trace.weights is not softmax(trace.masked)")
    if not torch.allclose(tr.masked[tr.mask.expand_as(tr.masked)], tr.scaled[tr.mask.expand_as(tr.scaled)], atol=ATOL):
        raise CheckFailed("trace.masked differs from trace.scaled where the mask allows attention")
    if tr.weights[~tr.mask.expand_as(tr.weights)].abs().sum() > 0:
        raise CheckFailed("trace.weights is not zero where trace.mask forbids attention")


def _check_control_sees_future(s: _Subject) -> None:
    m = s.build(causal=False)
    with torch.no_grad():
        out, changed = m(s.x), m(perturb_position(s.x, T - 1, seed=99))
    if torch.equal(out[:, : T - 1], changed[:, : T - 1]):
        raise CheckFailed("with causal=False no earlier token reacts to a later one; honour config.causal (or pick options that let a token see further)")


CHECKS: dict[str, Callable[[_Subject], None]] = {  # run in this order after "options validate" and "build"
    "shapes": _check_shapes,
    "rows sum to 1": _check_rows_sum_to_one,
    "padding": _check_padding,
    "causal forward (perturbation)": _check_causal_forward,
    "causal trace (perturbation)": _check_causal_trace,
    "causal forward (autograd)": _check_causal_autograd,
    "forward agrees with trace": _check_forward_matches_trace,
    "trace is the formula": _check_trace_is_the_formula,
    "causal=False control sees the future": _check_control_sees_future,
}


def check_variant(variant: Variant, config: AttentionConfig | None = None) -> CheckReport:
    """Build the variant and test the real module; nothing it says about itself is taken on trust."""
    name = getattr(variant, "name", repr(variant))
    failures: list[str] = []
    timings: dict[str, float] = {}

    def run(check: str, fn: Callable[[], object]) -> bool:
        start = time.perf_counter()
        try:
            fn()
            return True
        except Exception as exc:  # a plugin's bug is a finding, never a crash of the kit
            failures.append(f"{check}: {_sentence(exc)}")
            return False
        finally:
            timings[check] = time.perf_counter() - start

    subject: list[_Subject] = []

    def setup() -> None:  # causal on, dropout off: the promises below are about the causal module
        resolved = variant.resolve((config or AttentionConfig()).replace(causal=True, dropout=0.0))
        x = torch.randn(B, T, resolved.d_model, generator=torch.Generator().manual_seed(0))  # (B, T, d)
        subject.append(_Subject(variant, resolved, x))
        subject[0].build()

    run("options validate", lambda: _check_options(variant))
    if run("build", setup):
        for check, fn in CHECKS.items():
            run(check, lambda fn=fn: fn(subject[0]))
    return CheckReport(not failures, failures, timings, name)


def _sentence(exc: BaseException) -> str:
    """A broken promise speaks for itself; anything else is named so the author can find it."""
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else ""
    if isinstance(exc, (CheckFailed, ConfigError)) and text:
        return text
    return f"raised {type(exc).__name__}: {text}" if text else f"raised {type(exc).__name__}"


def _shape(t: object) -> object:
    return tuple(t.shape) if isinstance(t, Tensor) else type(t).__name__


__all__ = ["CHECKS", "CheckFailed", "CheckReport", "check_variant"]
