"""core.lab.model_stats: the Model tab's table, counted on the real module (meta device), against plain multi-head."""

from __future__ import annotations

import pytest

from core import ConfigError, load_registry
from core.lab.model_stats import breakdown, human, model_size
from core.model import PRESETS


@pytest.fixture(scope="module")
def registry():
    return load_registry(entry_points=False)


@pytest.mark.kernel_free
def test_gqa_saves_k_and_v_heads_and_the_summary_says_by_how_much(registry):
    parts, compare, summary, payload = model_size(registry, "gpt2-small", "gqa", 4, 256)
    assert payload["total"] == 124_439_808 - 12 * 2 * (12 - 4) * 64 * (768 + 1)  # K and V lose 8 heads per layer
    assert [row[0] for row in parts] == ["embeddings", "attention", "mlp", "norms", "total"]
    shares = [float(row[2].rstrip(" %")) for row in parts[:-1]]
    assert sum(shares) == pytest.approx(100, abs=0.2)  # each share rounded to 0.1 %
    assert payload["kv_bytes_per_token"] * 3 == payload["reference_multi_head"]["kv_bytes_per_token"]
    assert "saves 67 % against plain multi-head" in summary  # 4 of 12 K/V heads kept
    assert compare[3] == ["KV cache per token (fp16, all layers)", human(36864, "B"), human(12288, "B")]


def test_a_window_caps_the_tokens_the_cache_holds(registry):
    *_, summary, payload = model_size(registry, "gpt2-small", "sliding-window", 4, 256)
    assert payload["kv_tokens_at_context"] == 256 and payload["reference_multi_head"]["kv_tokens_at_context"] == 1024
    assert "saves 75 %" in summary


def test_parts_add_up_to_the_total_for_every_preset(registry):
    for name in ("gpt2-small", "tiny"):
        b = breakdown(PRESETS[name], registry)
        assert b.embeddings + b.attention + b.mlp + b.norms == b.total


def test_bad_settings_are_one_sentence(registry):
    with pytest.raises(ConfigError, match="preset='gpt5' is unknown"):
        model_size(registry, "gpt5", "gqa", 4, 256)
    with pytest.raises(ConfigError, match="n_kv_heads=2.5 must be a whole number"):
        model_size(registry, "gpt2-small", "gqa", 2.5, 256)


def test_human_sizes():
    assert human(1_234_567) == "1.23 M" and human(999) == "999"
    assert human(3 * 2**20, "B") == "3.00 MiB" and human(512, "B") == "512 B"
