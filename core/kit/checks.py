"""The kit's checks, each a function of a Subject, in the order they run; run_check runs one in a child process.

The checks live by what they probe (build_checks, shape_checks, causal_checks, trace_checks, cache_checks);
this table orders them and is the import path conformance, the report and outside code use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from ..config import AttentionConfig
from ..i18n import SOURCE, mark, speaking, t
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

CHECKS: dict[str, Callable[[Subject], None]] = {  # in the order they run; each name said as t(name)
    mark("options validate"): check_options,
    mark("declarations"): check_declarations,
    mark("build"): check_build,
    mark("every setting the app offers"): check_every_setting,
    mark("shapes, NaN and inf"): check_shapes_and_values,
    mark("same answer twice"): check_same_answer_twice,
    mark("rows sum to 1"): check_rows_sum_to_one,
    mark("padding"): check_padding,
    mark("batch rows independent"): check_batch_rows_independent,
    mark("causal forward (perturbation)"): check_causal_forward,
    mark("causal trace (perturbation)"): check_causal_trace,
    mark("causal forward (autograd)"): check_causal_autograd,
    mark("forward agrees with trace"): check_forward_matches_trace,
    mark("trace is the formula"): check_trace_is_the_formula,
    mark("cached decoding equals the recompute"): check_cached_decoding,
    mark("causal=False control sees the future"): check_control_sees_future,
    mark("√d control (uses_scaling)"): check_scaling_declared,
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


def run_check(check: str, variant: Variant, base: AttentionConfig, seed: int = 0, language: str = SOURCE) -> Outcome:
    """One check on a fresh Subject; whatever the plugin raises (SystemExit too) becomes an Outcome, its sentence in
    `language` (the reader's: a child process does not know it otherwise)."""
    with speaking(language):
        return _run_check(check, variant, base, seed)


def _run_check(check: str, variant: Variant, base: AttentionConfig, seed: int) -> Outcome:
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
        message = (t("raised {error} at {at}", error=one_line(exc), at=at) if at else
                   t("raised {error}", error=one_line(exc)))
        return Outcome("error", message, "", None, tb)


__all__ = [
    "ATOL", "CHECKS", "NEEDS_BUILD", "NORMALISED_ONLY", "RTOL", "Outcome", "Subject", "built",
    "check_batch_rows_independent", "check_build", "check_causal_autograd", "check_causal_forward",
    "check_causal_trace", "check_control_sees_future", "check_declarations", "check_every_setting",
    "check_forward_matches_trace", "check_options", "check_padding", "check_rows_sum_to_one",
    "check_same_answer_twice", "check_scaling_declared", "check_shapes_and_values", "check_trace_is_the_formula",
    "perturb_position", "probe_positions", "run_check",
]
