"""What the i18n tests read: English words a reader of another language would still see in a text.

Names are not words: identifiers, variant and package names, the technical terms a Chinese reader meets as they are
(KEEP), a quoted value, a {field}, and a KEY=VALUE as it was sent. Test-side only: the app never parses its output.
"""

from __future__ import annotations

import re

KEEP: set[str] = {  # names kept as themselves in every language
    # the built-in variants and the tiny model
    "alibi", "linear", "tiny", "gqa", "multi-head", "single-head", "sliding-window", "multi-head-stacked", "none",
    "no-transpose", "swap-query-key", "softmax", "relu", "sigmoid", "elu",
    # technical words a Chinese reader meets as they are
    "GPT", "GPT-2", "LayerNorm", "MLP", "SDPA", "JSON", "PNG", "API", "PyTorch", "Python", "nanoGPT", "temperature", "KV", "GQA", "RoPE",
    "ALiBi", "FlexAttention", "LLaMA", "Mistral", "Longformer", "NaN", "inf", "nats", "bits", "MiB", "KiB",
    "GiB", "ms", "fp16", "fp32", "B", "M", "T", "Q", "K", "V", "q", "k", "v", "x", "d", "H", "d_in", "d_out",
    "autograd", "pluggy", "rjieba", "torch", "nn", "qkv", "CausalSelfAttention", "CausalAttention",
    "MultiHeadAttentionWrapper", "SelfAttention_v1", "SelfAttention_v2", "True", "False", "true", "false",
    "forward", "trace", "build", "cuda", "CPU", "GPU", "RSS", "VmHWM", "unk", "list", "dict", "tuple", "str",
    "int", "float", "bool", "NoneType", "one-hot", "U", "sdpa", "flex", "window", "stride", "n_kv_heads",
    "slope", "BLOOM", "MPT", "Katharopoulos", "RNN",  # the example plugins' option, models and paper
    "Hugging", "Face", "Hub", "HF_HUB_OFFLINE", "preload_from_hub", "README.md", "Space",  # where GPT-2 comes from
    "ablate",  # the /model_attention parameter
    "dropout",  # as the chapters write it (v1-v2.zh-CN.md: 权重上的 dropout)
}

KEEP |= {"exp", "dtype", "meta", "cpu", "nan",  # torch's own words in the spot-the-bug cards
         "Llama", "Qwen", "Qwen2", "Qwen2.5", "Qwen3", "Gemma", "SmolLM2", "ATTENTION_LAB_MODELS", "transformers"}

_NAME = re.compile(r"[#\w.\-|/]*[_.\-|/#\d][#\w.\-|/]*\Z")  # W_key, gpt2-small, attention_plugins.gqa, out0


def is_name(text: str) -> bool:
    """A name shown as itself in every language: an identifier, a variant or a package, a colour."""
    t = text.strip()
    return t in KEEP or bool(_NAME.match(t))


def leftover(text: str) -> list[str]:
    """English words left in a text (names, kept terms, quoted tokens, {slots} and the KEY=VALUE a field was sent as
    excepted)."""
    bare = re.sub(r"\{\w+\}|'[^']*'|\"[^\"]*\"|`[^`]*`|\b\w+=[^\s,;)]*", " ", text)
    chunks = (c.rstrip(".-/") for c in re.findall(r"[#\w][\w\-.#/]*", bare))
    return [c for c in chunks if re.search(r"[A-Za-z]{2}", c) and not is_name(c)]
