"""The conformance kit: run a variant's real module and check every promise the lab relies on.

Each check runs in a child process (core.proc.sandbox) with a time limit and a memory cap, so a plugin
that hangs, spins, exits or leaves threads behind costs one check, never the caller. A failure is
reported once: a later check that trips over the same fault says so instead of repeating it.
"""

from __future__ import annotations

import contextvars
import pickle
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..config import AttentionConfig, ConfigError
from ..i18n import current, t, t_n
from ..plugin_collect import STRICT_NOTE, strict
from ..proc import CORES
from ..proc.sandbox import SandboxError, run_in_child
from ..variant import Variant, one_line
from .checks import CHECKS, NEEDS_BUILD, NORMALISED_ONLY, Outcome, perturb_position, run_check
from .guard import CheckFailed

TIMEOUT = 20.0  # seconds one check may take: room for the slowest on a busy shared machine
MEMORY_MB = 2048  # how much more memory one check's process may take
WORKERS = CORES  # checks run at once: one per core of the machine the lab targets
CANARY = "every setting the app offers"  # the first check that runs the plugin's forward and trace
OPTIONS = "options validate"  # the first check: the options must resolve before anything is built


@dataclass(frozen=True)
class CheckReport:
    """What check_variant found: passed, one sentence per failure, seconds per check, and what was skipped.

    Its sentences are in the language of whoever asked (core.i18n.current() when check_variant was called); the
    check names (the keys) are the kit's own, said as t(check)."""

    passed: bool
    failures: list[str] = field(default_factory=list)  # "check: one sentence", in the order run
    timings: dict[str, float] = field(default_factory=dict)  # check -> seconds, every check that ran
    variant: str = ""
    skipped: dict[str, str] = field(default_factory=dict)  # check -> why it did not run (or repeated a failure)
    plugin: str = ""
    found: dict[str, str] = field(default_factory=dict)  # check -> its failure's sentence (with the case)
    repeated: dict[str, str] = field(default_factory=dict)  # check -> the earlier check that found the same fault

    def __str__(self) -> str:
        n = len(self.timings)
        head = (t_n("{variant}: passed ({n} check)", "{variant}: passed ({n} checks)", n, variant=self.variant)
                if self.passed else
                t_n("{variant}: FAILED ({n} check)", "{variant}: FAILED ({n} checks)", n, variant=self.variant))
        lines = [head, *(f"  - {f}" for f in self.failures)]
        if self.repeated:
            lines.append(t_n("  ({n} more check stopped at the same fault)",
                             "  ({n} more checks stopped at the same fault)", len(self.repeated)))
        return "\n".join(lines)


class RemoteTraceback(Exception):
    """The traceback of a plugin's exception in the kit's child process, shown under the re-raised exception."""

    def __str__(self) -> str:
        return "\n" + "".join(self.args)


def check_variant(
    variant: Variant,
    config: AttentionConfig | None = None,
    *,
    timeout: float = TIMEOUT,
    isolate: bool = True,
    seed: int = 0,
    raise_errors: bool | None = None,
    only: Iterable[str] | None = None,
    workers: int = WORKERS,
) -> CheckReport:
    """Build the variant and test the real module; nothing it says about itself is taken on trust.

    isolate=False runs the checks in this process (no time limit); only= runs a subset of CHECKS;
    workers= how many checks run at once. raise_errors (default: the ATTENTION_LAB_STRICT variable)
    re-raises the plugin's own exception, with its traceback.
    """
    name = getattr(variant, "name", repr(variant))
    plugin = getattr(variant, "plugin", "") or name
    raise_errors = strict() if raise_errors is None else raise_errors
    wanted = [c for c in CHECKS if only is None or c in set(only)]
    report = _Collector(plugin, raise_errors)
    try:
        base = variant.resolve((config or AttentionConfig()).replace(causal=True, dropout=0.0))
    except Exception as exc:  # noqa: BLE001 - options that do not resolve: nothing can be built
        report.fail(OPTIONS, str(exc) if isinstance(exc, ConfigError) else one_line(exc))
        report.skipped.update({c: t("the options do not resolve") for c in wanted if c != OPTIONS})
        return report.result(name)
    runner = _runner(variant, base, seed, plugin, timeout, isolate)
    gates = [c for c in wanted if c not in NEEDS_BUILD]
    for check in gates:  # cheap, in order: the rest needs a module that builds
        report.add(check, *runner(check))
    rest = [c for c in wanted if c in NEEDS_BUILD]
    if "build" not in report.timings:  # asked for a subset without it: build once to know
        report.add("build", *runner("build"), record=False)
    if not report.built:
        report.skipped.update({c: t("the default config does not build") for c in rest})
        return report.result(name)
    if rest and rest[0] == CANARY:  # alone first: a plugin that hangs costs one time limit, not one per worker
        report.add(CANARY, *runner(CANARY))
        rest = rest[1:]
    if report.stopped:
        report.skipped.update({c: report.stopped for c in rest})
        return report.result(name)
    rest = [c for c in rest if c not in NORMALISED_ONLY or getattr(variant, "normalised", True)]
    report.skipped.update({c: t("the variant declares normalised=False") for c in wanted if c in NORMALISED_ONLY
                           and c not in rest})
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:  # each thread only waits for its child
        futures = {c: pool.submit(contextvars.copy_context().run, runner, c) for c in rest}  # (in this language)
        for check in rest:
            if report.stopped:
                futures[check].cancel()
                report.skipped[check] = report.stopped
                continue
            report.add(check, *futures[check].result())
    return report.result(name)


class _Collector:
    """Outcomes in check order: a fault reported once, strict mode honoured, a stopped plugin not waited for."""

    def __init__(self, plugin: str, raise_errors: bool) -> None:
        self.plugin, self.raise_errors = plugin, raise_errors
        self.failures: list[str] = []
        self.timings: dict[str, float] = {}
        self.skipped: dict[str, str] = {}
        self.found: dict[str, str] = {}
        self.repeated: dict[str, str] = {}
        self.seen: dict[str, str] = {}  # failure sentence -> the check that reported it first
        self.stopped, self.built = "", False

    def add(self, check: str, outcome: Outcome, seconds: float, record: bool = True) -> None:
        if check == "build":
            self.built = outcome.kind == "pass"
        if not record and outcome.kind == "pass":
            return
        self.timings[check] = seconds
        if outcome.kind == "pass":
            return
        if outcome.kind == "stop":  # timed out, died or ran out of memory: the rest would only wait
            self.stopped = t("not run: the plugin stopped answering in {check}", check=repr(t(check)))
        if outcome.kind == "error" and self.raise_errors:
            _reraise(outcome, self.plugin, check)
        if outcome.message in self.seen:
            self.repeated[check] = self.seen[outcome.message]
            self.skipped[check] = t("same fault as {check}", check=repr(t(self.seen[outcome.message])))
            return
        self.seen[outcome.message] = check
        self.fail(check, outcome.message, outcome.case)

    def fail(self, check: str, message: str, case: str = "") -> None:
        """One failure, in the report's two forms: a line of the text, and the check's sentence."""
        said = t("{message} ({case})", message=message, case=case) if case else message
        self.found[check] = said
        self.failures.append(t("{check}: {message}", check=t(check), message=said))

    def result(self, name: str) -> CheckReport:
        return CheckReport(not self.failures, self.failures, self.timings, name, self.skipped, self.plugin,
                           self.found, self.repeated)


def _runner(variant: Variant, base: AttentionConfig, seed: int, plugin: str, timeout: float,
            isolate: bool) -> Callable[[str], tuple[Outcome, float]]:
    """check -> (outcome, seconds): in the forkserver's children, in forked ones (a variant that does not pickle), or here.
    Each check's sentences are made in the caller's language (a child is told it)."""
    language = current()
    try:
        pickle.dumps(variant)
        method = "forkserver"
    except Exception:  # noqa: BLE001 - a lambda or a class defined in a function: fork this process instead
        method = "fork"

    def run(check: str) -> tuple[Outcome, float]:
        start = time.perf_counter()
        if not isolate:
            return run_check(check, variant, base, seed, language), time.perf_counter() - start
        try:
            outcome = run_in_child(run_check, check, variant, base, seed, language, label=f"plugin {plugin}",
                                   timeout=timeout, memory_mb=MEMORY_MB, start=method)
        except SandboxError as exc:  # (the sandbox's own sentence)
            said = t("{sentence} at {at}", sentence=str(exc), at=exc.where) if exc.where else str(exc)
            outcome = Outcome("stop" if exc.kind in ("timeout", "died", "memory") else "error", said)
        return outcome, time.perf_counter() - start

    return run


def _reraise(outcome: Outcome, plugin: str, check: str) -> None:
    """Strict mode: the plugin's own exception (or its words), its child traceback attached as the cause."""
    exc = outcome.error or RuntimeError(outcome.message)
    exc.add_note(f"attention-lab: plugin {plugin} raised this in the check {check!r} {STRICT_NOTE}")
    raise exc from (RemoteTraceback(outcome.traceback) if outcome.traceback else None)


__all__ = ["CHECKS", "CheckFailed", "CheckReport", "check_variant", "perturb_position"]
