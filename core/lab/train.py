"""Training on the synthetic corpus: one small loop shared by `attention-lab train` and the experiments."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor

from ..corpus import Tokenizer, generate, unigram_entropy
from ..model import GPT, PRESETS, GPTConfig, save_tiny

LOG2E = 1 / math.log(2)  # nats -> bits
_threads_lock = threading.Lock()
_threads_users = 0  # how many callers are inside one_thread() right now (the app serves several at once)
_threads_saved = 1


@contextmanager
def one_thread() -> Iterator[None]:
    """Small models on shared cores run faster on one thread (no spinning workers); restored afterwards.

    torch's thread count is process-wide, so concurrent callers share one counter: the first in
    saves and lowers it, the last out restores it (two overlapping requests cannot leave it at 1).
    """
    global _threads_users, _threads_saved
    with _threads_lock:
        if _threads_users == 0:
            _threads_saved = torch.get_num_threads()
            torch.set_num_threads(1)
        _threads_users += 1
    try:
        yield
    finally:
        with _threads_lock:
            _threads_users -= 1
            if _threads_users == 0:
                torch.set_num_threads(_threads_saved)


def encode_corpus(n_sentences: int, seed: int, tokenizer: Tokenizer | None = None) -> Tensor:
    """The generator's sentences joined by spaces, as one long (N,) stream of token ids."""
    tokenizer = tokenizer or Tokenizer.from_lexicon()
    return torch.tensor(tokenizer.encode(" ".join(generate(n_sentences, seed))), dtype=torch.long)


def random_batch(data: Tensor, context_length: int, batch_size: int, generator: torch.Generator) -> tuple[Tensor, Tensor]:
    """batch_size random windows: inputs (B, T) and the same windows shifted by one as targets (B, T)."""
    starts = torch.randint(len(data) - context_length - 1, (batch_size,), generator=generator)
    rows = starts[:, None] + torch.arange(context_length + 1)  # (B, T+1)
    chunk = data[rows]
    return chunk[:, :-1], chunk[:, 1:]


def next_token_loss(model: GPT, x: Tensor, y: Tensor) -> Tensor:
    """Mean cross-entropy in nats of predicting y from x (B, T)."""
    logits = model(x)  # (B, T, V)
    return F.cross_entropy(logits.flatten(0, 1), y.flatten())


@torch.no_grad()
def evaluate(model: GPT, data: Tensor, max_windows: int = 256) -> float:
    """Mean next-token loss in nats over non-overlapping windows: each token predicted once, from its window."""
    T = model.config.context_length
    n = min((len(data) - 1) // T, max_windows)
    x = data[: n * T].view(n, T)  # (n, T)
    y = data[1 : n * T + 1].view(n, T)
    was_training = model.training
    model.eval()
    loss = sum(next_token_loss(model, x[i : i + 32], y[i : i + 32]).item() * len(x[i : i + 32]) for i in range(0, n, 32))
    model.train(was_training)
    return loss / n


@dataclass(frozen=True)
class TrainSettings:
    """One training run, fully determined: same settings, same weights."""

    steps: int = 2000  # the copy ("induction") head forms after ~1000 steps; before it repeats cost ~3.5 bits
    batch_size: int = 32
    lr: float = 5e-3
    min_lr: float = 5e-4
    warmup: int = 100
    weight_decay: float = 0.01
    grad_clip: float = 1.0  # 0 = off (the scaling experiment measures raw gradient norms)
    seed: int = 0
    n_sentences: int = 20000  # training text, generated with `seed`
    val_seed: int = 1  # held-out text for the printed validation loss
    test_seed: int = 12345  # fresh text never used in training: the number we report


@dataclass
class Step:
    """What the loop reports after each step."""

    step: int
    loss: float  # training loss, nats
    grad_norm: float
    lr: float


def lr_at(step: int, s: TrainSettings) -> float:
    """Linear warm-up, then cosine decay to min_lr (nanoGPT's schedule)."""
    if step < s.warmup:
        return s.lr * (step + 1) / s.warmup
    progress = (step - s.warmup) / max(1, s.steps - s.warmup)
    return s.min_lr + 0.5 * (1 + math.cos(math.pi * progress)) * (s.lr - s.min_lr)


class Trainer:
    """AdamW on random windows of data, one step at a time (so a UI can draw between steps); seeded."""

    def __init__(self, model: GPT, data: Tensor, settings: TrainSettings) -> None:
        torch.manual_seed(settings.seed)
        self.model, self.data, self.settings = model, data, settings
        self.gen = torch.Generator().manual_seed(settings.seed)
        self.opt = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=settings.weight_decay,
                                     betas=(0.9, 0.95))
        self.history: list[Step] = []

    def step(self) -> Step:
        """One optimizer step on a fresh random batch; returns what it measured."""
        n, s = len(self.history), self.settings
        lr = lr_at(n, s)
        for group in self.opt.param_groups:
            group["lr"] = lr
        self.model.train()
        x, y = random_batch(self.data, self.model.config.context_length, s.batch_size, self.gen)
        loss = next_token_loss(self.model, x, y)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        clip = s.grad_clip if s.grad_clip > 0 else float("inf")
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), clip).item()
        self.opt.step()
        self.model.eval()
        self.history.append(Step(n, loss.item(), grad_norm, lr))
        return self.history[-1]


def train_loop(
    model: GPT,
    data: Tensor,
    settings: TrainSettings,
    on_step: Callable[[Step], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> list[Step]:
    """Run settings.steps steps (fewer if should_stop says so); a rerun gives identical weights."""
    trainer = Trainer(model, data, settings)
    for _ in range(settings.steps):
        if should_stop is not None and should_stop():
            break
        step = trainer.step()
        if on_step is not None:
            on_step(step)
    return trainer.history


@dataclass
class TinyReport:
    """The numbers the docs report for the tiny model, all in bits per word."""

    seconds: float
    final_train_loss: float
    val_loss: float
    test_loss: float  # on fresh text (test_seed)
    test_unigram_entropy: float
    grammar_entropy: float
    n_params: int
    extra: dict = field(default_factory=dict)


def fresh_text_report(model: GPT, tokenizer: Tokenizer, seed: int, n_sentences: int = 2000) -> tuple[float, float]:
    """(model loss, unigram entropy) on fresh generator text, both in bits per word."""
    data = encode_corpus(n_sentences, seed, tokenizer)
    return evaluate(model, data) * LOG2E, unigram_entropy(data.tolist())


def train_tiny(
    settings: TrainSettings = TrainSettings(),
    config: GPTConfig | None = None,
    out_dir: str | Path | None = None,
    log: Callable[[str], None] = print,
) -> tuple[GPT, TinyReport]:
    """Train the shipped tiny model from scratch on CPU; write it to out_dir if given."""
    from ..corpus import grammar_entropy

    tokenizer = Tokenizer.from_lexicon()
    config = config or replace(PRESETS["tiny"], vocab_size=len(tokenizer))
    torch.manual_seed(settings.seed)
    model = GPT(config)
    data = encode_corpus(settings.n_sentences, settings.seed, tokenizer)
    val = encode_corpus(1000, settings.val_seed, tokenizer)
    every = max(1, settings.steps // 15)

    def on_step(s: Step) -> None:
        if s.step % every == 0 or s.step == settings.steps - 1:
            log(f"step {s.step:5d}  loss {s.loss * LOG2E:.3f} bits/word  lr {s.lr:.2e}  ({time.perf_counter() - t0:.0f} s)")

    log(f"training {model.num_params():,} parameters on {len(data):,} tokens for {settings.steps} steps")
    t0 = time.perf_counter()
    history = train_loop(model, data, settings, on_step)
    seconds = time.perf_counter() - t0
    test_loss, test_unigram = fresh_text_report(model, tokenizer, settings.test_seed)
    report = TinyReport(
        seconds=round(seconds, 1),
        final_train_loss=sum(s.loss for s in history[-50:]) / min(50, len(history)) * LOG2E,
        val_loss=evaluate(model, val) * LOG2E,
        test_loss=test_loss,
        test_unigram_entropy=test_unigram,
        grammar_entropy=grammar_entropy(),
        n_params=model.num_params(),
    )
    if out_dir is not None:
        notes = {k: round(v, 4) if isinstance(v, float) else v for k, v in vars(report).items() if k != "extra"}
        save_tiny(model, tokenizer, out_dir, {"training": vars(settings), "report": notes})
    return model, report
