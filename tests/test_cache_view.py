"""The cache view's numbers: GPT-2's published cache size, what GQA and a window save, and a real cache agrees."""

from __future__ import annotations

import pytest
import torch

from core.lab.cache_view import cache_numbers, compare
from core.lab.model_stats import breakdown
from core.model import GPT, PRESETS, GPTConfig

SMALL = PRESETS["gpt2-small"]


def test_gpt2_small_caches_36_kib_per_token_in_fp16():
    n = cache_numbers(SMALL, 1024)
    assert n.bytes_per_token == 2 * 12 * 768 * 2 == 36_864  # K and V, 12 layers, 768 values each, 2 bytes
    assert n.layer_shape == (1, 12, 1024, 64) and n.kept_tokens == 1024
    assert n.cache_bytes == 36_864 * 1024  # 36 MiB at full context
    assert n.bytes_per_token == breakdown(SMALL).kv_bytes_per_token  # the Model tab's figure


def test_without_a_cache_a_step_is_the_square_with_it_one_row():
    n = cache_numbers(SMALL, 1024)
    full, row = n.without_cache, n.with_cache
    assert (full.tokens_run, full.score_rows, full.score_cols) == (1024, 1024, 1024)
    assert (row.tokens_run, row.score_rows, row.score_cols) == (1, 1, 1024)
    assert full.scores == 1024 * 1024 * 12 * 12 and full.scores == 1024 * row.scores
    assert full.allowed == 1024 * 1025 // 2 * 12 * 12  # the causal half of the square
    assert row.allowed == row.scores  # the newest token may see every kept key
    assert full.attention_macs == 1024 * row.attention_macs


def test_gqa_shrinks_the_cache_by_the_group_and_a_window_caps_it():
    rows = compare(SMALL, 4096, n_kv_heads=4, window=256)
    mha, gqa, window = rows["multi-head"], rows["gqa"], rows["sliding-window"]
    assert mha.bytes_per_token == 3 * gqa.bytes_per_token and gqa.layer_shape == (1, 4, 4096, 64)
    assert gqa.query_heads == 12 and gqa.kv_heads == 4
    assert window.bytes_per_token == mha.bytes_per_token  # same heads: each token costs the same...
    assert window.kept_tokens == 255 and window.cache_bytes * 4096 == mha.cache_bytes * 255  # ...but few are kept
    assert window.with_cache.score_cols == 256  # the 255 kept keys and itself
    assert window.without_cache.allowed == sum(min(i + 1, 256) for i in range(4096)) * 12 * 12


def test_strided_columns_stay_in_the_cache():
    n = cache_numbers(GPTConfig(**{**SMALL.to_dict(), "variant": "sliding-window", "options": {"window": 64, "stride": 128}}), 1000)
    assert n.kept_tokens == 63 + len(range(0, 1000 - 63, 128))  # recent keys plus every 128th column behind them


@pytest.mark.parametrize("variant, options", [("multi-head", {}), ("gqa", {"n_kv_heads": 2}),
                                              ("sliding-window", {"window": 5, "stride": 7}), ("single-head", {})])
def test_the_numbers_are_what_a_real_cache_holds(variant, options):
    config = GPTConfig(vocab_size=50, context_length=64, d_model=32, n_heads=4, n_layers=2, variant=variant, options=options)
    torch.manual_seed(0)
    model = GPT(config).eval()
    T = 40
    with torch.no_grad():
        _, cache = model(torch.randint(0, 50, (1, 30)), return_cache=True)
        for _ in range(T - 30):
            _, cache = model(torch.randint(0, 50, (1, 1)), cache=cache)
    n = cache_numbers(config, T, bytes_per_value=4)  # the lab computes in fp32
    assert all(tuple(layer.keys.shape) == n.layer_shape for layer in cache)
    assert sum(layer.nbytes for layer in cache) == n.cache_bytes
