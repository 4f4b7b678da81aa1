"""core.notebook: BertViz's two views from transformers' attentions, a trace or our GPT, drawn offline in Chromium,
and examples/notebook.ipynb executed as a reader would (nbclient), GPT-2 read from a local Hugging Face cache."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch

from core import AttentionConfig, load_registry
from core.config import ConfigError
from core.model import load_gpt2, load_tiny
from core.notebook import head_view, model_view
from core.render.model_pack import expanded
from core.render.scales import unpacked
from tests.hub_cache import cache_repo
from tests.real_families import FAMILIES
from tests.test_gpt2_loader import _ids, checkpoint  # noqa: F401 - the random GPT-2 saved by transformers

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = "</script><img src=x onerror=alert(1)>"


@pytest.mark.floats
def test_head_view_takes_transformers_attentions_layer_by_layer(checkpoint):  # noqa: F811
    folder, hf = checkpoint
    _, tokenizer = load_gpt2(folder)
    idx = _ids(tokenizer)
    with torch.no_grad():
        attentions = hf(idx, output_attentions=True).attentions  # L x (B, H, T, T)
    tokens = [tokenizer.decode([i]) for i in idx[0].tolist()]
    view = head_view(attentions, tokens, layer=1)
    shown = np.stack([unpacked(h["values"]) for h in view.data["heads"]])
    assert np.allclose(shown, attentions[1][0].numpy(), atol=1e-6) and view.data["rows"] == tokens
    assert "<script>" in view._repr_html_() and "http" not in view._repr_html_().replace("http://www.w3.org", "")


@pytest.mark.floats
def test_model_view_of_our_gpt_shows_every_layer_and_head_of_its_trace():
    model, tokenizer = load_tiny()
    sentence = "合同 违约金 过高 ， 它 可能 存在 风险"
    view = model_view((model, tokenizer), sentence)
    expected = model.trace(torch.tensor([tokenizer.encode(sentence)]))[:, 0]  # (L, H, T, T)
    layers = view.data["layers"]
    assert (len(layers), len(layers[0])) == tuple(expected.shape[:2])
    assert np.allclose(expanded(view.data), expected.numpy(), atol=2e-5)  # packed as the app packs it
    assert view.data["rows"] == sentence.split()  # the tiny model's words
    assert all(d.startswith(f"layer {la} head {h}: ") for la, row in enumerate(view.data["descriptions"])
               for h, d in enumerate(row))


@pytest.mark.floats
def test_head_view_of_a_variants_trace_and_one_sentence_for_a_mistake():
    layer = load_registry().build("sliding-window", AttentionConfig(d_model=16, n_heads=2, options={"window": 2}))
    with torch.no_grad():
        trace = layer.trace(torch.randn(1, 5, 16, generator=torch.Generator().manual_seed(0)))
    view = head_view(trace, list("abcde"))
    assert len(view.data["heads"]) == 2 and np.allclose(unpacked(view.data["heads"][0]["values"]),
                                                        trace.weights[0, 0].numpy(), atol=1e-6)
    for wrong, args in (("covers 5 positions but 4 tokens", (trace, list("abcd"))), ("got str", ("abc", ["a"])),
                        ("needs its tokenizer", (load_tiny()[0], "the cat")), ("layer=9", (trace, list("abcde"), 9))):
        with pytest.raises(ConfigError, match=wrong):
            head_view(*args)


def _open(browser, view):
    """The view's HTML on a blank page, no network: any request it made is counted."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_content(view.html())
    page.wait_for_selector(".al-root > *")
    return page, requests, errors


@pytest.mark.floats
def test_transformers_attentions_of_a_two_layer_model_are_attentions_and_tokens_may_be_a_string(checkpoint):  # noqa: F811
    folder, hf = checkpoint
    _, tokenizer = load_gpt2(folder)
    idx = _ids(tokenizer, "the fox that the child saw")
    with torch.no_grad():
        out = hf(idx, output_attentions=True)
    two = tuple(out.attentions[:2])  # a two-layer model's attentions: never taken for (model, tokenizer)
    words = " ".join(str(i) for i in range(idx.shape[1]))
    view = model_view(two, words)  # tokens as one string, split at spaces
    assert np.allclose(expanded(view.data), torch.stack([a[0] for a in two]).numpy(), atol=2e-5)
    assert view.data["rows"] == words.split()
    by_tokenizer = head_view(out, "the fox that the child saw", tokenizer=tokenizer)  # the whole output, read
    assert by_tokenizer.data["rows"] == [tokenizer.decode([i]) for i in idx[0].tolist()]
    with pytest.raises(ConfigError, match='attn_implementation="eager"'):
        model_view((None, None), words)  # what sdpa gives back for output_attentions
    sdpa = type(out)(logits=out.logits, attentions=None)
    with pytest.raises(ConfigError, match='attn_implementation="eager"'):
        head_view(sdpa, words)


@pytest.mark.floats
@pytest.mark.parametrize("family", FAMILIES)
def test_a_real_model_of_every_family_equals_transformers_and_shows_its_kv_groups(tmp_path, family):
    from core.model import load_pretrained
    from tests.real_families import save

    reference = save(family, tmp_path / family)
    model, tokenizer = load_pretrained(tmp_path / family)
    sentence = "the fox that the child saw was hungry"
    view = model_view((model, tokenizer), sentence)
    with torch.no_grad():
        ref = reference(torch.tensor([tokenizer.encode(sentence)]), output_attentions=True)
    assert np.allclose(expanded(view.data), torch.stack([a[0] for a in ref.attentions]).numpy(), atol=1e-4)
    if family != "gpt2":  # (GPT-2: one key/value head per query head, no groups)
        assert view.data["groups"] == 2 and "which query heads 0 to 1 share" in view.data["descriptions"][0][0]
    eager = head_view((reference, tokenizer), sentence, layer=0)  # a transformers model as its user loaded it
    assert np.allclose(unpacked(eager.data["heads"][1]["values"]), ref.attentions[0][0, 1].numpy(), atol=1e-6)


def test_a_large_models_view_is_packed_like_the_apps():
    L, H, T = 32, 32, 64  # Llama-3-8B's layers and heads, 64 tokens
    w = torch.softmax(torch.randn(L, H, T, T, generator=torch.Generator().manual_seed(0)), -1)
    html = model_view(w, [f"t{i}" for i in range(T)])._repr_html_()
    raw_f32 = L * H * T * T * 4 * 4 / 3  # float32 in base64
    assert len(html) < 0.55 * raw_f32 and len(html) < 12e6  # 16-bit fractions: half of float32, 11 MB not 28


@pytest.mark.browser
def test_the_views_draw_offline_with_hover_and_click_and_tokens_as_text(browser):
    w = torch.softmax(torch.randn(2, 3, 4, 4, generator=torch.Generator().manual_seed(1)), -1).tril()
    w = w / w.sum(-1, keepdim=True)  # (L, H, T, T), causal rows summing to 1
    tokens = ["它", HOSTILE, "cat", "sat"]
    page, requests, errors = _open(browser, head_view(w, tokens))
    assert page.locator(".al-head").count() == 3 and page.locator("img").count() == 0
    assert "1 </script><i…" in page.locator(".al-root").inner_text()  # a token is text (cut to 12), never HTML
    box = page.locator(".al-head canvas").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.1, box["y"] + box["height"] * 0.9)  # query 3 -> key 0
    tip = page.locator(".al-tip:not([hidden])")
    tip.wait_for()
    assert tip.inner_text().startswith("query 'sat' (3) → key '它' (0): weight ")  # the hover names both
    page.locator(".al-grid .al-y .al-label[data-index='2']").first.click()  # click a token: lit in every head
    lit = page.evaluate("() => [...document.querySelectorAll('[data-head]')].map(h => "
                        "h.querySelector('.al-hl-row[data-index=\"2\"]').hidden)")
    assert lit == [False, False, False]
    assert requests == [] and errors == []
    page.close()
    page, requests, errors = _open(browser, model_view(w, tokens))
    assert page.locator(".al-thumb").count() == 6 and requests == [] and errors == []
    page.close()


@pytest.mark.browser
@pytest.mark.slow
def test_the_example_notebook_runs_offline_and_its_views_draw(checkpoint, tmp_path, browser):  # noqa: F811
    nbclient, nbformat = pytest.importorskip("nbclient"), pytest.importorskip("nbformat")
    folder, _ = checkpoint
    cache_repo(tmp_path / "hub", "openai-community/gpt2", folder)  # a random GPT-2 under GPT-2's id
    env = {"HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the kernel inherits this process's environment
    try:
        nb = nbformat.read(ROOT / "examples" / "notebook.ipynb", as_version=4)
        nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                resources={"metadata": {"path": str(ROOT)}}).execute()
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    shown = [o["data"]["text/html"] for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
             if "text/html" in o.get("data", {})]
    assert len(shown) == 4  # model view, head view, load_pretrained's model view, the variant's head view
    for html in shown:
        page = browser.new_page()
        errors = []
        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        page.set_content(f"<html><body>{html}</body></html>")
        page.wait_for_selector(".al-root > *")
        assert errors == [] and page.locator(".al-head, .al-thumb").count() > 0
        page.close()
