"""Real GPT-2 weights in the lab's GPT: a Hugging Face checkpoint folder read offline, names mapped one to one.

GPT-2 is core.model.GPT with the multi-head variant: h.N -> blocks.N, attn.c_attn -> attn.qkv
(q|k|v, head h in columns h*hd:(h+1)*hd, as CausalSelfAttention splits them), attn.c_proj ->
attn.proj, the MLP and LayerNorms keep their names, GELU is the tanh one ("gelu_new"), and the
head is tied to wte. Hugging Face stores its projections as Conv1D, (in, out): transposed here.
safetensors and tokenizers are imported only when a checkpoint is read, so importing core.model
stays cheap; core.model.load_gpt2 builds the GPT from what this module reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from ..config import ConfigError
from ..i18n import mark, t

CONV1D = ("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight", "mlp.c_proj.weight")
BUFFERS = (".attn.bias", ".attn.masked_bias")  # old checkpoints saved the causal mask; GPT builds its own
TANH_GELU = ("gelu_new", "gelu_pytorch_tanh")
FILES = mark("config.json, model.safetensors or pytorch_model.bin, and tokenizer.json, vocab.json + merges.txt or "
             "a BERT-style vocab.txt")
MESSAGES = {
    "folder": mark("'{path}' is not a folder; load_gpt2 reads a Hugging Face GPT-2 checkpoint folder ({files})"),
    "config": mark("'{path}' has no config.json; a GPT-2 checkpoint folder holds {files}"),
    "weights": mark("'{path}' has neither model.safetensors nor pytorch_model.bin; download the weights into it"),
    "tokenizer": mark("'{path}' has no tokenizer files; it needs tokenizer.json, vocab.json together with merges.txt, "
                      "or a BERT-style vocab.txt"),
    "type": mark("'{path}' holds a '{kind}' model, not GPT-2; load_gpt2 reads GPT-2 into the lab's GPT, and "
                 "core.model.load_pretrained runs it as it is"),
    "setting": mark("'{path}''s config sets {key}={value}, which core.model.GPT does not implement ({why})"),
    "missing": mark("'{path}''s weights lack '{name}' (and {more} more); the checkpoint is incomplete"),
    "unexpected": mark("'{path}''s weights have '{name}', which GPT-2 has no place for; is it really GPT-2?"),
    "shape": mark("'{path}''s '{name}' has shape {got} but its config.json implies {want}"),
    "vocab": mark("'{path}''s tokenizer has {n} tokens but the model only {v}; tokenizer and weights do not match"),
}
WHY = {  # why core.model.GPT refuses a setting (a word in a sentence: looked up where it is used)
    "activation_function": mark("its GELU is the tanh one"),
    "n_inner": mark("its MLP is 4 x n_embd wide"),
    "layer_norm_epsilon": mark("its LayerNorms use 1e-5"),
    "scale_attn_weights": mark("it scales scores by 1/sqrt(head_dim)"),
    "scale_attn_by_inverse_layer_idx": mark("no per-layer scale"),
    "reorder_and_upcast_attn": mark("no upcast attention"),
    "add_cross_attention": mark("a decoder has no cross-attention"),
}


@dataclass(frozen=True)
class BPETokenizer:
    """GPT-2's byte-level BPE (a `tokenizers.Tokenizer`), with the lab's encode/decode interface."""

    tokenizer: Any  # tokenizers.Tokenizer

    def __len__(self) -> int:
        return self.tokenizer.get_vocab_size()

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def decode(self, ids) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=False)


def checkpoint_folder(path: str | Path, name: str | None = None) -> Path:
    """The folder, or ConfigError saying what a GPT-2 checkpoint folder holds."""
    folder = Path(path)
    if not folder.is_dir():
        raise ConfigError(t(MESSAGES["folder"], path=name or folder.name, files=t(FILES)))
    return folder


def check_vocab(name: str, tokenizer: BPETokenizer, vocab_size: int) -> None:
    """A tokenizer with ids past the embedding would index out of range: refuse the pair."""
    if len(tokenizer) > vocab_size:
        raise ConfigError(t(MESSAGES["vocab"], path=name, n=len(tokenizer), v=vocab_size))


def gpt_config(folder: Path, name: str | None = None, hf: dict[str, Any] | None = None) -> dict[str, Any]:
    """config.json (read here, or given) -> GPTConfig's fields, refusing the settings core.model.GPT does not
    implement."""
    name = name or folder.name
    if hf is None:
        file = folder / "config.json"
        if not file.is_file():
            raise ConfigError(t(MESSAGES["config"], path=name, files=t(FILES)))
        hf = json.loads(file.read_text())
    if hf.get("model_type", "gpt2") != "gpt2":
        raise ConfigError(t(MESSAGES["type"], path=name, kind=str(hf["model_type"])[:40]))
    d = hf.get("n_embd", 768)
    checks = {  # key: (its value, what GPT implements)
        "activation_function": (hf.get("activation_function", "gelu_new"), TANH_GELU),
        "n_inner": (hf.get("n_inner"), (None, 4 * d)),
        "layer_norm_epsilon": (hf.get("layer_norm_epsilon", 1e-5), (1e-5,)),
        "scale_attn_weights": (hf.get("scale_attn_weights", True), (True,)),
        "scale_attn_by_inverse_layer_idx": (hf.get("scale_attn_by_inverse_layer_idx", False), (False,)),
        "reorder_and_upcast_attn": (hf.get("reorder_and_upcast_attn", False), (False,)),
        "add_cross_attention": (hf.get("add_cross_attention", False), (False,)),
    }
    for key, (value, allowed) in checks.items():
        if value not in allowed:
            raise ConfigError(t(MESSAGES["setting"], path=name, key=key, value=repr(value)[:40], why=t(WHY[key])))
    return dict(
        vocab_size=hf.get("vocab_size", 50257), context_length=hf.get("n_positions", 1024), d_model=d,
        n_heads=hf.get("n_head", 12), n_layers=hf.get("n_layer", 12), variant="multi-head",
        tie_weights=hf.get("tie_word_embeddings", True),
    )


def read_weights(folder: Path, name: str | None = None) -> dict[str, Tensor]:
    """The checkpoint's tensors: model.safetensors (or its shards), else pytorch_model.bin (weights_only)."""
    single, index = folder / "model.safetensors", folder / "model.safetensors.index.json"
    if single.is_file() or index.is_file():
        from safetensors.torch import load_file

        if single.is_file():
            return load_file(single)
        shards = sorted(set(json.loads(index.read_text())["weight_map"].values()))
        return {k: v for shard in shards for k, v in load_file(folder / shard).items()}
    bin_file = folder / "pytorch_model.bin"
    if bin_file.is_file():
        return torch.load(bin_file, map_location="cpu", weights_only=True)
    raise ConfigError(t(MESSAGES["weights"], path=name or folder.name))


def load_tokenizer(folder: Path, name: str | None = None) -> BPETokenizer:
    """tokenizer.json if present, else vocab.json + merges.txt as GPT-2's byte-level BPE, else a BERT-style
    vocab.txt (Chinese GPT-2s such as uer/gpt2-chinese-cluecorpussmall: one token per Han character)."""
    import tokenizers

    if (folder / "tokenizer.json").is_file():
        return BPETokenizer(tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")))
    vocab, merges, wordpiece = folder / "vocab.json", folder / "merges.txt", folder / "vocab.txt"
    if vocab.is_file() and merges.is_file():
        return BPETokenizer(tokenizers.ByteLevelBPETokenizer(str(vocab), str(merges))._tokenizer)
    if wordpiece.is_file():
        settings = folder / "tokenizer_config.json"
        lower = json.loads(settings.read_text()).get("do_lower_case", True) if settings.is_file() else True
        return BPETokenizer(tokenizers.BertWordPieceTokenizer(str(wordpiece), lowercase=lower)._tokenizer)
    raise ConfigError(t(MESSAGES["tokenizer"], path=name or folder.name))


def lab_name(hf_name: str) -> str | None:
    """A Hugging Face GPT-2 parameter name -> core.model.GPT's (None for buffers GPT does not keep)."""
    name = hf_name.removeprefix("transformer.")
    if name.endswith(BUFFERS):
        return None
    if name.startswith("h."):
        name = "blocks." + name[2:]
    return name.replace(".attn.c_attn.", ".attn.qkv.").replace(".attn.c_proj.", ".attn.proj.")


def mapped(weights: dict[str, Tensor], state: dict[str, Tensor], tied: bool, label: str) -> dict[str, Tensor]:
    """Rename, transpose Conv1D weights, check every shape against state (GPT's, on meta); a tied head is wte."""
    out: dict[str, Tensor] = {}
    for hf_name, tensor in weights.items():
        name = lab_name(hf_name)
        if name is None or (name == "lm_head.weight" and tied):
            continue  # a tied head is wte itself
        if name not in state:
            raise ConfigError(t(MESSAGES["unexpected"], path=label, name=hf_name))
        tensor = tensor.t() if hf_name.endswith(CONV1D) else tensor  # Conv1D (in, out) -> Linear (out, in)
        tensor = tensor.to(torch.float32).contiguous()  # the lab computes in fp32, whatever was stored
        if tensor.shape != state[name].shape:
            raise ConfigError(t(MESSAGES["shape"], path=label, name=hf_name, got=tuple(tensor.shape),
                                want=tuple(state[name].shape)))
        out[name] = tensor
    if tied and "wte.weight" in out:
        out["lm_head.weight"] = out["wte.weight"]
    missing = [n for n in state if n not in out]
    if missing:
        raise ConfigError(t(MESSAGES["missing"], path=label, name=missing[0], more=len(missing) - 1))
    return out
