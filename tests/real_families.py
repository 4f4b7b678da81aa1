"""Tiny random checkpoints of every family the lab runs, saved by transformers with a BPE trained here (offline).

Each is the real architecture (GPT-2, Llama, Qwen2, Qwen3, Mistral, Gemma 2, Gemma 3 text) at toy sizes: two or
three layers, four query heads over two KV heads (GPT-2: four heads), windows of three keys where the family has
sliding layers, so the band shows on a ten-token sentence. Weights are drawn wider than the init so attention is
peaked and a change shows.
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import tokenizers  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402

SENTENCES = [
    "the fox that the child saw was hungry, so the fox slept.",
    "attention lets every token look back at the tokens before it.",
    "合同违约金过高，它可能存在风险。",
    "keys and values are cached; queries are new at every step.",
] * 5
WINDOW = 3
SMALL = dict(hidden_size=32, intermediate_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
             max_position_embeddings=128, bos_token_id=None, eos_token_id=None, pad_token_id=None,
             tie_word_embeddings=True)


def configs(vocab: int) -> dict[str, transformers.PretrainedConfig]:
    """family -> a toy config of it (the lab's names: config.json's model_type)."""
    return {
        "gpt2": transformers.GPT2Config(vocab_size=vocab, n_positions=64, n_embd=32, n_layer=2, n_head=4,
                                        bos_token_id=None, eos_token_id=None),
        "llama": transformers.LlamaConfig(vocab_size=vocab, num_hidden_layers=2, **SMALL),
        "qwen2": transformers.Qwen2Config(vocab_size=vocab, num_hidden_layers=2, attention_bias=True, **SMALL),
        "qwen3": transformers.Qwen3Config(vocab_size=vocab, num_hidden_layers=2, **SMALL),
        "mistral": transformers.MistralConfig(vocab_size=vocab, num_hidden_layers=2, sliding_window=WINDOW, **SMALL),
        "gemma2": transformers.Gemma2Config(vocab_size=vocab, num_hidden_layers=2, sliding_window=WINDOW,
                                            query_pre_attn_scalar=16, attn_logit_softcapping=5.0,
                                            final_logit_softcapping=30.0, **SMALL),
        "gemma3_text": transformers.Gemma3TextConfig(vocab_size=vocab, num_hidden_layers=3, sliding_window=WINDOW,
                                                     layer_types=["sliding_attention", "sliding_attention",
                                                                  "full_attention"],
                                                     query_pre_attn_scalar=8, **SMALL),
    }


FAMILIES = ("gpt2", "llama", "qwen2", "qwen3", "mistral", "gemma2", "gemma3_text")


def bpe() -> tokenizers.Tokenizer:
    """A byte-level BPE over the sentences above (Chinese included), with an <|endoftext|>."""
    trained = tokenizers.ByteLevelBPETokenizer()
    trained.train_from_iterator(SENTENCES, vocab_size=400, min_frequency=1, special_tokens=["<|endoftext|>"],
                                show_progress=False)
    return trained._tokenizer


def save(family: str, folder: Path, seed: int = 0) -> transformers.PreTrainedModel:
    """The family's toy model with random weights, saved into `folder` with its tokenizer; returned with eager
    attention (the reference: transformers' own formula, its output_attentions)."""
    tok = bpe()
    config = configs(tok.get_vocab_size())[family]
    config._attn_implementation = "eager"
    torch.manual_seed(seed)
    model = transformers.AutoModelForCausalLM.from_config(config, attn_implementation="eager").eval()
    with torch.no_grad():  # wider than the init: peaked attention, so a change shows
        for p in model.parameters():
            if p.dim() > 1:
                p.normal_(0.0, 0.3)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    transformers.PreTrainedTokenizerFast(tokenizer_object=tok).save_pretrained(folder)
    return model
