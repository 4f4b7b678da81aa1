"""What every check probes: the variant, the configs it is tried on, fresh modules; and the tolerances."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import torch
from torch import Tensor

from ..attention import AttentionModule
from ..config import AttentionConfig, ConfigError
from ..seeding import seeded_init
from ..variant import BuildFailed, Variant, construct
from .cases import LENGTHS, Case, cases, deep_configs, describe
from .guard import CheckFailed, Guarded, PluginRaised

ATOL, RTOL = 1e-5, 1e-4
allclose = torch.allclose  # bound now, before any plugin code runs in this process
equal = torch.equal


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
