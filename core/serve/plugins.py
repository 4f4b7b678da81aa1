"""A third-party plugin's code runs in its own worker process: whatever it does costs only its own requests.

Built-in variants run here, in the server. A variant from any other plugin is built, traced and
probed in that plugin's worker (core.proc.sandbox.Worker: a time limit, a memory cap, restarted after a
crash), and what comes back is checked before a view uses it. While a request waits on the worker, its
queue slot is lent to the next request (core.serve.slots): a plugin that hangs or spins slows nobody.
A plugin that fails badly (no answer, a crash, out of memory) three times in a row is switched off.
The worker speaks the request's language: a sentence it makes (a setting the variant refuses, the kit's report)
comes back in it.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..i18n import SOURCE, current, speaking, t
from ..lab import causality, model_stats
from ..lab.session import Lab, Request, Run, trace_problem
from ..mistakes import ConfigError, excerpt
from ..proc.sandbox import SandboxError, Worker
from ..registry import Registry, load_registry
from ..said import Said
from ..variant import Variant, one_line
from .cache import Same
from .slots import CPU

VIEW_TIMEOUT_S = 5.0  # one view of one sentence: far more than any sane plugin needs
SECONDS_ENV = "ATTENTION_LAB_PLUGIN_SECONDS"  # the view's time limit (the others in proportion), to change
MODEL_TIMEOUT_S = 15.0  # the Model tab builds every layer of a GPT-2-sized model (on the meta device)
CHECK_TIMEOUT_S = 120.0  # the conformance kit runs many configurations
MEMORY_MB = 1024  # what a plugin's worker may add to the preloaded torch
WORKER_NICE = 10  # a plugin that spins gets the cores only when the class does not need them
WAITING = 2  # requests that may wait for a busy plugin, beyond the one it runs; more are told to retry
FAILURES_TO_SWITCH_OFF = 3  # time limits, crashes or memory, in a row


class PluginFault(ConfigError):
    """A plugin's code failed or answered nonsense; one sentence that names the plugin and what happened."""


@dataclass
class _Plugin:
    """One plugin's worker and its record in this run."""

    name: str
    worker: Worker
    turn: threading.Lock = field(default_factory=threading.Lock)  # one request in the worker at a time
    waiting: int = 0  # requests in the worker or waiting for it
    failures: int = 0  # bad failures in a row
    off: Said | None = None  # why it was switched off (None while it is on), said to whoever asks


class Guard:
    """Routes each variant's code: built-ins here, every other plugin's into its worker process."""

    def __init__(self, registry: Registry, memory_mb: int = MEMORY_MB) -> None:
        self.registry, self.memory_mb = registry, memory_mb
        scale = float(os.environ.get(SECONDS_ENV) or VIEW_TIMEOUT_S) / VIEW_TIMEOUT_S  # the env sets the view's
        self.timeouts = {"view": scale * VIEW_TIMEOUT_S, "model": scale * MODEL_TIMEOUT_S,
                         "check": scale * CHECK_TIMEOUT_S}
        self._plugins: dict[str, _Plugin] = {}
        self._lock = threading.Lock()
        self._sendable: dict[str, Any] = {}  # variant name -> what the worker is sent to find it

    def isolated(self, variant: Any) -> bool:
        """True when the variant comes from a plugin that is not built in (unknown names: False)."""
        v = self.registry.variants.get(variant) if isinstance(variant, str) else None
        if v is None:
            return False
        info = self.registry.plugins.get(v.plugin)
        return not (info is not None and info.builtin)

    def call(self, variant: str, fn: Any, *args: Any, kind: str = "view") -> Any:
        """fn(registry, *args) in the worker of the variant's plugin, within the time limit of its kind
        ("view", "model" or "check"); every failure a PluginFault sentence."""
        timeout = self.timeouts[kind]
        v = self.registry.get(variant)
        plugin = self._plugin(v.plugin)
        with CPU.released():  # waiting on another process: its queue slot goes to the next request meanwhile
            with self._lock:
                if plugin.off:
                    raise PluginFault(str(plugin.off))
                if plugin.waiting > WAITING:
                    raise PluginFault(t("plugin {name} is busy with {n} other requests; try again in a few seconds.",
                                        name=repr(plugin.name), n=plugin.waiting))
                plugin.waiting += 1
            try:
                if not plugin.turn.acquire(timeout=timeout):
                    raise PluginFault(t("plugin {name} did not answer within {seconds} s (it was busy with other "
                                        "requests).", name=repr(plugin.name), seconds=format(timeout, "g")))
                try:
                    return self._run(plugin, v, fn, args, timeout)
                finally:
                    plugin.turn.release()
            finally:
                with self._lock:
                    plugin.waiting -= 1

    def switched_off(self) -> list[str]:
        """One sentence per plugin switched off in this run, for the Plugins tab."""
        with self._lock:
            return [str(p.off) for p in self._plugins.values() if p.off]

    def warm(self) -> None:
        """Start every third-party plugin's worker before a student picks one: a process start is slow."""
        for v in list(self.registry.variants.values()):
            if self.isolated(v.name):
                try:
                    self.call(v.name, _ready, kind="check")
                except ConfigError:
                    pass  # the first request says what is wrong

    def close(self) -> None:
        """End every worker (a later call starts a new one)."""
        for plugin in list(self._plugins.values()):
            plugin.worker.close()

    def _plugin(self, name: str) -> _Plugin:
        with self._lock:
            if name not in self._plugins:
                worker = Worker(f"plugin {name!r}", memory_mb=self.memory_mb, nice=WORKER_NICE)
                self._plugins[name] = _Plugin(name, worker)
            return self._plugins[name]

    def _run(self, plugin: _Plugin, v: Variant, fn: Any, args: tuple, timeout: float) -> Any:
        if plugin.off:
            raise PluginFault(str(plugin.off))
        try:
            result = plugin.worker.call(_in_worker, self._how_to_find(v), fn, args, current(), timeout=timeout)
        except SandboxError as exc:
            raise self._failed(plugin, exc, timeout) from None
        except ConfigError:
            plugin.failures = 0
            raise  # a setting the variant refuses (or its build() failing): already one sentence
        except Exception as exc:  # the plugin's forward/trace/bias raised
            at = next((n[3:] for n in getattr(exc, "__notes__", ()) if n.startswith("at ")), "")  # (sandbox's note)
            error = one_line(exc)[:120]
            raise PluginFault(t("plugin {name} failed: {error} (at {at}).", name=repr(plugin.name), error=error, at=at)
                              if at else t("plugin {name} failed: {error}.", name=repr(plugin.name), error=error)
                              ) from None
        plugin.failures = 0
        return result

    def _failed(self, plugin: _Plugin, exc: SandboxError, timeout: float) -> PluginFault:
        """One sentence for what happened; switch the plugin off when it keeps happening."""
        name, seconds, at, mb = repr(plugin.name), f"{timeout:g}", exc.where, self.memory_mb
        if exc.kind == "timeout":
            said = t("plugin {name} did not answer within {seconds} s; the lab stopped it.", name=name, seconds=seconds)
            off = Said.t("plugin {name} is switched off for this run: it did not answer within {seconds} s, {n} times "
                         "in a row; restart the lab to try it again.", name=name, seconds=seconds)
        elif exc.kind == "memory":
            said = (t("plugin {name} ran out of memory at {at} (a plugin may use {mb} MB); the lab stopped it.",
                      name=name, at=at, mb=mb) if at else
                    t("plugin {name} ran out of memory (a plugin may use {mb} MB); the lab stopped it.", name=name,
                      mb=mb))
            off = Said.t("plugin {name} is switched off for this run: it ran out of memory, {n} times in a row; "
                         "restart the lab to try it again.", name=name)
        else:  # died (the sandbox's sentence names the plugin), or could not send its answer back (it does not)
            sentence = t("{sentence} at {at}", sentence=str(exc)[:100], at=at) if at else str(exc)[:100]
            said = (t("{sentence}; the lab restarted its worker.", sentence=sentence) if exc.kind == "died" else
                    t("plugin {name} {problem}; the lab restarted its worker.", name=name, problem=sentence))
            off = Said.t("plugin {name} is switched off for this run: it failed, {n} times in a row; restart the lab "
                         "to try it again.", name=name)
        with self._lock:
            plugin.failures += 1
            if plugin.failures >= FAILURES_TO_SWITCH_OFF and not plugin.off:
                off.fields["n"] = plugin.failures
                plugin.off = off
        return PluginFault(said)

    def _how_to_find(self, v: Variant) -> Any:
        """The variant itself when it pickles (by reference to its module), else its name (the worker loads it)."""
        if v.name not in self._sendable:
            try:
                pickle.dumps(v)
                self._sendable[v.name] = v
            except Exception:  # a lambda or a local class: the worker finds it through the entry points
                self._sendable[v.name] = v.name
        return self._sendable[v.name]


_GUARDS_LOCK = threading.Lock()


def guard_for(registry: Registry) -> Guard:
    """The one Guard of a registry: its plugins' workers belong to the registry that loaded them."""
    with _GUARDS_LOCK:
        guard = registry.__dict__.get("_lab_guard")
        if guard is None:
            guard = registry.__dict__["_lab_guard"] = Guard(registry)
        return guard


class AppLab(Lab):
    """The lab as the app serves it: a third-party variant's requests are computed in its plugin's worker."""

    def __init__(self, registry: Registry) -> None:
        super().__init__(registry)
        self.guard = guard_for(registry)

    def _run(self, req: Request) -> Run:
        if not self.guard.isolated(req.variant):
            return super()._run(req)
        plugin = self.registry.get(req.variant).plugin
        run = self.guard.call(req.variant, _lab_run, req)
        problem = trace_problem(run) if isinstance(run, Run) else t("a {kind}, not a trace", kind=type(run).__name__)
        if problem:
            raise PluginFault(t("plugin {name} returned {problem}.", name=repr(plugin), problem=problem))
        return run


def switched_off_text(registry: Registry) -> str:
    """The Plugins tab's line: each plugin switched off in this run and why, or that none is."""
    return "\n".join(guard_for(registry).switched_off()) or t("None: every plugin is answering.")


def probe(lab: Lab, sentence: Any, position: Any, replacement: Any, causal: Any = True, variant: Any = "multi-head",
          seed: int = 0) -> causality.CausalityResult:
    """core.lab.causality.probe, in the plugin's worker when the variant is a third party's."""
    guard = guard_for(lab.registry)
    if not guard.isolated(variant):
        return causality.probe(lab, sentence, position, replacement, causal, variant, seed)
    result = guard.call(variant, _probe, sentence, position, replacement, causal, variant, seed)
    if not isinstance(result, causality.CausalityResult):
        raise PluginFault(t("plugin {name} returned a {kind}.", name=repr(lab.registry.get(variant).plugin),
                            kind=type(result).__name__))
    return result


def counted_size(registry: Registry, preset: Any, variant: Any, n_kv_heads: Any, window: Any) -> tuple:
    """model_size counted once per setting and language (on the meta device; the tables are words): the caller's
    own copy, the class shares the count."""
    return copy.deepcopy(_counted(Same(registry), preset, variant, n_kv_heads, window, current()))


@lru_cache(maxsize=64)
def _counted(same: Same, preset: Any, variant: Any, n_kv_heads: Any, window: Any, language: str) -> tuple:
    return model_size(same.registry, preset, variant, n_kv_heads, window)


def model_size(registry: Registry, preset: Any, variant: Any, n_kv_heads: Any, window: Any) -> tuple:
    """core.lab.model_stats.model_size, in the plugin's worker when the variant is a third party's."""
    guard = guard_for(registry)
    if not guard.isolated(variant):
        return model_stats.model_size(registry, preset, variant, n_kv_heads, window)
    return guard.call(variant, _model_size, preset, variant, n_kv_heads, window, kind="model")


def check(registry: Registry, name: Any) -> Any:
    """The conformance kit's report on a variant (core.kit), in the plugin's worker for a third party's."""
    from ..kit.conformance import check_variant

    guard = guard_for(registry)
    if not guard.isolated(name):
        return check_variant(registry.get(name))
    return guard.call(name, _check, name, kind="check")


# ---- what runs in the worker ------------------------------------------------------------

_WORKER_REGISTRIES: dict[str, Registry] = {}


def _in_worker(how: Variant | str, fn: Any, args: tuple, language: str = SOURCE) -> Any:
    """In the plugin's worker: the built-ins plus the plugin's variant, then fn(registry, *args) in the request's
    language."""
    with speaking(language):
        return _found(how, fn, args)


def _found(how: Variant | str, fn: Any, args: tuple) -> Any:
    name = how.name if isinstance(how, Variant) else how
    registry = _WORKER_REGISTRIES.get(name)
    if registry is None:
        if isinstance(how, Variant):
            registry = load_registry(entry_points=False)
            registry.variants[name] = how
        else:
            registry = load_registry()
            if name not in registry.variants:
                raise ConfigError(t("variant {name} cannot run in a worker process: define its build() at module "
                                    "level, or install its plugin with an entry point.", name=excerpt(name)))
        _WORKER_REGISTRIES[name] = registry
    return fn(registry, *args)


def _ready(registry: Registry) -> bool:
    return True


def _lab_run(registry: Registry, req: Request) -> Run:
    """Lab.run without the module (it stays in the worker): tokens, config, x and every stage, compact."""
    run = Lab(registry).run(req)
    trace = type(run.trace)(**{f.name: _compact(getattr(run.trace, f.name))
                               for f in dataclasses.fields(run.trace)})
    return dataclasses.replace(run, module=None, x=_compact(run.x), trace=trace)


def _compact(t: Any) -> Any:
    """A tensor detached and copied into its own storage (a view would send the storage it views)."""
    return t.detach().contiguous().clone() if hasattr(t, "detach") else t


def _probe(registry: Registry, *args: Any) -> causality.CausalityResult:
    return causality.probe(Lab(registry), *args)


def _model_size(registry: Registry, *args: Any) -> tuple:
    return model_stats.model_size(registry, *args)


def _check(registry: Registry, name: str) -> Any:
    from ..kit.conformance import check_variant

    return check_variant(registry.get(name))
