"""The rows the Generate tab draws as the KV cache are each layer's real keys and values, one per token."""

from __future__ import annotations

import pytest
import torch

from core.config import ConfigError
from core.lab.cache_rows import cache_rows
from core.lab.tiny import tiny
from core.model import GPT, GPTConfig


def reference_kv(model: GPT, ids: list[int]) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Each layer's K and V from the explicit path (attention's own trace), run block by block."""
    out = []
    with torch.no_grad():
        x = model._embed(torch.tensor([ids]))  # (1, T, d)
        for block in model.blocks:
            t = block.attn.trace(block.ln_1(x))  # t.k, t.v: (1, Hkv, T, hd)
            out.append((t.k[0], t.v[0]))
            x = block(x)
    return out


def flat(t: torch.Tensor) -> torch.Tensor:
    return t.permute(1, 0, 2).reshape(t.shape[1], -1)  # (Hkv, T, hd) -> (T, Hkv * hd)


@pytest.mark.floats
def test_the_tiny_models_cache_rows_are_its_keys_and_values():
    model, tokenizer = tiny()
    ids = tokenizer.encode("the fox that the child saw was hungry")
    rows = cache_rows(model, ids)
    assert rows.positions == list(range(len(ids)))
    assert rows.layer_shape == (1, 4, len(ids), 16) and rows.keys.shape == (2, len(ids), 64)
    for layer, (k, v) in enumerate(reference_kv(model, ids)):
        torch.testing.assert_close(rows.keys[layer], flat(k), atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(rows.values[layer], flat(v), atol=1e-5, rtol=1e-5)
    assert rows.bytes_per_token == 2 * 2 * 64 * 4  # K and V, 2 layers, 64 fp32 values each
    assert rows.cache_bytes == rows.bytes_per_token * len(ids)


@pytest.mark.floats
def test_one_more_token_adds_one_row_and_leaves_the_others():
    model, tokenizer = tiny()
    ids = tokenizer.encode("合同 违约金 过高 ， 它 可能")
    before, after = cache_rows(model, ids), cache_rows(model, [*ids, tokenizer.encode("存在")[0]])
    assert after.keys.shape[1] == before.keys.shape[1] + 1
    torch.testing.assert_close(after.keys[:, :-1], before.keys, atol=1e-6, rtol=1e-6)  # causal: the past is kept
    torch.testing.assert_close(after.values[:, :-1], before.values, atol=1e-6, rtol=1e-6)


@pytest.mark.floats
def test_gqa_keeps_only_its_kv_heads_and_a_window_only_the_keys_it_can_reach():
    torch.manual_seed(0)
    gqa = GPT(GPTConfig(vocab_size=50, context_length=32, d_model=32, n_heads=4, n_layers=2, variant="gqa",
                        options={"n_kv_heads": 2})).eval()
    rows = cache_rows(gqa, list(range(10)))
    assert rows.kv_heads == 2 and rows.keys.shape == (2, 10, 2 * 8)
    for layer, (k, _) in enumerate(reference_kv(gqa, list(range(10)))):
        torch.testing.assert_close(rows.keys[layer], flat(k), atol=1e-5, rtol=1e-5)
    window = GPT(GPTConfig(vocab_size=50, context_length=32, d_model=32, n_heads=4, n_layers=1,
                           variant="sliding-window", options={"window": 4})).eval()
    kept = cache_rows(window, list(range(10)))
    assert kept.positions == [7, 8, 9]  # the next query (10) reaches back 3 keys: window - 1


def test_no_tokens_is_one_sentence():
    with pytest.raises(ConfigError, match="no tokens"):
        cache_rows(tiny()[0], [])
