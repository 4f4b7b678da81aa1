"""The kit's checks, each a function of a Subject; run one at a time in a child process (see conformance)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial

import torch
from torch import Tensor

from ..attention import AttentionModule, AttentionTrace, repeat_kv
from ..config import AttentionConfig, ConfigError, option_problem
from ..seeding import seeded_init
from ..variant import BuildFailed, Variant, construct, display_problem, name_problem
from .cases import AUTOGRAD_LENGTHS, LENGTHS, Case, cases, deep_configs, describe, sampled_configs
from .guard import CheckFailed, Guarded, PluginRaised

ATOL, RTOL = 1e-5, 1e-4
_allclose = torch.allclose
_equal = torch.equal


@dataclass
class Subject:
    """The variant under test and the configs it is probed on; modules are built fresh for every use."""

    variant: Variant
    base: AttentionConfig  # resolved, causal, no dropout
    seed: int = 0
    _deep: list[AttentionConfig] | None = field(default=None, repr=False)

    def build(self, config: AttentionConfig | None = None, **changes) -> Guarded:
        """A fresh module with weights from a private generator (a report is reproducible), in eval mode."""
        config = (config or self.base).replace(**changes) if changes else (config or self.base)
        try:
            return Guarded(seeded_init(built(self.variant, config), self.seed).eval())
        except ConfigError as exc:  # refused: for the config a person asked for, that is a failure too
            raise CheckFailed(str(exc), describe(config)) from exc

    @property
    def deep(self) -> list[AttentionConfig]:
        """The base config plus the widest and narrowest settings the variant accepts (see cases.deep_configs)."""
        if self._deep is None:
            self._deep = []
            for candidates in deep_configs(self.variant, self.base, self.seed):
                for config in candidates:
                    try:
                        built(self.variant, config)
                    except ConfigError:
                        continue  # refused in one sentence: a choice the variant may make
                    self._deep.append(config)
                    break
        return self._deep

    def runs(self, lengths: tuple[int, ...] = LENGTHS, every_case: bool = True,
             **changes) -> Iterator[tuple[Guarded, Case, Tensor, str]]:
        """(module, case, x, where) for every deep config and every case.

        every_case=False (for the costly probes): every case on the base config, one sequence
        without padding on the others.
        """
        for n, config in enumerate(self.deep):
            config = config.replace(**changes) if changes else config
            m = self.build(config)
            for case in cases(lengths):
                if every_case or n == 0 or (case.B == 1 and not case.padded):
                    yield m, case, case.x(config.d_model, self.seed), f"{case}, {describe(config)}"


def built(variant: Variant, config: AttentionConfig) -> AttentionModule:
    """construct(), with a crash in the plugin's build() named as the plugin's (a refusal stays a ConfigError)."""
    try:
        return construct(variant, config)
    except BuildFailed as exc:
        if exc.__cause__ is not None:
            raise PluginRaised("build", exc.__cause__, describe(config), message=str(exc)) from exc
        raise CheckFailed(str(exc), describe(config)) from exc


def check_options(s: Subject) -> None:
    problem = option_problem(s.variant.options)
    if problem:
        raise CheckFailed(f"variant {problem}")
    resolved = s.variant.resolve(AttentionConfig())
    if set(resolved.options) != {o.name for o in s.variant.options}:
        raise CheckFailed("resolving the default config did not fill in every option")
    for o in s.variant.options:
        outside = [b - 1 for b in (o.minimum,) if b is not None] + [b + 1 for b in (o.maximum,) if b is not None]
        for value in outside:
            try:
                s.variant.resolve(AttentionConfig(options={o.name: value}))
            except ConfigError:
                continue
            raise CheckFailed(f"option {o.name}={value} is outside its range but was accepted")


def check_declarations(s: Subject) -> None:
    """The name and the flags the app reads without building anything."""
    problem = name_problem(s.variant.name) or display_problem(s.variant)
    if problem:
        raise CheckFailed(f"the variant {problem}")


def check_build(s: Subject) -> None:
    s.build()


def check_every_setting(s: Subject) -> None:
    """Build every (d_model, n_heads) the app offers with sampled options; each must build and answer."""
    case = Case(9, 1)
    for config in sampled_configs(s.variant, s.base, s.seed):
        try:
            module = built(s.variant, config)
        except ConfigError:
            continue  # a refusal in one sentence (GQA's n_kv_heads must divide n_heads)
        m = Guarded(seeded_init(module, s.seed).eval())
        x = case.x(config.d_model, s.seed)
        with torch.no_grad():
            m.forward(x, case=f"{case}, {describe(config)}")
            m.trace(x, case=f"{case}, {describe(config)}")


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
            if not _equal(first, again):
                raise CheckFailed("forward gave a different answer for the same input the second time; "
                                  "keep no state between calls and no randomness in eval mode", where)


def check_rows_sum_to_one(s: Subject) -> None:
    with torch.no_grad():
        for m, case, x, where in s.runs():
            tr = m.trace(x, case.padding(), where)
            rows = _real_rows(tr.weights, case)  # (real queries, H, T)
            if (rows < 0).any():
                raise CheckFailed("some attention weights are negative; declare normalised=False if they may be", where)
            if not _allclose(rows.sum(-1), torch.ones_like(rows.sum(-1)), atol=ATOL):
                raise CheckFailed("a row of attention weights does not sum to 1; declare normalised=False "
                                  "if the weights are not a distribution over keys", where)


def check_padding(s: Subject) -> None:
    with torch.no_grad():
        for m, case, x, where in s.runs():
            if not case.padded:
                continue
            pad = case.padding()
            out, tr = m.forward(x, pad, where), m.trace(x, pad, where)
            if out[~pad].abs().max() > 0 or tr.weights.permute(0, 2, 1, 3)[~pad].abs().max() > 0:
                raise CheckFailed("padding query rows must have zero weights and zero output", where)
            for b, n in enumerate(case.lengths):
                alone = m.forward(x[b : b + 1, :n], None, where)[0]  # the sequence without its padding
                if not _allclose(out[b, :n], alone, atol=ATOL, rtol=RTOL):
                    raise CheckFailed("real tokens change when padding is added; padding keys must be invisible", where)


def check_batch_rows_independent(s: Subject) -> None:
    with torch.no_grad():
        for m, case, x, where in s.runs(lengths=(7, 33)):
            if case.B == 1 or case.padded:
                continue
            out = m.forward(x, None, where)
            for b in range(case.B):
                if not _allclose(out[b], m.forward(x[b : b + 1], None, where)[0], atol=ATOL, rtol=RTOL):
                    raise CheckFailed(f"sequence {b}'s output depends on the other sequences in its batch", where)


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


def _first_leak(fn: Callable[[Tensor], Tensor], x: Tensor, seed: int = 0) -> str | None:
    """Perturb token p (see probe_positions); every output row before p must stay byte-identical."""
    base = fn(x)
    for p in probe_positions(x.shape[1], seed):
        changed = fn(perturb_position(x, p, seed=p))
        if not _equal(base[:, :p], changed[:, :p]):
            first = next(i for i in range(p) if not _equal(base[:, i], changed[:, i]))
            return f"token {first} changed when token {p} did"
    return None


def _check_causal(s: Subject, path: str) -> None:
    with torch.no_grad():
        for m, case, x, where in s.runs(every_case=False):
            if path == "trace" and case.padded:
                continue  # the traced path is dearer; padding is probed on forward and compared by the next checks
            pad = case.padding()
            fn = partial(_forward_output if path == "forward" else _trace_output, m, pad=pad, where=where)
            leak = _first_leak(fn, x, s.seed)
            if leak:
                raise CheckFailed(f"{path} reads the future: {leak}", where)


def _forward_output(m: Guarded, x: Tensor, pad: Tensor | None, where: str) -> Tensor:
    return m.forward(x, pad, where)


def _trace_output(m: Guarded, x: Tensor, pad: Tensor | None, where: str) -> Tensor:
    return m.trace(x, pad, where).output


def check_causal_forward(s: Subject) -> None:
    _check_causal(s, "forward")


def check_causal_trace(s: Subject) -> None:
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
                raise CheckFailed(f"the gradient of output {i} with respect to later input {j} is not zero", where)


def check_forward_matches_trace(s: Subject) -> None:
    """Same output on both paths, for every combination of causal and scaled the app can send."""
    with torch.no_grad():
        for causal in (True, False):
            for scaled in (True, False):
                for m, case, x, where in s.runs(every_case=(causal, scaled) == (True, True), causal=causal, scaled=scaled):
                    pad = case.padding()
                    out, traced = m.forward(x, pad, where), m.trace(x, pad, where).output
                    if not _allclose(out, traced, atol=ATOL, rtol=RTOL):
                        diff = (out - traced).abs().max().item()
                        raise CheckFailed(f"forward and trace disagree by {diff:.2g} with causal={causal}, "
                                          f"scaled={scaled}; the app's views come from trace", where)


def check_trace_is_the_formula(s: Subject) -> None:
    with torch.no_grad():
        for causal in (True, False):
            for m, case, x, where in s.runs(lengths=(1, 9, 33), causal=causal):
                _formula(m.module, m.trace(x, case.padding(), where), case, where)


def _formula(module: AttentionModule, tr: AttentionTrace, case: Case, where: str) -> None:
    """Each stage follows from the one before it, as AttentionTrace documents."""
    mask = tr.mask.expand_as(tr.masked)  # (B, H, T, T)
    real = torch.ones(case.B, case.T, dtype=torch.bool) if case.padding() is None else case.padding()
    if not mask.any(-1)[real[:, None, :].expand(-1, mask.shape[1], -1)].all():
        raise CheckFailed("a real token may attend to no key at all; let every query see at least itself", where)
    k = repeat_kv(tr.k, tr.q.shape[1])  # (B, H, T, hd)
    if type(module).score is AttentionModule.score and not _allclose(tr.scores, tr.q @ k.transpose(-2, -1),
                                                                      atol=ATOL, rtol=RTOL):
        raise CheckFailed("trace.scores is not q · kᵀ", where)
    expected = tr.scores / math.sqrt(tr.q.shape[-1]) if module.config.scaled else tr.scores
    bias = module.bias(case.T, tr.scores.device)
    expected = expected if bias is None else expected + bias
    if not _allclose(tr.scaled, expected, atol=ATOL, rtol=RTOL):
        raise CheckFailed("trace.scaled is not scores / √d_head (plus bias()), as config.scaled says", where)
    if not _allclose(tr.masked[mask], tr.scaled[mask], atol=ATOL, rtol=RTOL):
        raise CheckFailed("trace.masked differs from trace.scaled where the mask allows attention", where)
    rows = real[:, None, :, None].expand_as(mask)  # (B, H, T, T) real query rows
    if tr.weights[~mask].abs().sum() > 0:
        raise CheckFailed("trace.weights is not zero where trace.mask forbids attention", where)
    normalise = torch.softmax if type(module).normalise is AttentionModule.normalise else None
    expected_w = (torch.softmax(tr.masked, dim=-1) if normalise else module.normalise(tr.masked)).masked_fill(~mask, 0)
    if not _allclose(tr.weights[rows], expected_w[rows], atol=ATOL, rtol=RTOL):
        what = "softmax(trace.masked)" if normalise else "normalise(trace.masked)"
        raise CheckFailed(f"trace.weights is not {what}", where)
    if not _allclose(tr.context, tr.weights @ repeat_kv(tr.v, tr.q.shape[1]), atol=ATOL, rtol=RTOL):
        raise CheckFailed("trace.context is not weights · v", where)


def check_control_sees_future(s: Subject) -> None:
    m, case = s.build(causal=False), Case(7, 3)
    x = case.x(s.base.d_model, s.seed)
    with torch.no_grad():
        out, changed = m.forward(x, None, str(case)), m.forward(perturb_position(x, case.T - 1, seed=99), None, str(case))
    if _equal(out[:, : case.T - 1], changed[:, : case.T - 1]):
        raise CheckFailed("with causal=False no earlier token reacts to a later one; honour config.causal "
                          "(or pick options that let a token see further)")


def check_scaling_declared(s: Subject) -> None:
    """uses_scaling must say the truth: the app disables the √d control when it is False."""
    case, largest = Case(9, 1), 0.0
    with torch.no_grad():
        for config in s.deep:
            x = case.x(config.d_model, s.seed)
            on = s.build(config, scaled=True).forward(x, None, str(case))
            off = s.build(config, scaled=False).forward(x, None, str(case))
            largest = max(largest, (on - off).abs().max().item())
    if s.variant.uses_scaling and largest <= ATOL:
        raise CheckFailed("config.scaled changes nothing; declare uses_scaling=False so the app disables the √d control")
    if not s.variant.uses_scaling and largest > ATOL:
        raise CheckFailed(f"the variant declares uses_scaling=False, but config.scaled changes the output by {largest:.2g}")


def _real_rows(weights: Tensor, case: Case) -> Tensor:
    """weights (B, H, T, T) -> the rows of real queries (n, H, T)."""
    rows = weights.permute(0, 2, 1, 3)  # (B, T, H, T)
    pad = case.padding()
    return rows.reshape(-1, *rows.shape[2:]) if pad is None else rows[pad]


CHECKS: dict[str, Callable[[Subject], None]] = {  # in the order they run
    "options validate": check_options,
    "declarations": check_declarations,
    "build": check_build,
    "every setting the app offers": check_every_setting,
    "shapes, NaN and inf": check_shapes_and_values,
    "same answer twice": check_same_answer_twice,
    "rows sum to 1": check_rows_sum_to_one,
    "padding": check_padding,
    "batch rows independent": check_batch_rows_independent,
    "causal forward (perturbation)": check_causal_forward,
    "causal trace (perturbation)": check_causal_trace,
    "causal forward (autograd)": check_causal_autograd,
    "forward agrees with trace": check_forward_matches_trace,
    "trace is the formula": check_trace_is_the_formula,
    "causal=False control sees the future": check_control_sees_future,
    "√d control (uses_scaling)": check_scaling_declared,
}
NEEDS_BUILD = set(CHECKS) - {"options validate", "declarations", "build"}  # skipped when the default cannot build
NORMALISED_ONLY = {"rows sum to 1"}  # skipped for a variant that declares normalised=False


@dataclass(frozen=True)
class Outcome:
    """What one check found, small enough to send back from the child: kind 'pass', 'fail' or 'error'."""

    kind: str
    message: str = ""
    case: str = ""
    error: BaseException | None = None  # the plugin's own exception, when it pickles (for strict mode)
    traceback: str = ""


def run_check(check: str, variant: Variant, base: AttentionConfig, seed: int = 0) -> Outcome:
    """One check on a fresh Subject; whatever the plugin raises (SystemExit too) becomes an Outcome."""
    import pickle
    import traceback

    torch.manual_seed(seed)  # a plugin that draws from the global generator still gives the same report
    try:
        CHECKS[check](Subject(variant, base, seed))
        return Outcome("pass")
    except PluginRaised as exc:
        original = exc.original
        try:
            pickle.dumps(original)
        except Exception:  # noqa: BLE001 - a lock, a generator...: the words and the traceback travel instead
            original = None
        tb = "".join(traceback.format_exception(exc.original))
        return Outcome("error", exc.message, exc.case, original, tb)
    except CheckFailed as exc:
        return Outcome("fail", exc.message, exc.case)
    except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt: still one sentence
        from ..origin import where
        from ..variant import one_line

        at = where(exc)
        tb = "".join(traceback.format_exception(exc))
        return Outcome("error", f"raised {one_line(exc)}" + (f" at {at}" if at else ""), "", None, tb)
