"""What the kit runs a variant on: the settings the app can send, sampled with a seed, and the inputs."""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch
from torch import Tensor

from ..config import AttentionConfig, ConfigError, Option
from ..i18n import t
from ..variant import Variant

# What the app offers (the Attention tab's controls and the lab's token cap), so the kit tries what students can.
D_MODELS = (4, 8, 16, 32, 64)
MAX_HEADS = 8
LENGTHS = (1, 7, 9, 33, 64)  # 1, either side of 8, and up to the lab's 64-token cap
BATCHES = (1, 3)
AUTOGRAD_LENGTHS = (7, 9, 33)  # one backward pass per output row: the longest length is left to the probes
SAMPLES_PER_SHAPE = 2  # sampled option settings per (d_model, n_heads), beside the defaults


@dataclass(frozen=True)
class Case:
    """One input the kit feeds a module: T tokens, a batch of B, maybe padded on the right."""

    T: int
    B: int
    padded: bool = False

    @property
    def lengths(self) -> tuple[int, ...]:
        """Real tokens per sequence: with padding the batch mixes full, shorter and one-token sequences."""
        if not self.padded:
            return (self.T,) * self.B
        short = (self.T, max(1, self.T - 2), 1) if self.B == 3 else (max(1, self.T - 3),)
        return short[: self.B]

    def padding(self) -> Tensor | None:
        """key_padding_mask (B, T), True = real token, or None without padding."""
        if not self.padded:
            return None
        return torch.arange(self.T)[None, :] < torch.tensor(self.lengths)[:, None]  # (B, T)

    def x(self, d_model: int, seed: int = 0) -> Tensor:
        """Token vectors (B, T, d_model) from a private generator: the same case gives the same input."""
        g = torch.Generator().manual_seed(seed * 1_000_003 + self.T * 31 + self.B)
        return torch.randn(self.B, self.T, d_model, generator=g)

    def __str__(self) -> str:
        if self.padded:
            return t("T={T}, batch {B} with padding", T=self.T, B=self.B)
        return t("T={T}, batch {B}", T=self.T, B=self.B)


def cases(lengths: tuple[int, ...] = LENGTHS) -> list[Case]:
    """Every length, batch 1 and 3, without and with padding (a one-token sequence cannot be padded)."""
    out = []
    for T in lengths:
        for B in BATCHES:
            out.append(Case(T, B))
            if T > 1:
                out.append(Case(T, B, padded=True))
    return out


def describe(config: AttentionConfig) -> str:
    """'d_model=16, n_heads=2, window=3, causal=False': the settings a report names."""
    parts = [f"d_model={config.d_model}", f"n_heads={config.n_heads}"]
    parts += [f"{k}={v}" for k, v in sorted(config.options.items())]
    parts += [f"{flag}=False" for flag in ("causal", "scaled") if not getattr(config, flag)]
    return ", ".join(parts)


def shapes(variant: Variant) -> list[tuple[int, int]]:
    """Every (d_model, n_heads) the app offers: heads from 1 to 8 that divide d_model (one head if unused)."""
    heads = range(1, MAX_HEADS + 1) if variant.uses_heads else (1,)
    return [(d, h) for d in D_MODELS for h in heads if d % h == 0]


def option_values(option: Option, rng: random.Random) -> object:
    """One value a control could send: one of its choices, often an end of the range, else a value near the low end."""
    default = option.default
    if option.choices is not None:
        return rng.choice(option.choices)  # a dropdown sends one of its choices
    if isinstance(default, bool):
        return rng.choice((False, True))
    if not isinstance(default, (int, float)):
        return default
    low = option.minimum if option.minimum is not None else min(default, 0)
    high = option.maximum if option.maximum is not None else max(default * 4, low + 16)
    pick = rng.random()
    if pick < 0.2:
        value = low
    elif pick < 0.4:
        value = high
    elif isinstance(default, int):
        value = rng.randint(int(low), int(min(high, low + 16)))
    else:
        value = rng.uniform(low, min(high, low + 16))
    return int(value) if isinstance(default, int) else float(value)


def sampled_configs(variant: Variant, base: AttentionConfig, seed: int = 0) -> list[AttentionConfig]:
    """Every (d_model, n_heads) with the default options and SAMPLES_PER_SHAPE seeded option settings each.

    causal and scaled are drawn too, so every combination the app can send is tried somewhere.
    """
    rng = random.Random(seed)
    out: list[AttentionConfig] = []
    for d, h in shapes(variant):
        for i in range(1 + (SAMPLES_PER_SHAPE if variant.options else 0)):
            options = {} if i == 0 else {o.name: option_values(o, rng) for o in variant.options}
            flags = {"causal": rng.random() < 0.5, "scaled": rng.random() < 0.5}
            try:
                out.append(variant.resolve(base.replace(d_model=d, n_heads=h, options=options, **flags)))
            except ConfigError:  # a value the option refuses is the control's to stop, not the variant's
                continue
    return out


def deep_configs(variant: Variant, base: AttentionConfig, seed: int = 0) -> list[list[AttentionConfig]]:
    """The configs every probe runs on: the one asked for, the widest and the narrowest the app offers.

    Each entry lists candidates in order; the kit takes the first that builds (a variant may refuse
    some settings with a ConfigError, as GQA refuses n_kv_heads that do not divide n_heads).
    """
    rng = random.Random(seed + 1)
    all_shapes = shapes(variant)
    wide, narrow = all_shapes[-1], (8, 1)
    out = [[base]]
    for d, h in (wide, narrow):
        candidates = [variant.resolve(base.replace(d_model=d, n_heads=h, options={}))]
        for _ in range(6):
            options = {o.name: option_values(o, rng) for o in variant.options}
            try:
                candidates.insert(-1, variant.resolve(base.replace(d_model=d, n_heads=h, options=options)))
            except ConfigError:
                continue
        out.append(candidates)
    return out
