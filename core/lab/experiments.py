"""The chapter's two experiments, live: train with/without the causal mask, and with/without sqrt(d) scaling.

Each run is a generator of snapshots (so a UI can draw the curve as it grows) that stops when asked
(a threading.Event, or simply closing the generator). Plain functions, in this process: a notebook
calls them directly; the app shares and isolates them (core.serve.experiments). Losses are in bits per word.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor

from ..corpus import Tokenizer
from ..i18n import t
from ..mistakes import ConfigError, whole
from ..model import GPT, GPTConfig
from .session import seed_value
from .train import LOG2E, Trainer, TrainSettings, encode_corpus, random_batch


def _text(seed: int) -> Tensor:
    """Training (seed 0) or evaluation (seed 1) text, encoded once per run (a run is seconds of training)."""
    return encode_corpus(3000 if seed == 0 else 300, seed)


def _probe(context_length: int, n: int = 16) -> tuple[Tensor, Tensor]:
    """A fixed evaluation batch from held-out text: inputs and targets (n, T)."""
    return random_batch(_text(1), context_length, n, torch.Generator().manual_seed(1))


# ---- (a) the causal mask ----------------------------------------------------------------


@dataclass(frozen=True)
class MaskParams:
    """One mask experiment; frozen so it keys the cache."""

    steps: int = 400
    d_model: int = 48
    n_heads: int = 4
    n_layers: int = 1  # one layer is enough to peek, and fast enough for 400 steps of two models
    context_length: int = 12
    batch_size: int = 16
    lr: float = 1e-2
    seed: int = 0
    eval_every: int = 50


@dataclass
class MaskRun:
    """The run so far: training losses per step, honest losses every eval_every steps, then samples."""

    params: MaskParams
    steps: list[int] = field(default_factory=list)
    masked: list[float] = field(default_factory=list)  # training loss, causal model
    unmasked: list[float] = field(default_factory=list)  # training loss, model that sees the future
    eval_steps: list[int] = field(default_factory=list)
    masked_honest: list[float] = field(default_factory=list)  # each position from its prefix alone
    unmasked_honest: list[float] = field(default_factory=list)
    samples: dict[str, str] = field(default_factory=dict)  # "masked"/"unmasked" -> generated text
    seconds: float = 0.0
    done: bool = False  # finished every step (only finished runs are cached)
    stopped: bool = False

    @property
    def fraction_done(self) -> float:
        """Share of the planned steps trained so far, for a progress bar."""
        return len(self.steps) / max(1, self.params.steps)


@torch.no_grad()
def honest_loss(model: GPT, x: Tensor, y: Tensor) -> float:
    """Bits per word when position t sees x[:t+1] only: no peeking possible, whatever the mask."""
    total = 0.0
    for pos in range(x.shape[1]):
        logits = model(x[:, : pos + 1])[:, -1]  # (B, V): the last position of the prefix
        total += F.cross_entropy(logits, y[:, pos]).item()
    return total / x.shape[1] * LOG2E


@torch.no_grad()
def sample(model: GPT, tokenizer: Tokenizer, prompt: str = "the", n: int = 20, seed: int = 0) -> str:
    """A seeded sample, generated one token at a time (the way a language model must)."""
    idx = torch.tensor([tokenizer.encode(prompt)])  # (1, T)
    # recomputed each step: the mask-free model's earlier words change with every new one, so no KV cache
    out = model.generate(idx, n, use_cache=False, generator=torch.Generator().manual_seed(seed))
    return tokenizer.decode(out[0].tolist())


def _twins(first: GPT, second: GPT, a: str, b: str) -> dict[str, GPT]:
    """Two models that differ only in their config start from identical weights, even if another
    server thread drew from torch's global RNG between the two builds."""
    second.load_state_dict(first.state_dict())
    return {a: first, b: second}


def _small_gpt(p: MaskParams, causal: bool) -> GPT:
    torch.manual_seed(p.seed)  # both models start from the same weights
    return GPT(GPTConfig(vocab_size=len(Tokenizer.from_lexicon()), context_length=p.context_length,
                         d_model=p.d_model, n_heads=p.n_heads, n_layers=p.n_layers, causal=causal))


def mask_experiment(p: MaskParams = MaskParams(), stop: threading.Event | None = None, every: int = 5) -> Iterator[MaskRun]:
    """Train a causal and a mask-free model side by side on the same batches; yield the run every `every` steps."""
    t0, run = time.perf_counter(), MaskRun(p)
    settings = TrainSettings(steps=p.steps, batch_size=p.batch_size, lr=p.lr, min_lr=p.lr / 10, warmup=10, seed=p.seed)
    models = _twins(_small_gpt(p, True), _small_gpt(p, False), "masked", "unmasked")
    trainers = {k: Trainer(m, _text(0), settings) for k, m in models.items()}
    x, y = _probe(p.context_length)
    for step in range(p.steps):
        if stop is not None and stop.is_set():
            run.stopped = True
            break
        run.steps.append(step)
        run.masked.append(trainers["masked"].step().loss * LOG2E)
        run.unmasked.append(trainers["unmasked"].step().loss * LOG2E)
        if step % p.eval_every == 0 or step == p.steps - 1:
            run.eval_steps.append(step)
            run.masked_honest.append(honest_loss(models["masked"], x, y))
            run.unmasked_honest.append(honest_loss(models["unmasked"], x, y))
        if step % every == 0:
            run.seconds = time.perf_counter() - t0
            yield run
    tokenizer = Tokenizer.from_lexicon()
    run.samples = {k: sample(m, tokenizer, seed=p.seed) for k, m in models.items()}
    run.seconds, run.done = time.perf_counter() - t0, not run.stopped
    yield run


# ---- (b) sqrt(d) scaling ----------------------------------------------------------------


@dataclass(frozen=True)
class ScaleParams:
    """One scaling experiment: a one-layer, one-head model with a wide head."""

    steps: int = 50
    head_dim: int = 256
    context_length: int = 16
    batch_size: int = 16
    lr: float = 1e-3
    seed: int = 0
    unit_variance: bool = True  # start q and k with unit-variance entries: the chapter's premise


@dataclass
class ScaleRun:
    """Per step, for the scaled and the unscaled model: softmax max weight, entropy, gradient at the softmax input."""

    params: ScaleParams
    steps: list[int] = field(default_factory=list)
    max_weight: dict[str, list[float]] = field(default_factory=lambda: {"scaled": [], "unscaled": []})
    entropy: dict[str, list[float]] = field(default_factory=lambda: {"scaled": [], "unscaled": []})  # nats
    grad_norm: dict[str, list[float]] = field(default_factory=lambda: {"scaled": [], "unscaled": []})  # dL/d(softmax input)
    loss: dict[str, list[float]] = field(default_factory=lambda: {"scaled": [], "unscaled": []})
    uniform_entropy: float = 0.0  # entropy of spreading evenly over the visible keys, for reference
    seconds: float = 0.0
    done: bool = False
    stopped: bool = False

    @property
    def fraction_done(self) -> float:
        """Share of the planned steps trained so far, for a progress bar."""
        return len(self.steps) / max(1, self.params.steps)


def softmax_stats(weights: Tensor) -> tuple[float, float]:
    """(mean max weight, mean entropy in nats) over query rows t >= 1 of (B, H, T, T) causal weights."""
    w = weights[..., 1:, :]  # row 0 can only see itself: always one-hot
    entropy = -(w * w.clamp_min(1e-12).log()).sum(-1)  # (B, H, T-1)
    return w.amax(-1).mean().item(), entropy.mean().item()


def _wide_gpt(p: ScaleParams, scaled: bool) -> GPT:
    torch.manual_seed(p.seed)
    model = GPT(GPTConfig(vocab_size=len(Tokenizer.from_lexicon()), context_length=p.context_length,
                          d_model=p.head_dim, n_heads=1, n_layers=1, scaled=scaled))
    if p.unit_variance:  # LayerNorm'd x has unit variance; std 1/sqrt(d) keeps q, k entries at variance ~1
        torch.nn.init.normal_(model.blocks[0].attn.qkv.weight, std=1 / math.sqrt(p.head_dim))
    return model




def explicit_step(model: GPT, opt: torch.optim.Optimizer, x: Tensor, y: Tensor) -> tuple[float, Tensor, float]:
    """One training step through the traced path, so the softmax's input and output are in hand.

    Returns (loss in bits, layer-0 weights (B, H, T, T), norm of dLoss/d(softmax input) in layer 0).
    """
    h = model._embed(x)  # (B, T, d)
    traces = []
    for block in model.blocks:
        stages = block.attn.trace(block.ln_1(h))
        stages.scaled.retain_grad()  # the softmax input: scores, divided by sqrt(d) or not
        h = h + stages.output
        h = h + block.mlp(block.ln_2(h))
        traces.append(stages)
    logits = model.lm_head(model.ln_f(h))  # (B, T, V)
    loss = F.cross_entropy(logits.flatten(0, 1), y.flatten())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    first = traces[0]
    return loss.item() * LOG2E, first.weights.detach(), first.scaled.grad.norm().item()


def scale_experiment(p: ScaleParams = ScaleParams(), stop: threading.Event | None = None, every: int = 5) -> Iterator[ScaleRun]:
    """Train the same wide-head model with and without dividing by sqrt(d); yield the run every `every` steps."""
    t0, run = time.perf_counter(), ScaleRun(p)
    T = p.context_length
    run.uniform_entropy = sum(math.log(t + 1) for t in range(1, T)) / (T - 1)
    models = _twins(_wide_gpt(p, True), _wide_gpt(p, False), "scaled", "unscaled")
    text = _text(0)  # (N,) token ids
    opts = {k: torch.optim.AdamW(m.parameters(), lr=p.lr, betas=(0.9, 0.95)) for k, m in models.items()}
    gen = torch.Generator().manual_seed(p.seed)
    for step in range(p.steps):
        if stop is not None and stop.is_set():
            run.stopped = True
            break
        x, y = random_batch(text, T, p.batch_size, gen)  # the same batch for both models
        run.steps.append(step)
        for name, model in models.items():
            model.train()
            loss, weights, grad = explicit_step(model, opts[name], x, y)
            top, ent = softmax_stats(weights)
            for series, value in ((run.loss, loss), (run.max_weight, top), (run.entropy, ent), (run.grad_norm, grad)):
                series[name].append(value)
        if step % every == 0:
            run.seconds = time.perf_counter() - t0
            yield run
    for model in models.values():
        model.eval()
    run.seconds, run.done = time.perf_counter() - t0, not run.stopped
    yield run


# ---- what the Experiments tab shows (numbers from the runs) ------------------------------

MAX_STEPS = {"mask": 1000, "scale": 500}


def check_params(kind: str, steps: object, seed: object) -> tuple[int, int]:
    """steps and seed from a control or the API, in range; ConfigError naming the field otherwise."""
    steps, seed = whole("steps", steps), seed_value(seed)
    if not 10 <= steps <= MAX_STEPS[kind]:
        raise ConfigError(t("{name}={value} is out of range; choose {low} to {high}", name="steps", value=steps, low=10,
                            high=MAX_STEPS[kind]))
    return steps, seed


def _last(xs: list[float], n: int = 10) -> float | None:
    """Mean of the last n values: one batch's loss is noisy."""
    return round(sum(xs[-n:]) / len(xs[-n:]), 3) if xs else None


def mask_summary(run: MaskRun) -> dict:
    """The numbers under the mask figure, also the API's JSON."""
    return {
        "steps_done": len(run.steps), "seconds": round(run.seconds, 1), "done": run.done, "stopped": run.stopped,
        "train_loss": {"masked": _last(run.masked), "unmasked": _last(run.unmasked)},
        "honest_loss": {"masked": round(run.masked_honest[-1], 3) if run.masked_honest else None,
                        "unmasked": round(run.unmasked_honest[-1], 3) if run.unmasked_honest else None},
        "samples": run.samples,
    }


def scale_summary(run: ScaleRun) -> dict:
    """Final values per model, also the API's JSON."""

    def final(series: dict[str, list[float]]) -> dict[str, float]:
        return {k: round(v[-1], 4) for k, v in series.items() if v}

    return {"steps_done": len(run.steps), "seconds": round(run.seconds, 1), "done": run.done,
            "stopped": run.stopped, "max_weight": final(run.max_weight), "entropy_nats": final(run.entropy),
            "uniform_entropy_nats": round(run.uniform_entropy, 4), "softmax_input_grad_norm": final(run.grad_norm),
            "train_loss": final(run.loss)}


def stopped_summary(summary: dict | None) -> dict | None:
    """What a summary says once its run was stopped before its end (a finished run stays as it was)."""
    if not isinstance(summary, dict) or summary.get("done"):
        return summary
    return {**summary, "stopped": True}
