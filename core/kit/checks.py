"""The kit's checks, each a function of a Subject, in the order they run; run_check runs one in a child process.

The checks live by what they probe (build_checks, shape_checks, causal_checks, trace_checks, cache_checks);
this table orders them and is the import path conformance, the report and outside code use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from ..config import AttentionConfig
from ..variant import Variant
from .build_checks import check_build, check_declarations, check_every_setting, check_options, check_scaling_declared
from .cache_checks import check_cached_decoding
from .causal_checks import (
    check_causal_autograd,
    check_causal_forward,
    check_causal_trace,
    check_control_sees_future,
    perturb_position,
    probe_positions,
)
from .guard import CheckFailed, PluginRaised
from .shape_checks import (
    check_batch_rows_independent,
    check_padding,
    check_rows_sum_to_one,
    check_same_answer_twice,
    check_shapes_and_values,
)
from .subject import ATOL, RTOL, Subject, built
from .trace_checks import check_forward_matches_trace, check_trace_is_the_formula

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
    "cached decoding equals the recompute": check_cached_decoding,
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
        from ..variant import one_line, where

        at = where(exc)
        tb = "".join(traceback.format_exception(exc))
        return Outcome("error", f"raised {one_line(exc)}" + (f" at {at}" if at else ""), "", None, tb)


__all__ = [
    "ATOL", "CHECKS", "NEEDS_BUILD", "NORMALISED_ONLY", "RTOL", "Outcome", "Subject", "built",
    "check_batch_rows_independent", "check_build", "check_causal_autograd", "check_causal_forward",
    "check_causal_trace", "check_control_sees_future", "check_declarations", "check_every_setting",
    "check_forward_matches_trace", "check_options", "check_padding", "check_rows_sum_to_one",
    "check_same_answer_twice", "check_scaling_declared", "check_shapes_and_values", "check_trace_is_the_formula",
    "perturb_position", "probe_positions", "run_check",
]
