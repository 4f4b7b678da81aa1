"""Decoding one token at a time: the next-token distribution, sampling, and a KV cache that changes nothing.

Decoder is the engine behind GPT.generate and the next-word views. With use_cache=False every
step runs the whole sequence again (the T x T square); with use_cache=True it runs one new token
against the kept keys and values, and gives the same logits (tests/test_kv_cache.py).

Past context_length: a model with learned positions (wpe) reads only the last context_length
tokens, so once the sequence is longer every kept key sits at a new position and the cache must
be rebuilt from those tokens each step (exact, but no faster). A position-free model
(GPTConfig(positions="none"), e.g. with ALiBi or a sliding window) keeps its cache as it goes,
and a sliding window's cache stays at window-1 keys (plus its strided columns), however long.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ..config import ConfigError
from ..fast_paths import KVCache
from ..i18n import mark, t

TOP_K_ERROR = mark("top_k={top_k!r} must be a whole number, 1 or more (or None for every token)")


def next_token_distribution(logits: Tensor, temperature: float = 1.0, top_k: int | None = None) -> Tensor:
    """(B, V) logits -> (B, V) probabilities after top-k and temperature; temperature <= 0 puts all mass on the argmax."""
    if top_k is not None and (not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1):
        raise ConfigError(t(TOP_K_ERROR, top_k=top_k))
    if temperature <= 0:
        return F.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)  # (B, V) greedy
    if top_k is not None and top_k < logits.shape[-1]:
        kth = torch.topk(logits, top_k, dim=-1).values[:, -1:]  # (B, 1) the k-th largest logit
        logits = logits.masked_fill(logits < kth, float("-inf"))  # (B, V) ties at the k-th all stay
    return F.softmax(logits / temperature, dim=-1)  # (B, V)


def sample_next(
    logits: Tensor, temperature: float = 1.0, top_k: int | None = None, generator: torch.Generator | None = None
) -> Tensor:
    """One token per row, (B, V) logits -> (B, 1) ids: the argmax when temperature <= 0, else a seeded draw."""
    if temperature <= 0:
        if top_k is not None:
            next_token_distribution(logits, temperature, top_k)  # same validation as the sampled path
        return logits.argmax(-1, keepdim=True)
    return torch.multinomial(next_token_distribution(logits, temperature, top_k), 1, generator=generator)


class Decoder:
    """The growing sequence and the next token's logits; push() appends tokens (with or without a cache)."""

    def __init__(self, model: nn.Module, idx: Tensor, use_cache: bool = True, reserve: int = 0) -> None:
        """model: a core.model.GPT (not imported here: core.model builds its generate on this class)."""
        if idx.dim() != 2 or idx.shape[1] < 1:
            raise ValueError(t("token ids have shape {shape}; decoding needs (batch, tokens) with a token",
                               shape=tuple(idx.shape)))
        self.model, self.idx, self.use_cache = model, idx, use_cache
        self.learned = model.wpe is not None  # learned positions: at most context_length tokens at once
        self.reserve = reserve
        self.cache: list[KVCache] | None = None
        self.computed = 0  # tokens the last step ran through the model (1 with a warm cache, T without)
        if use_cache:
            model.check_cacheable()
        self.logits = self._restart()  # (B, V)

    @property
    def cache_length(self) -> int:
        """Keys each layer holds now (0 without a cache): grows by one a step, or stays put in a rolling cache."""
        return 0 if self.cache is None else self.cache[0].size

    def window(self) -> Tensor:
        """The tokens the model reads for the next prediction: the last context_length with learned positions."""
        return self.idx[:, -self.model.config.context_length :] if self.learned else self.idx  # (B, <=C)

    def push(self, nxt: Tensor) -> Tensor:
        """Append nxt (B, n) and return the next token's logits (B, V)."""
        self.idx = torch.cat([self.idx, nxt], dim=1)  # (B, T+n)
        full = self.learned and self.cache is not None and self.cache[0].length + nxt.shape[1] > self.model.config.context_length
        if not self.use_cache or full:
            self.logits = self._restart()  # positions shifted (or no cache): recompute the window
        else:
            self.logits = self._last(self.model.hidden(nxt, self.cache))
            self.computed = nxt.shape[1]
        return self.logits

    def _restart(self) -> Tensor:
        """Run the whole window from scratch; with use_cache, into a fresh cache."""
        window = self.window()
        self.computed = window.shape[1]
        if not self.use_cache:
            return self._last(self.model.hidden(window))
        self.cache = self.model.new_cache(reserve=min(self.reserve, self.model.config.context_length) if self.learned
                                          else self.reserve)
        return self._last(self.model.hidden(window, self.cache))

    def _last(self, hidden: Tensor) -> Tensor:
        """The head on the last position only, (B, T, d) -> (B, V): generation never needs the others."""
        return self.model.lm_head(hidden[:, -1])
