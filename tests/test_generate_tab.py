"""The Generate tab's public API as a script sees it: the top-10 is the model's softmax, draws are seeded, the cache
changes nothing, mistakes are one sentence, and GPT-2 is offered only when a local checkpoint is named."""

from __future__ import annotations

import os

import pytest
import torch
import torch.nn.functional as F
from gradio_client.exceptions import AppError

from core.lab.predict import step_seed
from core.model import load_tiny
from core.serve import generate, generate_inputs

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the GPT-2 folder is made here; nothing may reach for the Hub
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

FOX = "the fox that the child saw was hungry , so the fox slept ."
CHAPTER = "合同 违约金 过高 ， 它 可能"


@pytest.fixture(scope="module")
def reference():
    """The shipped tiny model loaded afresh (not the app's copy), and its tokenizer."""
    return load_tiny()


def logits_after(model, ids: list[int]) -> torch.Tensor:
    with torch.no_grad():
        return model(torch.tensor([ids]))[0, -1]  # (V,) the next token's logits


def next_words(client, sentence, **kw) -> dict:
    return client.predict(sentence, **kw, api_name="/next_words")[-1]


def test_the_endpoints_and_their_parameters(client):
    api = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    params = {ep: {p["parameter_name"]: p["parameter_default"] for p in api[ep]["parameters"]}
              for ep in ("/next_words", "/generate")}
    assert list(params["/next_words"]) == ["sentence", "position", "temperature", "top_k", "seed", "model"]
    assert list(params["/generate"]) == ["sentence", "n_words", "temperature", "top_k", "seed", "use_cache", "model"]
    assert params["/next_words"]["position"] == -1 and params["/generate"]["use_cache"] is True
    assert params["/next_words"]["model"] == generate.TINY


@pytest.mark.floats
def test_the_top_10_is_the_softmax_of_the_models_logits_at_the_position(client, reference):
    model, tokenizer = reference
    ids = tokenizer.encode(FOX)
    out = next_words(client, FOX, position=4)
    assert out["tokens"] == FOX.split() and out["position"] == 4
    probs = F.softmax(logits_after(model, ids[:5]), dim=-1)  # what follows "child"
    top = torch.topk(probs, 10)
    assert [c["word"] for c in out["candidates"]] == [tokenizer.vocab[i] for i in top.indices.tolist()]
    assert [c["probability"] for c in out["candidates"]] == pytest.approx(top.values.tolist(), abs=1e-6)
    got = [c["probability"] for c in out["candidates"]]
    assert got == sorted(got, reverse=True) and sum(got) <= 1 + 1e-6
    assert out["actual"]["word"] == "saw" and out["actual"]["probability"] == pytest.approx(probs[ids[5]].item(), abs=1e-6)


@pytest.mark.floats
def test_temperature_and_top_k_reshape_the_distribution(client, reference):
    model, tokenizer = reference
    ids = tokenizer.encode("the fox that the child saw was")
    out = next_words(client, "the fox that the child saw was", temperature=0.5, top_k=5)
    logits = logits_after(model, ids)
    top = torch.topk(logits, 5)
    expected = F.softmax(top.values / 0.5, dim=-1)  # only the 5 likeliest keep any mass
    assert [c["token"] for c in out["candidates"]] == top.indices.tolist()
    assert [c["probability"] for c in out["candidates"]] == pytest.approx(expected.tolist(), abs=1e-6)
    assert sum(c["probability"] for c in out["candidates"]) == pytest.approx(1, abs=1e-5)


@pytest.mark.floats
def test_a_seed_draws_the_same_words_for_everyone_and_the_cache_changes_none(client, reference):
    model, tokenizer = reference
    sentence = "the fox that the child saw was"
    first = client.predict(sentence, n_words=6, seed=7, api_name="/generate")[-1]
    again = client.predict(sentence, n_words=6, seed=7, api_name="/generate")[-1]
    uncached = client.predict(sentence, n_words=6, seed=7, use_cache=False, api_name="/generate")[-1]
    assert first["words"] == again["words"] == uncached["words"] and len(first["words"]) == 6
    assert uncached["probabilities"] == pytest.approx(first["probabilities"], abs=1e-5)
    assert first["cache_lengths"] == list(range(7, 13)) and uncached["cache_lengths"] == [0] * 6
    assert first["computed"] == [7, 1, 1, 1, 1, 1] and uncached["computed"] == list(range(7, 13))
    ids = tokenizer.encode(sentence)  # the first draw, made here: multinomial with the step's own seed
    generator = torch.Generator().manual_seed(step_seed(7, len(ids)))
    drawn = torch.multinomial(F.softmax(logits_after(model, ids), dim=-1), 1, generator=generator).item()
    assert first["tokens"][0] == drawn and first["words"][0] == tokenizer.vocab[drawn]
    seen = {tuple(client.predict(sentence, n_words=3, seed=s, api_name="/generate")[-1]["words"]) for s in range(6)}
    assert len(seen) > 1  # the seed matters
    assert next_words(client, sentence, seed=7)["drawn"]["token"] == drawn  # the bars name the same draw


@pytest.mark.floats
def test_one_generated_word_appends_itself_and_shows_every_heads_row():
    v = generate.step(CHAPTER, 1.0, 0, 0)
    again = generate.step(CHAPTER, 1.0, 0, 0)
    word = v.payload["word"]
    assert v.sentence == f"{CHAPTER} {word}" and again.payload["word"] == word
    rows = v.payload["attention"]  # (layers, heads, tokens seen)
    assert len(rows) == 2 and all(len(head) == 7 for layer in rows for head in layer)
    assert all(sum(head) == pytest.approx(1, abs=1e-4) for layer in rows for head in layer)
    assert v.payload["cache_shape"] == [1, 4, 7, 16] and v.payload["cache_length"] == 7
    assert v.rows["kind"] == "heatmaps" and len(v.rows["heads"]) == 2 and v.rows["cols"][-1] == word


@pytest.mark.parametrize(
    "endpoint, kwargs, words",
    [
        ("/next_words", dict(sentence="the fox", position=9), "position=9 is outside the sentence"),
        ("/next_words", dict(sentence="the fox", temperature=0), "temperature=0 is out of range"),
        ("/next_words", dict(sentence="the fox", temperature=-1), "temperature=-1 is out of range"),
        ("/next_words", dict(sentence="the fox", top_k=101), "top_k=101 is out of range"),
        ("/next_words", dict(sentence="   "), "no tokens"),
        ("/next_words", dict(sentence="the fox", model=generate.GPT2), "is not one of the choices"),
        ("/generate", dict(sentence="the fox", n_words=33), "n_words=33 is out of range; choose 1 to 32"),
        ("/generate", dict(sentence="the fox", n_words=0), "n_words=0 is out of range"),
        ("/generate", dict(sentence="word " * 200), "the Generate tab reads at most 128"),
    ],
)
def test_mistakes_are_one_sentence(client, endpoint, kwargs, words):
    with pytest.raises(AppError) as err:
        client.predict(**kwargs, api_name=endpoint)
    msg = str(err.value)
    assert words in msg and "Traceback" not in msg and "\n" not in msg and len(msg) <= 200


def test_without_the_variable_there_is_no_gpt2_choice(demo, monkeypatch):
    monkeypatch.delenv(generate.ENV, raising=False)
    assert generate.models() == [generate.TINY]
    radio = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "generate-model")
    assert [value for _, value in radio.choices] == [generate.TINY]  # the app the suite serves
    with pytest.raises(Exception, match="not switched on"):
        generate.next_words("hello", -1, 1.0, 0, 0, generate.GPT2)


@pytest.fixture(scope="module")
def gpt2_folder(tmp_path_factory):
    """A tiny random GPT-2 and a byte-level BPE saved by transformers, as a downloaded checkpoint would be."""
    import tokenizers
    import transformers

    folder = tmp_path_factory.mktemp("gpt2")
    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator(["keys and values are cached; queries are new at every step."] * 5, vocab_size=300,
                            min_frequency=1, special_tokens=["<|endoftext|>"], show_progress=False)
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=bpe.get_vocab_size(), n_positions=64, n_embd=32, n_layer=2, n_head=4,
                                     bos_token_id=None, eos_token_id=None)
    hf = transformers.GPT2LMHeadModel(config).eval()
    hf.save_pretrained(folder)
    transformers.PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer).save_pretrained(folder)
    return folder, hf, bpe


@pytest.mark.floats
def test_with_a_local_checkpoint_gpt2_is_offered_and_predicts_as_transformers_does(gpt2_folder, monkeypatch):
    from conftest import free_port
    from gradio_client import Client

    from core.ui.app import build_demo, launch_options

    folder, hf, bpe = gpt2_folder
    monkeypatch.setenv(generate.ENV, str(folder))
    assert generate.models() == [generate.TINY, generate.GPT2]
    demo = build_demo()
    radio = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "generate-model")
    assert [value for _, value in radio.choices] == [generate.TINY, generate.GPT2]
    demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", server_port=free_port(), quiet=True,
                **launch_options())
    try:
        client = Client(demo.local_url, verbose=False, analytics_enabled=False, download_files=False, ssl_verify=False)
        text = "keys and values"
        out = client.predict(text, model=generate.GPT2, api_name="/next_words")[-1]
        ids = bpe.encode(text).ids
        with torch.no_grad():
            probs = F.softmax(hf(torch.tensor([ids])).logits[0, -1], dim=-1)
        top = torch.topk(probs, 10)
        assert [c["token"] for c in out["candidates"]] == top.indices.tolist()
        assert [c["probability"] for c in out["candidates"]] == pytest.approx(top.values.tolist(), abs=1e-5)
        gen = client.predict(text, n_words=5, model=generate.GPT2, api_name="/generate")[-1]
        assert len(gen["words"]) == 5 and gen["text"].startswith(text)
    finally:
        demo.close()
        generate_inputs._gpt2.cache_clear()


def test_the_cache_table_counts_gpt2_smalls_cache_per_variant():
    v = generate.cache_table("gpt2-small", 4, 256, 1024)
    rows = {r[0]: r for r in v.rows}
    assert rows["multi-head"][1:5] == ["(1, 12, 1024, 64)", 1024, 36.0, 36.0]  # 36 KiB a token in fp16: 36 MiB
    assert rows["gqa"][1:5] == ["(1, 4, 1024, 64)", 1024, 12.0, 12.0]  # 4 K/V heads for 12 query heads
    assert rows["sliding-window"][1:3] == ["(1, 12, 255, 64)", 255]  # window - 1 keys, however long the text
    assert v.payload["multi-head"]["without_cache"]["scores"] == 1024 * v.payload["multi-head"]["with_cache"]["scores"]
    with pytest.raises(Exception, match="T=1000 is not one of the lengths; choose 256, 512, 1024, 2048 or 4096"):
        generate.cache_table("gpt2-small", 4, 256, 1000)
    with pytest.raises(Exception, match="n_kv_heads=13 is out of range; choose 1 to 12"):
        generate.cache_table("gpt2-small", 13, 256, 1024)


def test_the_measured_decode_benchmark_is_shown_as_measured():
    import json

    saved = json.loads(generate.DECODE_SAVED.read_text())
    bench = generate.decode_bench()
    assert [r[0] for r in bench.rows] == [p["T"] for p in saved["points"]] == [256, 1024, 4096]
    assert [r[1] for r in bench.rows] == [round(p["cached_s"] * 1000, 1) for p in saved["points"]]
    assert "attention-lab bench --decode" in bench.caption and saved["meta"]["torch"] in bench.caption
    missing = generate.decode_bench(generate.DECODE_SAVED.with_name("nothing.json"))
    assert missing.chart is None and missing.rows == [] and "bench --decode" in missing.caption
