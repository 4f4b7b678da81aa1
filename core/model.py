"""From layer to model: a GPT whose attention is any registered variant, and the tiny model and GPT-2 loaded into it.

nanoGPT's shape: token + position embeddings, n_layers pre-norm blocks (core.gpt.block), a final LayerNorm and
an output head tied to the token embedding. Only the attention layer comes from the registry.
Decoding can keep a KV cache per layer (core.fast_paths), exact for every variant that allows one.
GPTConfig and the presets live in core.gpt.config; this module is their public door too.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor, nn

from .config import ConfigError
from .fast_paths import KVCache
from .gpt.block import MLP, TransformerBlock
from .gpt.config import POSITIONS, PRESETS, TINY_VOCAB, GPTConfig
from .gpt.decode import Decoder, sample_next
from .gpt.lab_attention import LabRun, Switches, lab_forward  # the real models' runtime (torch only)
from .i18n import mark, t
from .registry import Registry

if TYPE_CHECKING:
    from .corpus import Tokenizer
    from .gpt.gpt2 import BPETokenizer

MESSAGES = {
    "uncacheable": mark("the variant {variant!r} cannot use a KV cache: {reason}; generate with use_cache=False"),
    "too_long": mark("input has {T} tokens but this model's context_length is {C}; shorten it to at most {C} tokens"),
    "cache_full": mark("the cache holds {start} tokens and {T} more would pass this model's context_length {C}, "
                       "where its learned positions end; start a new cache from the last {C} tokens"),
    "cache_layers": mark("the cache has {got} layers but this model has {want}; start it with model.new_cache()"),
}


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
            raise ValueError(t(MESSAGES["cache_full" if start else "too_long"], start=start, T=T, C=C))
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
            raise ConfigError(t(MESSAGES["cache_layers"], got=len(cache), want=len(self.blocks)))
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
                raise ConfigError(t(MESSAGES["uncacheable"], variant=self.config.variant, reason=reason))

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

        use_cache=True gives the same tokens as recomputing everything each step (core.gpt.decode.Decoder
        says how, past context_length too); a variant that cannot be cached raises ConfigError.
        """
        decoder = Decoder(self, idx, use_cache=use_cache, reserve=idx.shape[1] + max_new_tokens)
        for _ in range(max_new_tokens):
            decoder.push(sample_next(decoder.logits, temperature, top_k, generator))  # (B, 1)
        return decoder.idx


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


def load_gpt2(name_or_path: str | Path) -> tuple[GPT, BPETokenizer]:
    """A GPT-2 checkpoint -> (GPT with the multi-head variant, in eval mode, its tokenizer): the teaching bridge.

    name_or_path: a folder holding config.json, model.safetensors or pytorch_model.bin, and tokenizer.json,
    vocab.json + merges.txt, or a BERT-style vocab.txt; or a Hub id ("openai-community/gpt2") read from the
    Hugging Face cache, downloaded only when HF_HUB_OFFLINE is unset (core.gpt.hub). config.json is read first:
    another model is refused before its weights are fetched. ConfigError names what is missing or unsupported.
    """
    from .gpt import gpt2, hub  # safetensors, tokenizers and huggingface_hub load only here

    name = hub.label(name_or_path)
    if not isinstance(name_or_path, Path) and not Path(name_or_path).expanduser().is_dir():
        gpt2.gpt_config(Path(name), name, hub.config_of(name_or_path))  # judged on config.json alone
    folder = gpt2.checkpoint_folder(hub.checkpoint_path(name_or_path), name)
    config = GPTConfig(**gpt2.gpt_config(folder, name))
    tokenizer = gpt2.load_tokenizer(folder, name)
    gpt2.check_vocab(name, tokenizer, config.vocab_size)
    with torch.device("meta"):  # shapes only: no random init to throw away, no draw from torch's RNG
        model = GPT(config)
    state = gpt2.mapped(gpt2.read_weights(folder, name), model.state_dict(), config.tie_weights, name)
    model.load_state_dict(state, assign=True)
    if config.tie_weights:
        model.lm_head.weight = model.wte.weight  # assign=True gave each its own tensor: tie them again
    return model.eval(), tokenizer


def load_pretrained(name_or_path: str | Path) -> tuple[Any, Any]:
    """Any decoder transformers runs -> (its transformers model, fp32, eval, with the lab's attention inside; its
    tokenizer with encode/decode). GPT-2, Llama (SmolLM2), Qwen2/2.5, Qwen3, Mistral, Gemma 2 and Gemma 3 (text).

    name_or_path: a folder or a Hub id (read from the Hugging Face cache; fetched only when HF_HUB_OFFLINE is
    unset). config.json is read first, alone: a model the lab does not run is one ConfigError sentence naming the
    id before any weights are fetched. Run it with `lab_forward(model, ids, Switches(...))` (core.gpt.lab_attention):
    every head's weights recorded, the causal mask, scaling, heads, KV groups, windows or a variant switched.
    """
    from .gpt import pretrained

    return pretrained.load(name_or_path)


def architecture(model: Any) -> Any:
    """A model from load_pretrained -> its Architecture (family, n_layers, n_heads, n_kv_heads, head_dim, windows)."""
    from .gpt import pretrained

    return pretrained.architecture(model)


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


__all__ = [
    "ASSETS", "CONFIG_FILE", "GPT", "MESSAGES", "MLP", "POSITIONS", "PRESETS", "TINY_VOCAB", "WEIGHTS_FILE",
    "GPTConfig", "TransformerBlock", "architecture", "count_params", "lab_forward", "load_gpt2", "load_pretrained",
    "load_tiny", "save_tiny", "tiny_config", "LabRun", "Switches",
]

