"""The GPT's forward pass with one intervention: a head ablated, or some keys hidden from later queries.

A pure function over the model's own modules (embeddings, each block's LayerNorms, its attention's
project/allowed/bias/merge, the MLP, the head) and the one formula (core.attention.attend): the
model is never patched, so the shared instance keeps serving other requests while this runs.
A test holds it equal to GPT.forward when nothing is edited.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor

from core.attention import attend
from core.i18n import t
from core.model import GPT

Mode = Literal["zero", "uniform"]
MODES: tuple[Mode, ...] = ("zero", "uniform")


@dataclass(frozen=True)
class Ablation:
    """Take one head out: its output zeroed, or its weights replaced by uniform over the keys it may see."""

    layer: int
    head: int
    mode: Mode = "zero"


@torch.no_grad()
def edited_logits(model: GPT, idx: Tensor, ablation: Ablation | None = None, hide: Tensor | None = None) -> Tensor:
    """Token ids (B, T) -> next-token logits (B, T, V) with the intervention applied.

    hide: (B, T) bool, True = no later query in any layer or head may attend to that key, so
    nothing about that token reaches a later position (a token always sees itself).
    """
    return edited_run(model, idx, () if ablation is None else (ablation,), hide)[0]


@torch.no_grad()
def edited_run(model: GPT, idx: Tensor, ablations: Sequence[Ablation] = (), hide: Tensor | None = None,
               causal: bool = True, scaled: bool | None = None) -> tuple[Tensor, Tensor]:
    """Token ids (B, T) -> (logits (B, T, V), weights (L, B, H, T, T)) with every edit applied at once.

    causal=False lifts every layer's mask (each query sees every key, the future too); scaled overrides the
    1/sqrt(d_head) of every layer (None: as each layer is built); ablations take heads out, in any layers.
    """
    B, T = idx.shape
    if T > model.config.context_length:
        raise ValueError(t("input has {n} tokens but this model reads at most {most}", n=T,
                           most=model.config.context_length))
    for ablation in ablations:
        if ablation.mode not in MODES:
            raise ValueError(t("ablation mode {mode!r} is not one of {modes}", mode=ablation.mode, modes=", ".join(MODES)))
        if not 0 <= ablation.layer < len(model.blocks):
            raise ValueError(t("layer {layer} does not exist; the model has layers 0-{last}", layer=ablation.layer,
                               last=len(model.blocks) - 1))
    weights = []
    for _, x, stages in run_layers(model, idx, ablations, hide, causal, scaled):
        if stages is None:
            return model.lm_head(model.ln_f(x)), torch.stack(weights)  # (B, T, V), (L, B, H, T, T)
        weights.append(stages["weights"])  # (B, H, T, T): what the heads computed, before any was taken out
    raise AssertionError("unreachable")


def run_layers(model: GPT, idx: Tensor, ablations: Sequence[Ablation], hide: Tensor | None, causal: bool,
               scaled: bool | None):
    """(layer, hidden states entering it (B, T, d), its attention stages) per block, then (L, final states, None):
    the one loop edited_run and the real model's step-through (core.lab.real_steps) both read. Call it under no_grad."""
    T = idx.shape[1]
    pos = torch.arange(T, device=idx.device)  # (T,)
    x = model.drop(model.wte(idx) + model.wpe(pos))  # (B, T, d)
    for layer, block in enumerate(model.blocks):
        attn = block.attn
        x_in = x
        q, k, v = attn.project(block.ln_1(x))  # (B, H, T, hd), (B, Hkv, T, hd) x2
        allowed = attn.allowed(T, idx.device) if causal else None  # (T, T) True = may attend, or None
        mask = torch.ones(1, 1, T, T, dtype=torch.bool) if allowed is None else allowed[None, None]  # (1, 1, T, T)
        if hide is not None:
            later = pos[:, None] > pos[None, :]  # (T, T) query after key
            mask = mask & ~(hide[:, None, None, :] & later)  # (B, 1, T, T)
        stages = attend(q, k, v, mask=mask, scaled=attn.config.scaled if scaled is None else scaled,
                        bias=attn.bias(T, idx.device), score=attn.score, normalise=attn.normalise, fill=attn.fill)
        context = stages["context"]  # (B, H, T, hd)
        for ablation in ablations:
            if ablation.layer == layer:
                context = _ablate(context, mask, v, ablation)
        yield layer, x_in, {**stages, "q": q, "k": k, "v": v, "mask": mask}
        x = x + block.resid_dropout(attn.merge(context))  # (B, T, d)
        x = x + block.mlp(block.ln_2(x))
    yield len(model.blocks), x, None


def _ablate(context: Tensor, mask: Tensor, v: Tensor, ablation: Ablation) -> Tensor:
    """context (B, H, T, hd) with head `ablation.head` replaced."""
    h = ablation.head
    if not 0 <= h < context.shape[1]:
        raise ValueError(t("head {head} does not exist; this layer has heads 0-{last}", head=h,
                           last=context.shape[1] - 1))
    out = context.clone()
    if ablation.mode == "zero":
        out[:, h] = 0
    else:
        group = context.shape[1] // v.shape[1]  # query head h reads K/V head h // group
        allowed = mask[:, 0].to(v.dtype)  # (B|1, T, T)
        uniform = allowed / allowed.sum(-1, keepdim=True)  # (B|1, T, T) rows sum to 1 over allowed keys
        out[:, h] = uniform @ v[:, h // group]  # (B, T, hd)
    return out
