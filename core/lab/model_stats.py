"""Where a GPT's parameters live, and what its KV cache costs: counted on the real module, built on meta."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import torch

from ..config import divisors
from ..i18n import mark, t
from ..mistakes import ConfigError, choices_text, excerpt, whole_in
from ..model import GPT, PRESETS, GPTConfig
from ..registry import Registry
from .text import sentences

PARTS = ("embeddings", "attention", "mlp", "norms")  # the parts' names (the API's); each a msgid where it is shown
PART_WORDS = {"embeddings": mark("embeddings"), "attention": mark("attention"), "mlp": mark("mlp"),
              "norms": mark("norms")}


@dataclass(frozen=True)
class Breakdown:
    """Parameter counts by part, and the K/V each generated token adds to the cache."""

    embeddings: int  # token + position embeddings (+ the output head when untied)
    attention: int  # q/k/v and output projections, all layers
    mlp: int
    norms: int  # every LayerNorm's scale and shift
    total: int
    n_layers: int
    n_kv_heads: int  # K/V heads per layer actually built (GQA shares them)
    head_dim: int
    kv_bytes_per_token: int  # K and V, every layer, at bytes_per_value each
    kv_tokens_at_context: int  # tokens the cache must hold at full context (a window caps it)

    @property
    def kv_bytes_at_context(self) -> int:
        return self.kv_bytes_per_token * self.kv_tokens_at_context


def part_of(name: str) -> str:
    """Which part a parameter belongs to, from its name in GPT.named_parameters()."""
    if name.startswith(("wte.", "wpe.", "lm_head.")):
        return "embeddings"
    if ".attn." in name:
        return "attention"
    if ".mlp." in name:
        return "mlp"
    if name.startswith("ln_f.") or ".ln_" in name:
        return "norms"
    raise ValueError(f"parameter {name!r} belongs to no known part of the model")


def breakdown(config: GPTConfig, registry: Registry | None = None, bytes_per_value: int = 2) -> Breakdown:
    """Count every unique parameter by part (meta device: no memory) and size the KV cache (fp16 by default)."""
    with torch.device("meta"):
        model = GPT(config, registry)
    counts = dict.fromkeys(PARTS, 0)
    for name, p in model.named_parameters():  # shared (tied) parameters are listed once
        counts[part_of(name)] += p.numel()
    attn = model.blocks[0].attn
    n_kv, hd = attn.n_kv_heads, attn.head_dim
    T = config.context_length
    window, stride = int(config.options.get("window", 0) or 0), int(config.options.get("stride", 0) or 0)
    kept = min(T, window + (math.ceil(T / stride) if stride else 0)) if window else T
    return Breakdown(
        **counts,
        total=model.num_params(),
        n_layers=config.n_layers,
        n_kv_heads=n_kv,
        head_dim=hd,
        kv_bytes_per_token=2 * config.n_layers * n_kv * hd * bytes_per_value,  # K and V
        kv_tokens_at_context=kept,
    )


def human(n: float, unit: str = "") -> str:
    """1234567 -> '1.23 M'; bytes with unit='B' -> '1.18 MiB'."""
    if unit == "B":
        for suffix, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
            if n >= size:
                return f"{n / size:.2f} {suffix}"
        return f"{int(n)} B"
    for suffix, size in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= size:
            return f"{n / size:.2f} {suffix}"
    return str(int(n))


# ---- the Model tab's table: a preset over a variant against plain multi-head ----------------


def _config(registry: Registry, preset: str, variant: str, n_kv_heads: float, window: float) -> tuple[GPTConfig, str]:
    """The preset over the variant, with the two knobs the Model tab offers where the variant declares them.

    Returns the config and a note: a K/V head count that does not divide the preset's heads (the default 4
    against gpt2-xl's 25) is replaced by the nearest one that does, and the note says so.
    """
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ConfigError(t("preset={preset} is unknown; choose one of: {known}", preset=excerpt(preset),
                            known=", ".join(PRESETS)))
    declared = {o.name for o in registry.get(variant).options}
    values = {"n_kv_heads": whole_in("n_kv_heads", n_kv_heads, 1, 1024), "window": whole_in("window", window, 1, 2**20)}
    options = {k: v for k, v in values.items() if k in declared}
    note = ""
    heads = PRESETS[preset].n_heads
    if "n_kv_heads" in options and heads % options["n_kv_heads"]:
        asked, choices = options["n_kv_heads"], divisors(heads)
        options["n_kv_heads"] = min(choices, key=lambda d: (abs(d - asked), d))
        note = t("n_kv_heads={asked} does not divide the {heads} heads of {preset}, so this shows n_kv_heads={shown} "
                 "(choose {choices}).", asked=asked, heads=heads, preset=preset, shown=options["n_kv_heads"],
                 choices=t("{items} or {last}", items=", ".join(str(c) for c in choices[:-1]), last=choices[-1])
                 if len(choices) > 1 else choices_text(choices))
    return dataclasses.replace(PRESETS[preset], variant=variant, options=options), note


def _share(n: int, total: int) -> str:
    """A part's share of the total as text; norms are a sliver, so show that they are not zero."""
    pct = 100 * n / total
    return f"{pct:.1f} %" if pct >= 1 else f"{pct:.2f} %"


def model_size(registry: Registry, preset: str, variant: str, n_kv_heads: float, window: float) -> tuple:
    """Breakdown table, comparison with plain multi-head, a one-line summary and the numbers as JSON."""
    config, note = _config(registry, preset, variant, n_kv_heads, window)
    b = breakdown(config, registry)
    ref = breakdown(dataclasses.replace(config, variant="multi-head", options={}), registry)
    parts = [[t(PART_WORDS[part]), f"{getattr(b, part):,}", _share(getattr(b, part), b.total)] for part in PARTS]
    parts.append([t("total"), f"{b.total:,}", "100 %"])
    T = config.context_length
    compare = [
        [t("attention parameters"), f"{ref.attention:,}", f"{b.attention:,}"],
        [t("total parameters"), f"{ref.total:,}", f"{b.total:,}"],
        [t("K/V heads per layer × head width"), f"{ref.n_kv_heads} × {ref.head_dim}",
         f"{b.n_kv_heads} × {b.head_dim}"],
        [t("KV cache per token (fp16, all layers)"), human(ref.kv_bytes_per_token, "B"),
         human(b.kv_bytes_per_token, "B")],
        [t("tokens the cache holds at T = {T}", T=T), f"{ref.kv_tokens_at_context:,}", f"{b.kv_tokens_at_context:,}"],
        [t("KV cache at T = {T} (one sequence)", T=T), human(ref.kv_bytes_at_context, "B"),
         human(b.kv_bytes_at_context, "B")],
    ]
    saving = 1 - b.kv_bytes_at_context / ref.kv_bytes_at_context
    fields = dict(preset=preset, variant=variant, total=human(b.total), exact=f"{b.total:,}",
                  share=f"{100 * b.attention / b.total:.1f} %", cache=human(b.kv_bytes_at_context, "B"),
                  pct=f"{abs(100 * saving):.0f} %")
    if saving >= 0:
        said = t("**{preset}** with **{variant}**: {total} parameters ({exact}); attention is {share} of them. "
                 "KV cache at full context: {cache} (saves {pct} against plain multi-head).", **fields)
    else:
        said = t("**{preset}** with **{variant}**: {total} parameters ({exact}); attention is {share} of them. "
                 "KV cache at full context: {cache} (costs {pct} against plain multi-head).", **fields)
    summary = sentences(note, said)
    payload = {"preset": preset, "variant": variant, "options": dict(config.options), **dataclasses.asdict(b),
               "reference_multi_head": dataclasses.asdict(ref)}
    return parts, compare, summary, payload
