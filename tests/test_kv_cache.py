"""Cached decoding equals the full recompute, step by step, for every variant; where it cannot, a clear error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from torch import nn

from core import AttentionModule, ConfigError, Variant, hookimpl, load_registry
from core.fast_paths import KVCache
from core.gpt.decode import Decoder
from core.lab.threads import one_thread
from core.model import GPT, GPTConfig, load_tiny


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Tiny models on shared cores: one thread is several times faster than two spinning."""
    with one_thread():
        yield


EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "alibi_plugin"
STEPS = 64
TOL = 1e-5

# (variant, options): every built-in variant, GQA at both extremes, the window with and without stride
CASES = [
    ("single-head", {}),
    ("multi-head", {}),
    ("multi-head-stacked", {}),
    ("gqa", {"n_kv_heads": 2}),
    ("gqa", {"n_kv_heads": 1}),
    ("sliding-window", {"window": 4, "stride": 0}),
    ("sliding-window", {"window": 3, "stride": 5}),
    ("alibi", {"slope": 0.5}),
]
IDS = [f"{v}-{'-'.join(f'{k}{x}' for k, x in o.items())}" if o else v for v, o in CASES]


@pytest.fixture(scope="module")
def registry():
    """Built-ins plus the ALiBi example plugin (imported from examples/ when it is not pip-installed)."""
    try:
        import attention_lab_alibi
    except ImportError:
        sys.path.insert(0, str(EXAMPLE))
        import attention_lab_alibi
    return load_registry(entry_points=False, plugins=[attention_lab_alibi])


def _gpt(registry, variant, options, context_length=80, positions="learned", n_layers=3, **kw) -> GPT:
    """A small GPT with weights wide enough (std 0.2) that attention is peaked: a wrong key shows in the logits."""
    torch.manual_seed(0)
    config = GPTConfig(vocab_size=40, context_length=context_length, d_model=32, n_heads=4, n_layers=n_layers,
                       variant=variant, options=options, positions=positions, **kw)
    model = GPT(config, registry=registry).eval()
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                p.normal_(0.0, 0.2)
    return model


def _decode_against_recompute(model, prompt, steps, crop=None):
    """Greedy decoding through forward(cache=...), checked at every step against model(whole sequence)."""
    with torch.no_grad():
        logits, cache = model(prompt, return_cache=True)
        seq, worst, sizes = prompt, 0.0, []
        for _ in range(steps):
            cached = logits[:, -1]  # (B, V)
            full = model(seq if crop is None else seq[:, -crop:])[:, -1]  # (B, V) the T x T square again
            worst = max(worst, (cached - full).abs().max().item())
            assert torch.equal(cached.argmax(-1), full.argmax(-1))  # the same greedy token
            nxt = cached.argmax(-1, keepdim=True)  # (B, 1)
            seq = torch.cat([seq, nxt], dim=1)
            logits, cache = model(nxt, cache=cache)
            sizes.append(cache[0].size)
    return worst, seq, cache, sizes


@pytest.mark.floats
@pytest.mark.parametrize("variant, options", CASES, ids=IDS)
def test_cached_logits_equal_full_recompute_at_every_step(registry, variant, options):
    model = _gpt(registry, variant, options)
    prompt = torch.randint(0, 40, (2, 8), generator=torch.Generator().manual_seed(1))  # (B=2, T=8)
    worst, seq, cache, _ = _decode_against_recompute(model, prompt, STEPS)
    assert worst <= TOL, f"{variant}: cached logits differ from the recompute by {worst:.2e}"
    assert seq.shape == (2, 8 + STEPS)
    assert len(cache) == 3 and cache[0].length == 8 + STEPS


@pytest.mark.floats
@pytest.mark.parametrize("variant, options", CASES, ids=IDS)
def test_generate_with_and_without_cache_agree_past_the_context(registry, variant, options):
    """Learned positions: past context_length both read the last 16 tokens; the cached one rebuilds its cache."""
    model = _gpt(registry, variant, options, context_length=16)
    prompt = torch.randint(0, 40, (1, 5), generator=torch.Generator().manual_seed(2))
    cached, full = Decoder(model, prompt, use_cache=True), Decoder(model, prompt, use_cache=False)
    with torch.no_grad():
        for _ in range(STEPS):  # 5 + 64 tokens: far past context_length 16
            assert (cached.logits - full.logits).abs().max().item() <= TOL
            nxt = cached.logits.argmax(-1, keepdim=True)
            assert torch.equal(nxt, full.logits.argmax(-1, keepdim=True))
            cached.push(nxt)
            full.push(nxt)
    assert cached.cache[0].length <= 16  # never a position past the learned ones
    assert torch.equal(model.generate(prompt, STEPS, temperature=0), model.generate(prompt, STEPS, temperature=0, use_cache=False))


@pytest.mark.floats
@pytest.mark.parametrize("variant, options", [c for c in CASES if c[0] in ("multi-head", "sliding-window", "alibi")],
                         ids=[i for i, c in zip(IDS, CASES, strict=True) if c[0] in ("multi-head", "sliding-window", "alibi")])
def test_a_position_free_model_keeps_its_cache_far_past_the_context(registry, variant, options):
    """positions='none': no wpe, so any length runs; the cache is kept (not rebuilt) and stays exact."""
    model = _gpt(registry, variant, options, context_length=16, positions="none")
    assert model.wpe is None
    prompt = torch.randint(0, 40, (1, 6), generator=torch.Generator().manual_seed(3))
    worst, seq, cache, sizes = _decode_against_recompute(model, prompt, STEPS)
    assert worst <= TOL and seq.shape[1] == 6 + STEPS > 4 * 16
    lengths = range(7, 7 + STEPS)  # tokens seen after each step
    if variant == "sliding-window":  # a rolling cache: window-1 recent keys plus every strided column behind them
        w, s = options["window"], options["stride"]
        expected = [min(w - 1, L) + (len(range(0, L - w + 1, s)) if s else 0) for L in lengths]
        assert sizes == expected
        assert max(sizes) < 20  # 70 tokens seen; a full cache would hold 70
        kept = cache[0].positions.tolist()
        assert kept == sorted({*range(len(seq[0]) - w + 1, len(seq[0]))} | ({*range(0, len(seq[0]) - w + 1, s)} if s else set()))
    else:
        assert sizes == list(lengths)
    assert torch.equal(model.generate(prompt, STEPS, temperature=0), model.generate(prompt, STEPS, temperature=0, use_cache=False))


def test_gqa_caches_only_its_key_value_heads(registry):
    model = _gpt(registry, "gqa", {"n_kv_heads": 1})
    _, cache = model(torch.zeros(2, 5, dtype=torch.long), return_cache=True)
    assert cache[0].keys.shape == (2, 1, 5, 8)  # (B, n_kv_heads, T, hd), not 4 heads
    full = _gpt(registry, "multi-head", {})
    _, full_cache = full(torch.zeros(2, 5, dtype=torch.long), return_cache=True)
    assert full_cache[0].nbytes == 4 * cache[0].nbytes


@pytest.mark.floats
def test_the_shipped_tiny_model_decodes_the_same_with_and_without_its_cache():
    model, tok = load_tiny()
    prompt = torch.tensor([tok.encode("the fox that the child saw was")])
    greedy = model.generate(prompt, 40, temperature=0)
    assert torch.equal(greedy, model.generate(prompt, 40, temperature=0, use_cache=False))  # 47 tokens, context 64
    sampled = [model.generate(prompt, 80, top_k=5, use_cache=c, generator=torch.Generator().manual_seed(7)) for c in (True, False)]
    assert torch.equal(*sampled)  # past the context too, with the same draws


@pytest.mark.floats
def test_sampling_consumes_the_generator_the_same_way_with_top_k_and_temperature(registry):
    model = _gpt(registry, "multi-head", {})
    prompt = torch.randint(0, 40, (3, 4), generator=torch.Generator().manual_seed(4))
    runs = [model.generate(prompt, 20, temperature=0.7, top_k=3, use_cache=c, generator=torch.Generator().manual_seed(9))
            for c in (True, False)]
    assert torch.equal(*runs)


# ---- variants a cache must refuse ----------------------------------------------------------


class _OwnForward(AttentionModule):
    """Overrides forward: the cache cannot know what it computes."""

    def forward(self, x, key_padding_mask=None):
        return 2 * super().forward(x, key_padding_mask)


class _OwnKernel(AttentionModule):
    """Overrides fast_attention (attends uniformly) and declares nothing."""

    def fast_attention(self, q, k, v, key_padding_mask=None):
        return v.cumsum(2) / torch.arange(1, v.shape[2] + 1)[:, None]


class _PositionalProjection(AttentionModule):
    """Adds each token's index to its queries and keys: project() reads positions, so pieces differ."""

    def project(self, x):
        q, k, v = super().project(x)
        pos = torch.arange(x.shape[1], dtype=x.dtype)[:, None]  # (T, 1): index within this call, not absolute
        return q + pos, k + pos, v


class _EveryOther(AttentionModule):
    """A mask-only variant: causal, but only keys of the same parity (and itself)."""

    def allowed(self, T, device=None):
        i = torch.arange(T, device=device)
        return (i[None, :] <= i[:, None]) & ((i[:, None] - i[None, :]) % 2 == 0)


class _BandKernelDeclared(_EveryOther):
    """Its own kernel, declared exact on positions through allowed_at."""

    def allowed_at(self, q_pos, k_pos, device=None):
        return (k_pos[None, :] <= q_pos[:, None]) & ((q_pos[:, None] - k_pos[None, :]) % 2 == 0)

    def fast_attention(self, q, k, v, key_padding_mask=None):
        mask = self.allowed_at(torch.arange(q.shape[2]), torch.arange(k.shape[2]))
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)


class _Plugin:
    @hookimpl
    def register_attention_variants(self, register):
        for name, cls in (("own-forward", _OwnForward), ("own-kernel", _OwnKernel), ("positional", _PositionalProjection),
                          ("every-other", _EveryOther), ("band-declared", _BandKernelDeclared)):
            register(Variant(name=name, title=name, summary=name, build=cls))


@pytest.fixture(scope="module")
def odd_registry():
    return load_registry(entry_points=False, plugins=[_Plugin()])


@pytest.mark.parametrize("variant, why", [
    ("own-forward", "it overrides forward()"),
    ("own-kernel", "it overrides fast_attention()"),
    ("positional", "its output with a cache differs from its full recompute"),
])
def test_a_variant_that_cannot_be_cached_gets_one_clear_sentence(odd_registry, variant, why):
    model = _gpt(odd_registry, variant, {})
    prompt = torch.zeros(1, 3, dtype=torch.long)
    with pytest.raises(ConfigError, match=rf"^the variant '{variant}' cannot use a KV cache: {why}.*use_cache=False$"):
        model.generate(prompt, 2)
    with pytest.raises(ConfigError, match=variant):
        model(prompt, return_cache=True)
    assert model.generate(prompt, 2, use_cache=False).shape == (1, 5)  # the honest path still works


def test_a_model_that_sees_the_future_cannot_be_cached(registry):
    model = _gpt(registry, "multi-head", {}, causal=False)
    with pytest.raises(ConfigError, match="'multi-head' cannot use a KV cache: it attends to later tokens"):
        model.generate(torch.zeros(1, 3, dtype=torch.long), 2)


@pytest.mark.floats
@pytest.mark.parametrize("variant", ["every-other", "band-declared"])
def test_a_mask_only_variant_and_a_declared_kernel_are_cached_exactly(odd_registry, variant):
    model = _gpt(odd_registry, variant, {})
    worst, *_ = _decode_against_recompute(model, torch.randint(0, 40, (1, 5), generator=torch.Generator().manual_seed(5)), 40)
    assert worst <= TOL


# ---- the cache itself ----------------------------------------------------------------------


@pytest.mark.floats
def test_kv_cache_appends_in_place_and_forgets_in_order():
    cache = KVCache(reserve=5)
    k = torch.arange(2 * 3 * 4, dtype=torch.float32).view(1, 2, 3, 4)  # (B, Hkv, 3 tokens, hd)
    cache.append(k, -k)
    assert cache.k.shape[2] == 3
    cache.append(k[:, :, :1] + 100, -k[:, :, :1] - 100)
    assert cache.k.shape[2] == 5  # doubling stops at the reserve
    storage = cache.k.data_ptr()
    cache.append(k[:, :, :1] + 100, -k[:, :, :1] - 100)
    assert cache.k.data_ptr() == storage  # room left: written in place, nothing copied
    cache.keep(torch.tensor([True, True, True, True, False]))
    assert cache.length == 5 and cache.size == 4 and cache.positions.tolist() == [0, 1, 2, 3]
    cache.keep(torch.tensor([False, True, False, True]))
    assert cache.positions.tolist() == [1, 3] and cache.length == 5  # positions stay absolute after forgetting
    assert torch.equal(cache.keys, torch.stack([k[:, :, 1], k[:, :, 0] + 100], dim=2))
    assert torch.equal(cache.values, -cache.keys)
    assert cache.nbytes == 2 * (1 * 2 * 2 * 4) * 4


def test_cache_of_the_wrong_model_and_a_full_learned_context_are_clear_errors(registry):
    model = _gpt(registry, "multi-head", {}, context_length=6)
    _, cache = model(torch.zeros(1, 6, dtype=torch.long), return_cache=True)
    with pytest.raises(ValueError, match="holds 6 tokens and 1 more would pass this model's context_length 6"):
        model(torch.zeros(1, 1, dtype=torch.long), cache=cache)
    with pytest.raises(ConfigError, match="cache has 2 layers but this model has 3"):
        model(torch.zeros(1, 1, dtype=torch.long), cache=cache[:2])


@pytest.mark.floats
def test_plain_forward_is_untouched_by_the_cache_api(registry):
    model = _gpt(registry, "multi-head", {})
    idx = torch.randint(0, 40, (2, 9))
    logits = model(idx)
    assert isinstance(logits, torch.Tensor) and logits.shape == (2, 9, 40)
    with_cache, cache = model(idx, return_cache=True)
    assert torch.allclose(with_cache, logits, atol=TOL) and cache[0].keys.shape == (2, 4, 9, 8)
    assert isinstance(model.blocks[0].attn.qkv, nn.Linear)
