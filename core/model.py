"""From layer to model: a GPT whose attention is any registered variant, GPT-2 presets, the tiny model.

nanoGPT's shape: token + position embeddings, n_layers pre-norm blocks, a final LayerNorm and an
output head tied to the token embedding. Only the attention layer comes from the registry.
Decoding can keep a KV cache per layer (core.kv_cache), exact for every variant that allows one.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor, nn

from .config import AttentionConfig, ConfigError
from .decode import Decoder, sample_next
from .kv_cache import KVCache
from .registry import Registry, load_registry

if TYPE_CHECKING:
    from .corpus import Tokenizer
    from .gpt2 import BPETokenizer

POSITIONS = ("learned", "none")
MESSAGES = {
    "positions": "positions={value!r} is not a kind of position embedding; choose learned or none",
    "uncacheable": "the variant {variant!r} cannot use a KV cache: {reason}; generate with use_cache=False",
    "too_long": "input has {T} tokens but this model's context_length is {C}; shorten it to at most {C} tokens",
    "cache_full": "the cache holds {start} tokens and {T} more would pass this model's context_length {C}, "
                  "where its learned positions end; start a new cache from the last {C} tokens",
    "cache_layers": "the cache has {got} layers but this model has {want}; start it with model.new_cache()",
}


@dataclass(frozen=True)
class GPTConfig:
    """Everything that fixes a GPT's shape; frozen (presets are shared), JSON-serialisable for checkpoints."""

    vocab_size: int
    context_length: int
    d_model: int
    n_heads: int
    n_layers: int
    variant: str = "multi-head"
    options: Mapping[str, Any] = field(default_factory=dict)
    dropout: float = 0.0
    bias: bool = True
    tie_weights: bool = True
    causal: bool = True  # False only for the mask experiment: every token sees the future
    scaled: bool = True  # False only for the sqrt(d) experiment
    # "learned": GPT-2's position embedding (wpe), so at most context_length tokens at once.
    # "none": no wpe; order comes from the mask or a bias (ALiBi), and any length runs.
    positions: str = "learned"

    def __post_init__(self) -> None:
        for name in ("vocab_size", "context_length", "n_layers"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{name}={value!r} must be a whole number, 1 or more")
        if self.positions not in POSITIONS:
            raise ConfigError(MESSAGES["positions"].format(value=self.positions))
        object.__setattr__(self, "options", dict(self.options))

    def attention(self) -> AttentionConfig:
        """The config each block's attention layer is built from."""
        return AttentionConfig(
            d_model=self.d_model, n_heads=self.n_heads, causal=self.causal, scaled=self.scaled,
            dropout=self.dropout, bias=self.bias, options=self.options,
        )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# GPT-2's published sizes (vocab 50257, context 1024); counts below are unique parameters,
# tied head counted once, position embeddings included: 124,439,808 / 354,823,168 / 774,030,080 / 1,557,611,200.
_GPT2 = dict(vocab_size=50257, context_length=1024)
TINY_VOCAB = 200
PRESETS: dict[str, GPTConfig] = {
    "gpt2-small": GPTConfig(**_GPT2, d_model=768, n_heads=12, n_layers=12),
    "gpt2-medium": GPTConfig(**_GPT2, d_model=1024, n_heads=16, n_layers=24),
    "gpt2-large": GPTConfig(**_GPT2, d_model=1280, n_heads=20, n_layers=36),
    "gpt2-xl": GPTConfig(**_GPT2, d_model=1600, n_heads=25, n_layers=48),
    # the shipped model's shape; its vocabulary is the corpus lexicon plus <unk> (a test keeps the two equal)
    "tiny": GPTConfig(vocab_size=TINY_VOCAB, context_length=64, d_model=64, n_heads=4, n_layers=2),
}


class MLP(nn.Module):
    """Position-wise feed-forward: widen 4x, GELU, project back."""

    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        d = config.d_model
        self.c_fc = nn.Linear(d, 4 * d, bias=config.bias)
        self.gelu = nn.GELU(approximate="tanh")  # GPT-2's GELU
        self.c_proj = nn.Linear(4 * d, d, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: Tensor) -> Tensor:
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))  # (B, T, d) -> (B, T, 4d) -> (B, T, d)


class TransformerBlock(nn.Module):
    """Pre-norm block: x + attn(ln(x)), then x + mlp(ln(x)); attention is whatever the variant builds."""

    def __init__(self, config: GPTConfig, registry: Registry | None = None) -> None:
        super().__init__()
        registry = registry or _default_registry()
        self.ln_1 = nn.LayerNorm(config.d_model, bias=config.bias)
        self.attn = registry.build(config.variant, config.attention())
        self.resid_dropout = nn.Dropout(config.dropout)
        self.ln_2 = nn.LayerNorm(config.d_model, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x: Tensor, cache: KVCache | None = None) -> Tensor:
        """x (B, T, d) -> (B, T, d); with a cache, x is the next tokens and the cache grows by them."""
        a = self.ln_1(x)
        a = self.attn(a) if cache is None else self.attn.forward_cached(a, cache)  # (B, T, d)
        x = x + self.resid_dropout(a)  # (B, T, d)
        return x + self.mlp(self.ln_2(x))  # (B, T, d)

    def trace(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """Same as forward through the explicit path; returns (x, attention weights (B, H, T, T))."""
        t = self.attn.trace(self.ln_1(x))
        x = x + self.resid_dropout(t.output)
        return x + self.mlp(self.ln_2(x)), t.weights


class GPT(nn.Module):
    """A decoder-only language model over any registered attention variant."""

    def __init__(self, config: GPTConfig, registry: Registry | None = None) -> None:
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.d_model)
        self.wpe = nn.Embedding(config.context_length, config.d_model) if config.positions == "learned" else None
        self.drop = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList(TransformerBlock(config, registry) for _ in range(config.n_layers))
        self.ln_f = nn.LayerNorm(config.d_model, bias=config.bias)
        self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        if config.tie_weights:
            self.lm_head.weight = self.wte.weight  # one matrix reads tokens in and writes them out
        self.apply(self._init_weights)
        for name, p in self.named_parameters():  # GPT-2: residual projections scaled by depth
            if name.endswith(("proj.weight", "c_proj.weight")):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layers))

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def num_params(self) -> int:
        """Unique parameters: a tied head counts once, position embeddings count (as published)."""
        return sum(p.numel() for p in self.parameters())

    def _embed(self, idx: Tensor, start: int = 0) -> Tensor:
        """Token ids (B, T) at absolute positions start .. start+T-1 -> (B, T, d)."""
        if idx.dim() != 2:
            raise ValueError(f"token ids have shape {tuple(idx.shape)}; the model expects (batch, tokens)")
        T, C = idx.shape[1], self.config.context_length
        if self.wpe is None:
            return self.drop(self.wte(idx))  # (B, T, d): no positions to run out of
        if start + T > C:
            raise ValueError(MESSAGES["cache_full" if start else "too_long"].format(start=start, T=T, C=C))
        pos = torch.arange(start, start + T, device=idx.device)  # (T,)
        return self.drop(self.wte(idx) + self.wpe(pos))  # (B, T, d)

    def forward(
        self, idx: Tensor, cache: list[KVCache] | None = None, return_cache: bool = False
    ) -> Tensor | tuple[Tensor, list[KVCache]]:
        """Token ids (B, T) -> next-token logits (B, T, vocab).

        With a cache (or return_cache=True, which starts one) it returns (logits, cache): idx are
        the tokens after the cache's, and each layer's KVCache grows by them in place:
            logits, cache = model(prompt, return_cache=True)   # (B, T, V), n_layers KVCaches
            logits, cache = model(next_id, cache=cache)        # next_id (B, 1) -> (B, 1, V)
        """
        if cache is None and not return_cache:
            return self.lm_head(self.hidden(idx))  # (B, T, V)
        cache = self.new_cache() if cache is None else cache
        return self.lm_head(self.hidden(idx, cache)), cache

    def hidden(self, idx: Tensor, cache: list[KVCache] | None = None) -> Tensor:
        """The final normalised states (B, T, d) the head reads: decoding projects only the last one."""
        if cache is None:
            x = self._embed(idx)
            for block in self.blocks:
                x = block(x)  # (B, T, d)
            return self.ln_f(x)
        if len(cache) != len(self.blocks):
            raise ConfigError(MESSAGES["cache_layers"].format(got=len(cache), want=len(self.blocks)))
        self.check_cacheable()
        x = self._embed(idx, cache[0].length)
        for block, layer_cache in zip(self.blocks, cache, strict=True):
            x = block(x, layer_cache)  # (B, T, d)
        return self.ln_f(x)

    def new_cache(self, reserve: int = 0) -> list[KVCache]:
        """An empty KV cache, one KVCache per layer; reserve = tokens to make room for at once."""
        return [KVCache(reserve=reserve) for _ in self.blocks]

    def check_cacheable(self) -> None:
        """Raise ConfigError (one sentence naming the variant and why) if a KV cache would change the answer."""
        for block in self.blocks:
            reason = block.attn.cache_blocker()
            if reason is not None:
                raise ConfigError(MESSAGES["uncacheable"].format(variant=self.config.variant, reason=reason))

    @torch.no_grad()
    def trace(self, idx: Tensor) -> Tensor:
        """Every layer's and head's attention weights, (n_layers, B, H, T, T), for the app's heatmaps."""
        x = self._embed(idx)
        weights = []
        for block in self.blocks:
            x, w = block.trace(x)
            weights.append(w)  # (B, H, T, T)
        return torch.stack(weights)

    @torch.no_grad()
    def generate(
        self,
        idx: Tensor,
        max_new_tokens: int,
        temperature: float = 1.0,
        top_k: int | None = None,
        use_cache: bool = True,
        generator: torch.Generator | None = None,
    ) -> Tensor:
        """Sample continuations (B, T) -> (B, T + max_new_tokens); temperature <= 0 is greedy.

        use_cache=True gives the same tokens as recomputing everything each step (core.decode.Decoder
        says how, past context_length too); a variant that cannot be cached raises ConfigError.
        """
        decoder = Decoder(self, idx, use_cache=use_cache, reserve=idx.shape[1] + max_new_tokens)
        for _ in range(max_new_tokens):
            decoder.push(sample_next(decoder.logits, temperature, top_k, generator))  # (B, 1)
        return decoder.idx


@lru_cache(maxsize=1)
def _default_registry() -> Registry:
    return load_registry()


def count_params(config: GPTConfig, registry: Registry | None = None) -> int:
    """Parameter count of a config, built on the meta device (no memory, even for gpt2-xl)."""
    with torch.device("meta"):
        return GPT(config, registry).num_params()


ASSETS = "assets"
WEIGHTS_FILE, CONFIG_FILE = "tiny.pt", "tiny.json"


def save_tiny(model: GPT, tokenizer: Tokenizer, directory: str | Path, extra: dict[str, Any] | None = None) -> None:
    """Write the state dict and a JSON config (model config + vocab + training notes)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), directory / WEIGHTS_FILE)  # a tied head shares storage: saved once
    meta = {"config": model.config.to_dict(), "vocab": list(tokenizer.vocab), **(extra or {})}
    (directory / CONFIG_FILE).write_text(json.dumps(meta, indent=1) + "\n")


def _tiny_root(directory: str | Path | None):
    return resources.files("core") / ASSETS if directory is None else Path(directory)


def tiny_config(directory: str | Path | None = None) -> GPTConfig:
    """The shipped tiny model's GPTConfig, read without loading its weights (cheap at app start-up)."""
    return GPTConfig(**json.loads((_tiny_root(directory) / CONFIG_FILE).read_text())["config"])


def load_gpt2(path: str | Path) -> tuple[GPT, BPETokenizer]:
    """A Hugging Face GPT-2 checkpoint folder -> (GPT with the multi-head variant, in eval mode, its BPE tokenizer).

    Offline: config.json, model.safetensors or pytorch_model.bin, tokenizer.json or vocab.json + merges.txt
    (core.gpt2 reads them and maps the names); ConfigError names what is missing or unsupported.
    """
    from . import gpt2  # safetensors and tokenizers load only here

    folder = gpt2.checkpoint_folder(path)
    config = GPTConfig(**gpt2.gpt_config(folder))
    tokenizer = gpt2.load_tokenizer(folder)
    gpt2.check_vocab(folder, tokenizer, config.vocab_size)
    with torch.device("meta"):  # shapes only: no random init to throw away, no draw from torch's RNG
        model = GPT(config)
    state = gpt2.mapped(gpt2.read_weights(folder), model.state_dict(), config.tie_weights, folder)
    model.load_state_dict(state, assign=True)
    if config.tie_weights:
        model.lm_head.weight = model.wte.weight  # assign=True gave each its own tensor: tie them again
    return model.eval(), tokenizer


def load_tiny(directory: str | Path | None = None) -> tuple[GPT, Tokenizer]:
    """The shipped tiny model and its tokenizer, from core/assets/ alone (no network), in eval mode."""
    root = _tiny_root(directory)
    meta = json.loads((root / CONFIG_FILE).read_text())
    model = GPT(GPTConfig(**meta["config"]))
    with (root / WEIGHTS_FILE).open("rb") as f:
        state = torch.load(f, map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    model.eval()
    from .corpus import Tokenizer

    return model, Tokenizer(tuple(meta["vocab"]))
