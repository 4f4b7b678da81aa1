"""Any decoder transformers runs, loaded with the lab's attention inside: GPT-2, Llama, Qwen2/3, Mistral, Gemma 2/3.

core.model.load_pretrained's parts. config.json is read first (core.gpt.hub.config_of: that file alone), so a
model the lab cannot run is one sentence before any weights are fetched. Then the weights and tokenizer files,
and transformers builds the model with attn_implementation=core.gpt.lab_attention.NAME, in fp32, eval mode.
`architecture(model)` says what the views need: family, layers, query and KV heads, each layer's window.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import ConfigError
from ..i18n import mark, t
from . import hub, lab_attention

FAMILIES = {  # config.json's model_type -> the family's name in a sentence
    "gpt2": "GPT-2", "llama": "Llama", "qwen2": "Qwen2", "qwen3": "Qwen3", "mistral": "Mistral",
    "gemma2": "Gemma 2", "gemma3_text": "Gemma 3",
}
EXAMPLES = "HuggingFaceTB/SmolLM2-135M, Qwen/Qwen2.5-0.5B, google/gemma-3-1b-pt"
MESSAGES = {
    "family": mark("'{id}' is a '{kind}' model; the lab runs {families} decoders (for example {examples}): name one "
                   "of those"),
    "no_type": mark("'{id}' has no model_type in its config.json; the lab runs {families} decoders (for example "
                    "{examples})"),
    "vision": mark("'{id}' is a Gemma 3 model with a vision tower (model_type 'gemma3'); the lab runs the text-only "
                   "Gemma 3 checkpoints (model_type 'gemma3_text', like google/gemma-3-1b-pt)"),
    "load": mark("'{id}' could not be loaded by transformers ({what}); its files may be incomplete: fetch them again"),
    "tokenizer": mark("'{id}' has no tokenizer transformers can read; it needs tokenizer.json (or the files its "
                      "tokenizer_config.json names)"),
    "vocab": mark("'{id}''s tokenizer has {n} tokens but the model only {v}; tokenizer and weights do not match"),
}


def family_of(config: dict[str, Any], name: str) -> str:
    """config.json's model_type, when the lab runs it; ConfigError naming the id and what it does run."""
    kind = config.get("model_type")
    families = ", ".join(dict.fromkeys(FAMILIES.values()))
    if not isinstance(kind, str) or not kind:
        raise ConfigError(t(MESSAGES["no_type"], id=name, families=families, examples=EXAMPLES))
    if kind == "gemma3":
        raise ConfigError(t(MESSAGES["vision"], id=name))
    if kind not in FAMILIES:
        raise ConfigError(t(MESSAGES["family"], id=name, kind=kind[:40], families=families, examples=EXAMPLES))
    return kind


@dataclass(frozen=True)
class Architecture:
    """What a view needs to know of a model's attention, read from its config."""

    family: str  # config.json's model_type ("llama", "gemma2", ...)
    n_layers: int
    n_heads: int  # query heads per layer
    n_kv_heads: int  # key/value heads: query head h reads KV head h // (n_heads // n_kv_heads)
    head_dim: int
    windows: tuple[int | None, ...]  # per layer: the sliding window, None for a global layer
    rope: bool  # positions by rotating q and k (every family here but GPT-2)
    softcap: float | None = None  # Gemma 2 squashes scores into (-softcap, softcap)

    @property
    def group(self) -> int:
        """Query heads per KV head."""
        return self.n_heads // self.n_kv_heads

    @property
    def name(self) -> str:
        return FAMILIES.get(self.family, self.family)

    def as_json(self) -> dict[str, Any]:
        """The API's "architecture" object."""
        return {"family": self.family, "n_layers": self.n_layers, "n_heads": self.n_heads,
                "n_kv_heads": self.n_kv_heads, "windows": list(self.windows)}


def architecture(model: Any) -> Architecture:
    """A loaded transformers model (or its config) -> its Architecture."""
    c = getattr(model, "config", model)
    kind = getattr(c, "model_type", "")
    if kind == "gpt2":
        L, H = c.n_layer, c.n_head
        return Architecture(kind, L, H, H, c.n_embd // H, (None,) * L, rope=False)
    L, H = c.num_hidden_layers, c.num_attention_heads
    Hkv = getattr(c, "num_key_value_heads", None) or H
    hd = getattr(c, "head_dim", None) or c.hidden_size // H
    window = getattr(c, "sliding_window", None)
    types = getattr(c, "layer_types", None)
    if types:
        windows = tuple(window if ty == "sliding_attention" else None for ty in types)
    else:  # Mistral: one window for every layer, when its config sets one
        windows = (window,) * L
    return Architecture(kind, L, H, Hkv, hd, windows, rope=True, softcap=getattr(c, "attn_logit_softcapping", None))


@dataclass(frozen=True)
class Tokenizer:
    """A transformers tokenizer with the lab's encode/decode: the model's own special tokens (Gemma's <bos>) kept."""

    hf: Any

    def __len__(self) -> int:
        return len(self.hf)

    def encode(self, text: str) -> list[int]:
        return list(self.hf(text, add_special_tokens=True)["input_ids"])

    def decode(self, ids) -> str:
        return self.hf.decode(list(ids), skip_special_tokens=False)


def load(name_or_path: str | Path) -> tuple[Any, Tokenizer]:
    """(transformers model with the lab's attention, fp32, eval; its tokenizer). config.json is judged first."""
    name = hub.label(name_or_path)
    family_of(hub.config_of(name_or_path), name)
    folder = hub.checkpoint_path(name_or_path, hub.MODEL_TOKENIZER_FILES, hub.FETCH_ANY)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    lab_attention.register()
    try:
        tokenizer = Tokenizer(AutoTokenizer.from_pretrained(folder))
        readable = len(tokenizer) > 1 and tokenizer.hf("the", add_special_tokens=False)["input_ids"]
    except (OSError, ValueError, TypeError, KeyError):
        readable = False
    if not readable:  # no tokenizer files: transformers builds one with an empty vocabulary
        raise ConfigError(t(MESSAGES["tokenizer"], id=name))
    try:
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32,
                                                     attn_implementation=lab_attention.NAME)
    except (OSError, ValueError, TypeError, KeyError, RuntimeError) as exc:
        raise ConfigError(t(MESSAGES["load"], id=name, what=type(exc).__name__)) from None
    vocab = model.get_input_embeddings().weight.shape[0]
    if len(tokenizer) > vocab:
        raise ConfigError(t(MESSAGES["vocab"], id=name, n=len(tokenizer), v=vocab))
    lab_attention.capture_inputs(model)
    return model.eval(), tokenizer


def from_lab_gpt(gpt: Any) -> Any:
    """One of the lab's own GPTs (multi-head, learned positions: the tiny model) as transformers' GPT-2, the same
    numbers in the same runtime as every other real model (load_gpt2's mapping, run backwards)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    c = gpt.config
    lab_attention.register()
    config = GPT2Config(vocab_size=c.vocab_size, n_positions=c.context_length, n_embd=c.d_model, n_layer=c.n_layers,
                        n_head=c.n_heads, activation_function="gelu_new", resid_pdrop=0.0, embd_pdrop=0.0,
                        attn_pdrop=0.0, tie_word_embeddings=c.tie_weights, bos_token_id=None, eos_token_id=None)
    config._attn_implementation = lab_attention.NAME
    model = GPT2LMHeadModel(config)
    state = {}
    for name, tensor in gpt.state_dict().items():
        hf = "transformer." + name.replace("blocks.", "h.").replace(".attn.qkv.", ".attn.c_attn.") \
            .replace(".attn.proj.", ".attn.c_proj.")
        if name == "lm_head.weight":
            hf = name
        conv = hf.endswith(("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight", "mlp.c_proj.weight"))
        state[hf] = tensor.t().contiguous() if conv else tensor  # Linear (out, in) -> Conv1D (in, out)
    with torch.no_grad():
        missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or any(not m.endswith((".attn.bias", ".attn.masked_bias")) and m != "lm_head.weight"
                         for m in missing):
        raise ValueError(f"the lab's GPT does not map onto GPT-2: missing {missing[:3]}, unexpected {unexpected[:3]}")
    lab_attention.capture_inputs(model)
    return model.eval()
