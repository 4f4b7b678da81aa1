"""A registered variant inside a real model, for the app: its name and options checked, its fit judged once, and its
formula run here (built-in) or in its plugin's worker (a third party's: the model's q, k, v go there, its weights
and context come back, checked)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..config import parse_options
from ..gpt.lab_attention import Formula
from ..i18n import mark, t
from ..lab import real_variant
from ..lab.broken_model import Breakage
from ..mistakes import ConfigError, choices_text, named
from ..registry import Registry
from .plugins import PluginFault, guard_for
from .real_models import Loaded

MESSAGES = {
    "options": mark("options apply to a variant; choose one (for example sliding-window with {\"window\": 4}) or "
                    "leave options as {}"),
    "variant": mark("{value} is not a registered variant; choose {choices}, or leave it empty for the model's own "
                    "formula"),
    "returned": mark("plugin '{plugin}' returned {what} that is not a tensor of shape {want}"),
}
LAYER = "layer"  # the one option that is the placement's, not the variant's: the layer it runs in (absent: every one)
_registry: list[Registry] = []


def use_registry(registry: Registry) -> None:
    """The registry the app loaded (its plugins, its workers); set when the tab is built."""
    _registry[:] = [registry]


def registry() -> Registry:
    if not _registry:
        from ..gpt.block import default_registry

        _registry.append(default_registry())
    return _registry[0]


def placed(model: Loaded, variant: Any, options: Any, causal: bool, scaled: bool) -> tuple[str, tuple, int | None]:
    """(variant name, its options sorted, its one layer or None) for a Breakage; ConfigError in one sentence when the
    variant is unknown, an option is wrong or its formula cannot run in this model."""
    if variant in ("", None):
        if parse_options(options):
            raise ConfigError(t(MESSAGES["options"]))
        return "", (), None
    reg = registry()
    if not isinstance(variant, str) or variant not in reg.variants:
        raise ConfigError(t(MESSAGES["variant"], value=named("variant", variant),
                            choices=choices_text(f"'{n}'" for n in reg.variants)))
    v = reg.get(variant)
    opts = parse_options(options)
    layer = real_variant.layer(opts.pop(LAYER, None), model.arch, model.label)
    if guard_for(reg).isolated(v.name):
        guard_for(reg).call(v.name, _fit_in_worker, v.name, opts, model.arch, model.label, causal, scaled)
    else:
        _fitted(v.name, tuple(sorted(opts.items())), model.arch, model.label, causal, scaled)
    return v.name, tuple(sorted(opts.items())), layer


@lru_cache(maxsize=64)
def _fitted(name: str, options: tuple, arch: Any, label: str, causal: bool, scaled: bool) -> Any:
    return real_variant.fitted(registry().get(name), dict(options), arch, label, causal, scaled)


def formula(model: Loaded, breakage: Breakage) -> Formula | None:
    """The variant's formula for the model's attention function, or None when the model's own runs."""
    if not breakage.variant:
        return None
    reg = registry()
    name, options = breakage.variant, breakage.options
    if not guard_for(reg).isolated(name):
        module = _fitted(name, options, model.arch, model.label, breakage.causal, breakage.scaled)
        return real_variant.formula(module, model.arch, name, model.label)
    args = (name, dict(options), model.arch, model.label, breakage.causal, breakage.scaled)

    def in_worker(q, k, v):
        stages = guard_for(reg).call(name, _stages_in_worker, *args, q.contiguous(), k.contiguous(), v.contiguous())
        B, H, T, hd = q.shape
        for what, want in (("weights", (B, H, T, T)), ("context", (B, H, T, hd))):
            got = stages.get(what) if isinstance(stages, dict) else None
            if not hasattr(got, "shape") or tuple(got.shape) != want:
                raise PluginFault(t(MESSAGES["returned"], plugin=reg.get(name).plugin, what=what, want=want))
        return stages

    return in_worker


# ---- in a third-party plugin's worker ------------------------------------------------------------

_WORKER_MODULES: dict[tuple, Any] = {}


def _worker_module(registry: Registry, name: str, options: tuple, arch: Any, label: str, causal: bool,
                   scaled: bool) -> Any:
    key = (name, options, arch, label, causal, scaled)
    if key not in _WORKER_MODULES:
        if len(_WORKER_MODULES) > 16:
            _WORKER_MODULES.clear()
        _WORKER_MODULES[key] = real_variant.fitted(registry.get(name), dict(options), arch, label, causal, scaled)
    return _WORKER_MODULES[key]


def _fit_in_worker(registry: Registry, name: str, options: dict, arch: Any, label: str, causal: bool,
                   scaled: bool) -> bool:
    _worker_module(registry, name, tuple(sorted(options.items())), arch, label, causal, scaled)
    return True


def _stages_in_worker(registry: Registry, name: str, options: dict, arch: Any, label: str, causal: bool,
                      scaled: bool, q: Any, k: Any, v: Any) -> dict:
    module = _worker_module(registry, name, tuple(sorted(options.items())), arch, label, causal, scaled)
    stages = real_variant.formula(module, arch, name, label)(q, k, v)
    return {key: stages[key].detach().contiguous().clone() for key in ("scores", "scaled", "masked", "weights",
                                                                         "context") if key in stages}
