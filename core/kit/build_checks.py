"""Checks on what a variant declares and builds: its options, name and flags, every setting the app offers."""

from __future__ import annotations

import torch

from ..config import AttentionConfig, option_problem
from ..i18n import t
from ..mistakes import ConfigError, excerpt
from ..seeding import seeded_init
from ..variant import display_problem, name_problem
from .cases import Case, describe, sampled_configs
from .guard import CheckFailed, Guarded
from .subject import ATOL, Subject, built


def check_options(s: Subject) -> None:
    """The app builds its controls from the options: each must be well formed, filled in and held to its range."""
    problem = option_problem(s.variant.options)
    if problem:
        raise CheckFailed(t("variant {problem}", problem=problem))
    resolved = s.variant.resolve(AttentionConfig())
    if set(resolved.options) != {o.name for o in s.variant.options}:
        raise CheckFailed(t("resolving the default config did not fill in every option"))
    for o in s.variant.options:
        outside = [b - 1 for b in (o.minimum,) if b is not None] + [b + 1 for b in (o.maximum,) if b is not None]
        for value in outside:
            try:
                s.variant.resolve(AttentionConfig(options={o.name: value}))
            except ConfigError:
                continue
            raise CheckFailed(t("option {name}={value} is outside its range but was accepted", name=o.name, value=value))
        _check_refusals(s, o)


def _check_refusals(s: Subject, o) -> None:
    """A value that is not among the choices, and NaN or inf for a number, must be refused in one sentence."""
    refused = [float("nan"), float("inf")] if isinstance(o.default, float) else []
    if o.choices is not None and isinstance(o.default, str):
        refused.append("|".join(map(str, o.choices)) + "?")  # text no dropdown offers
    for value in refused:
        try:
            s.variant.resolve(AttentionConfig(options={o.name: value}))
        except ConfigError:
            continue
        raise CheckFailed(t("option {name}={value} is not one it offers but was accepted", name=o.name,
                            value=excerpt(value)))


def check_declarations(s: Subject) -> None:
    """The name and the flags the app reads without building anything."""
    problem = name_problem(s.variant.name) or display_problem(s.variant)
    if problem:
        raise CheckFailed(t("the variant {problem}", problem=problem))


def check_build(s: Subject) -> None:
    """The default config must build: every later check starts from a module."""
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
        raise CheckFailed(t("config.scaled changes nothing; declare uses_scaling=False so the app disables the √d "
                            "control"))
    if not s.variant.uses_scaling and largest > ATOL:
        raise CheckFailed(t("the variant declares uses_scaling=False, but config.scaled changes the output by {diff}",
                            diff=format(largest, ".2g")))
