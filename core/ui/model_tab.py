"""The Model tab: a GPT-2-sized preset over any variant; where its parameters live and what its KV cache costs."""

from __future__ import annotations

import copy
import dataclasses
from functools import lru_cache

import gradio as gr

from core.model import PRESETS
from core.model_stats import PARTS, breakdown, human

from .common import CPU_GROUP, CPU_LIMIT, user_errors

TITLE = "Model"
INTRO = """### From layer to model
A GPT is token and position embeddings, `n_layers` blocks (LayerNorm → attention → residual,
LayerNorm → MLP 4× → residual), a final LayerNorm and an output head tied to the token embedding.
Only the attention layer comes from the plugin registry. The counts below come from building
the real model on PyTorch's *meta* device (shapes, no memory): the GPT-2 presets match the
published checkpoints exactly. Grouped-query attention shrinks the K/V projections and the KV
cache; a sliding window keeps the parameters but caps how many tokens the cache must hold."""
KV_OPTIONS = ("n_kv_heads", "window")  # the two knobs this tab shows; passed to any variant that declares them


def _config(registry, preset: str, variant: str, n_kv_heads: float, window: float):
    if preset not in PRESETS:
        raise ValueError(f"preset={preset!r} is unknown; choose one of: {', '.join(PRESETS)}")
    declared = {o.name for o in registry.get(variant).options}
    values = {"n_kv_heads": int(n_kv_heads), "window": int(window)}
    options = {k: v for k, v in values.items() if k in declared}
    return dataclasses.replace(PRESETS[preset], variant=variant, options=options)


def _share(n: int, total: int) -> str:
    pct = 100 * n / total
    return f"{pct:.1f} %" if pct >= 1 else f"{pct:.2f} %"  # norms are a sliver: show that they are not zero


def model_size(registry, preset: str, variant: str, n_kv_heads: float, window: float):
    """Breakdown table, comparison with plain multi-head, a one-line summary and the numbers as JSON."""
    config = _config(registry, preset, variant, n_kv_heads, window)
    b = breakdown(config, registry)
    ref = breakdown(dataclasses.replace(config, variant="multi-head", options={}), registry)
    parts = [[part, f"{getattr(b, part):,}", _share(getattr(b, part), b.total)] for part in PARTS]
    parts.append(["total", f"{b.total:,}", "100 %"])
    T = config.context_length
    compare = [
        ["attention parameters", f"{ref.attention:,}", f"{b.attention:,}"],
        ["total parameters", f"{ref.total:,}", f"{b.total:,}"],
        ["K/V heads per layer × head width", f"{ref.n_kv_heads} × {ref.head_dim}", f"{b.n_kv_heads} × {b.head_dim}"],
        ["KV cache per token (fp16, all layers)", human(ref.kv_bytes_per_token, "B"), human(b.kv_bytes_per_token, "B")],
        [f"tokens the cache holds at T = {T}", f"{ref.kv_tokens_at_context:,}", f"{b.kv_tokens_at_context:,}"],
        [f"KV cache at T = {T} (one sequence)", human(ref.kv_bytes_at_context, "B"), human(b.kv_bytes_at_context, "B")],
    ]
    saving = 1 - b.kv_bytes_at_context / ref.kv_bytes_at_context
    summary = (f"**{preset}** with **{variant}**: {human(b.total)} parameters "
               f"({b.total:,}); attention is {100 * b.attention / b.total:.1f} % of them. "
               f"KV cache at full context: {human(b.kv_bytes_at_context, 'B')} "
               f"({'saves' if saving >= 0 else 'costs'} {abs(100 * saving):.0f} % against plain multi-head).")
    payload = {"preset": preset, "variant": variant, "options": dict(config.options), **dataclasses.asdict(b),
               "reference_multi_head": dataclasses.asdict(ref)}
    return parts, compare, summary, payload


def build(ctx) -> None:
    registry = ctx.registry
    gr.Markdown(INTRO)
    with gr.Row():
        preset = gr.Dropdown(list(PRESETS), value="gpt2-small", label="Preset", elem_id="model-preset")
        variant = gr.Dropdown([(v.title, v.name) for v in registry.variants.values()], value="gqa",
                              label="Attention variant", elem_id="model-variant")
        n_kv = gr.Number(value=4, precision=0, minimum=1, label="n_kv_heads (GQA; must divide n_heads)",
                         elem_id="model-kv")
        window = gr.Number(value=256, precision=0, minimum=1, label="window (sliding window)", elem_id="model-window")
    summary = gr.Markdown(elem_id="model-summary")
    parts = gr.Dataframe(headers=["part", "parameters", "share"], interactive=False, label="Where the parameters are")
    compare = gr.Dataframe(headers=["", "multi-head (reference)", "this variant"], interactive=False,
                           label="Against plain multi-head")
    payload = gr.JSON(label="JSON (the /model_size API output)", open=False)

    @lru_cache(maxsize=64)
    def counted(preset: str, variant: str, n_kv_heads: float, window: float):
        """Counted on the meta device (~0.3 s for gpt2-small): once per setting, and the class shares it."""
        return model_size(registry, preset, variant, n_kv_heads, window)

    @user_errors
    def size(preset: str, variant: str, n_kv_heads: float, window: float):
        """Parameter breakdown and KV-cache size for a preset over a variant."""
        return copy.deepcopy(counted(preset, variant, n_kv_heads, window))  # each caller gets its own lists

    inputs, outputs = [preset, variant, n_kv, window], [parts, compare, summary, payload]
    ctx.warm.append(lambda: counted(*(c.value for c in inputs)))  # GPT-2 counted on the meta device (~0.4 s)
    triggers = [c.change for c in inputs] + ([ctx.tab.select] if getattr(ctx, "tab", None) else [])
    gr.on(triggers, size, inputs, outputs, api_name="model_size", concurrency_id=CPU_GROUP,
          concurrency_limit=CPU_LIMIT, trigger_mode="always_last")  # filled when the tab is first opened
