"""The chapter through the app's API, as a teacher's script sees it: its sentence is 8 tokens everywhere, 它 finds
its noun in the trained model's JSON, each spot-the-bug card's lines really are the bug and the fix, and the
intervention numbers are what ablating a head gives."""

from __future__ import annotations

import math
import textwrap

import pytest
import torch
import torch.nn.functional as F
from gradio_client.exceptions import AppError

CHAPTER = "合同 违约金 过高 ， 它 可能 存在 风险"
WORDS = CHAPTER.split()
UNSPACED = "这份合同中的违约金过高，它可能存在风险"
SEGMENTED = "cut into words automatically"


@pytest.mark.floats
def test_the_chapters_sentence_is_its_8_words_in_every_tab_and_endpoint(client):
    assert client.predict(CHAPTER, api_name="/attention")[-1]["tokens"] == WORDS
    causality = client.predict(CHAPTER, 4, "他", api_name="/causality")
    assert causality[-1]["tokens"] == WORDS and len(causality[-1]["row_max_abs_diff"]) == 8
    assert causality[1]["rows"] == WORDS  # the dependency map's rows
    trained = client.predict(CHAPTER, 0, 0, api_name="/trained_attention")
    assert trained[0]["rows"] == trained[4]["tokens"] == trained[-1]["tokens"] == WORDS
    assert client.predict(CHAPTER, "zero", api_name="/interventions")[-1]["sentence"]["tokens"] == WORDS
    from core.lab.session import Lab
    from core.registry import load_registry
    from core.serve import views

    step = views.step(Lab(load_registry(entry_points=False)), CHAPTER, "multi-head", True, True, 2, 16, 0, "{}", 0)
    assert all(data["rows"] == WORDS for _, data in step.stages) and step.note == ""  # Step through's matrices


def test_chinese_without_spaces_is_segmented_and_every_tab_says_so(client):
    attention = client.predict(UNSPACED, api_name="/attention")
    assert {"合同", "违约金"} <= set(attention[-1]["tokens"]) and SEGMENTED in attention[3]
    assert SEGMENTED in client.predict(UNSPACED, 4, "他", api_name="/causality")[1]["labels"]["warning"]
    assert SEGMENTED in client.predict(UNSPACED, 0, 0, api_name="/trained_attention")[3]
    interventions = client.predict(UNSPACED, "zero", api_name="/interventions")
    assert SEGMENTED in interventions[5] and SEGMENTED in interventions[3]  # the notes, and under the prediction
    assert SEGMENTED not in client.predict(CHAPTER, api_name="/attention")[3]
    from core.lab.session import Lab
    from core.registry import load_registry
    from core.serve import views

    step = views.step(Lab(load_registry(entry_points=False)), UNSPACED, "multi-head", True, True, 2, 16, 0, "{}", 0)
    assert SEGMENTED in step.note


def test_the_new_endpoints_are_named_with_their_parameters(client):
    api = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    assert [p["parameter_name"] for p in api["/interventions"]["parameters"]] == ["sentence", "mode"]
    assert api["/failure_modes"]["parameters"] == []
    assert [p["parameter_name"] for p in api["/trained_attention"]["parameters"]] == ["sentence", "layer", "head"]


# ---- /trained_attention: the whole model's JSON, and 它 finding its noun --------------------------------------

def _row_max(model_json: dict, layer: int, head: int, query: str) -> str:
    tokens = model_json["tokens"]
    row = model_json["weights"][layer][head][tokens.index(query)]
    return tokens[max(range(len(row)), key=row.__getitem__)]


@pytest.mark.floats
@pytest.mark.parametrize("sentence, noun", [
    (CHAPTER, "违约金"),
    ("这份合同中的违约金过高，它可能存在风险", "违约金"),
    ("这份报告中的指标过高，它可能误导读者", "指标"),
])
def test_trained_attention_json_sends_it_to_its_noun_on_the_telling_head(client, sentence, noun):
    from core.lab.trained_view import most_telling_head

    *_, model_json, payload = client.predict(sentence, 0, 0, api_name="/trained_attention")
    assert set(model_json) == {"tokens", "weights", "roles"}
    w, roles, T = model_json["weights"], model_json["roles"], len(model_json["tokens"])
    assert len(w) == len(roles) == 2 and all(len(layer) == len(names) == 4 for layer, names in zip(w, roles, strict=True))
    assert all(len(head) == T and all(len(row) == T for row in head) for layer in w for head in layer)
    for layer in w:
        for head in layer:
            for i, row in enumerate(head):
                assert math.fsum(row) == pytest.approx(1, abs=1e-5) and all(v == 0 for v in row[i + 1:])
    assert payload["weights"] == w[payload["layer"]]  # the old output is the opened layer of the new one
    layer, head = most_telling_head()
    assert roles[layer][head] == "pronoun → its noun"
    assert _row_max(model_json, layer, head, "它") == noun


def test_the_trained_view_opens_with_the_pronouns_row_lit(client):
    view, selected, *_ = client.predict(CHAPTER, 0, 0, api_name="/trained_attention")
    assert view["highlight"] == WORDS.index("它")
    assert "'它' (4) puts its largest weight" in selected and "'违约金' (1)" in selected
    assert "highlight" not in client.predict("the fox slept .", 0, 0, api_name="/trained_attention")[0]


# ---- /failure_modes: each card's lines, run independently ----------------------------------------------------

CHAPTER_CODE = textwrap.dedent('''
    def scaled_dot_product_attention(q, k, v):
        head_dim = q.size(-1)
        scores = q @ k.transpose(-2, -1) / head_dim**0.5
        t = q.size(-2)
        mask = torch.tril(torch.ones(t, t, device=q.device, dtype=torch.bool))
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return weights @ v, weights
''')  # the course chapter's minimal implementation, as printed there (causal)
PADDED_CODE = textwrap.dedent('''
    def padded(q, k, v, key_real):
        t = q.size(-2)
        scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5
        causal = torch.tril(torch.ones(t, t, dtype=torch.bool))
        allowed = causal & key_real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        out = weights @ v
        return out, weights
''')


def _compiled(source: str, name: str, other: str):
    scope = {"torch": torch, "other": other}
    exec(compile(source, "<card>", "exec"), scope)
    return scope[name]


def _sdpa_check(fn) -> tuple[bool, str]:
    """PyTorch's own causal attention is the reference: same output, rows sum to 1, nothing on the future."""
    g = torch.Generator().manual_seed(5)
    q, k, v = (torch.randn(6, 4, generator=g) for _ in range(3))
    try:
        out, w = fn(q, k, v)
    except (RuntimeError, TypeError) as e:
        return False, f"{type(e).__name__}: {e}"
    ref = F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=True)[0]
    ok = (torch.allclose(out, ref, atol=1e-5) and torch.allclose(w.sum(-1), torch.ones(6), atol=1e-5)
          and float(w.triu(1).abs().sum()) == 0.0)
    return ok, ""


def _padding_check(fn) -> bool:
    """No NaN anywhere, and the real tokens get what PyTorch's attention gives the sentence unpadded."""
    g = torch.Generator().manual_seed(6)
    q, k, v = (torch.randn(1, 5, 4, generator=g) for _ in range(3))
    real = torch.tensor([[False, False, True, True, True]])
    out, w = fn(q, k, v, real)
    alone = F.scaled_dot_product_attention(q[:, 2:], k[:, 2:], v[:, 2:], is_causal=True)
    return not (torch.isnan(out).any() or torch.isnan(w).any()) and torch.allclose(out[:, 2:], alone, atol=1e-5)


@pytest.mark.floats
def test_every_card_shows_a_check_that_fails_on_its_wrong_line_and_passes_on_its_fix(client):
    from core.lab.failure_modes import KEYS

    cards = client.predict(api_name="/failure_modes")
    assert [c["key"] for c in cards] == list(KEYS)
    for card in cards:
        assert card["check"] and card["check_wrong"]["passed"] is False and card["check_right"]["passed"] is True
        if card["key"] == "padding-nan":
            fix, then = card["right_code"].split("  # then: ")
            assert card["wrong_code"] in PADDED_CODE
            right_src = PADDED_CODE.replace(card["wrong_code"], fix.replace("\n", "\n    ")).replace(
                "    out = weights @ v\n", f"    out = weights @ v\n    {then}\n")
            assert not _padding_check(_compiled(PADDED_CODE, "padded", "cpu"))  # the wrong line: NaN
            assert _padding_check(_compiled(right_src, "padded", "cpu"))
            continue
        assert card["right_code"] in CHAPTER_CODE  # the fix is the chapter's own line
        wrong_src = CHAPTER_CODE.replace(card["right_code"], card["wrong_code"])
        assert wrong_src != CHAPTER_CODE
        other = card["wrong"].get("device") or "cpu"
        wrong_ok, error = _sdpa_check(_compiled(wrong_src, "scaled_dot_product_attention", other))
        right_ok, _ = _sdpa_check(_compiled(CHAPTER_CODE, "scaled_dot_product_attention", other))
        assert right_ok and not wrong_ok, card["key"]
        assert (card["wrong"].get("error") or "") == error  # the exact message a student meets, or none


# ---- /interventions: the numbers are what ablating a head gives ------------------------------------------------

@pytest.mark.floats
def test_intervention_numbers_equal_a_recomputation_with_the_ablated_forward_pass(client):
    from core.lab.ablate import Ablation, edited_logits
    from core.lab.heldout import next_word_bits, sentence_batch
    from core.lab.interventions import EFFECT_SENTENCES
    from core.lab.pronoun import heldout_sentences
    from core.lab.tiny import tiny

    sentence = "合同 违约金 过高 ， 它 可能"
    headline, chart, table, prediction, measured, note, data = client.predict(sentence, "uniform",
                                                                             api_name="/interventions")
    heads = data["heldout"]["heads"]
    assert len(heads) == 8 and len(data["sentence"]["heads"]) == 8 and data["sentence"]["mode"] == "uniform"
    model, tokenizer = tiny()
    batch = sentence_batch(heldout_sentences(EFFECT_SENTENCES), tokenizer)
    base = next_word_bits(edited_logits(model, batch.idx), batch)[batch.targets].mean()
    one = next(h for h in heads if (h["layer"], h["head"]) == (1, 2))
    ablated = next_word_bits(edited_logits(model, batch.idx, Ablation(1, 2, "uniform")), batch)[batch.targets].mean()
    assert one["loss_increase"]["uniform"] == pytest.approx(float(ablated - base), abs=1e-5)
    assert data["heldout"]["base_loss"] == pytest.approx(float(base), abs=1e-5)

    idx = torch.tensor([tokenizer.encode_words(sentence.split())])
    p = torch.softmax(edited_logits(model, idx, Ablation(1, 2, "uniform"))[0, -1], -1)
    top = next(h for h in data["sentence"]["heads"] if (h["layer"], h["head"]) == (1, 2))["top"][0]
    assert top["word"] == tokenizer.vocab[int(p.argmax())] and top["p"] == pytest.approx(float(p.max()), abs=1e-4)
    intact = torch.softmax(edited_logits(model, idx)[0, -1], -1)
    assert data["sentence"]["intact"][0]["word"] == tokenizer.vocab[int(intact.argmax())]
    row = next(r for r in table["data"] if r[0] == "layer 1 head 2")  # the table shows the same numbers
    assert row[3] == f"{one['loss_increase']['uniform']:+.3f}" and row[5].startswith(top["word"])
    assert "uniform" in headline and "striking" in headline
    assert chart["kind"] == "chart" and len(chart["panels"]) == 3


def test_the_headline_pairs_a_focused_cheap_head_with_a_diffuse_costly_one(client):
    *_, data = client.predict(CHAPTER, "zero", api_name="/interventions")
    heads = data["heldout"]["heads"]
    headline = client.predict(CHAPTER, "zero", api_name="/interventions")[0]
    cost = sorted(h["loss_increase"]["zero"] for h in heads)
    for h in heads:  # the head the headline calls striking: focused, and cheaper to remove than most
        if f"Layer {h['layer']} head {h['head']} puts {h['pattern_weight']:.2f}" in headline:
            assert h["loss_increase"]["zero"] < cost[len(cost) // 2]
            assert h["pattern_weight"] > min(x["pattern_weight"] for x in heads)
            break
    else:
        pytest.fail(f"no head's numbers in the headline: {headline}")


def test_bad_intervention_inputs_are_one_sentence(client):
    with pytest.raises(AppError, match="not one of the choices; choose 'zero' or 'uniform'"):
        client.predict(CHAPTER, "oops", api_name="/interventions")
    with pytest.raises(AppError, match="type a sentence first"):
        client.predict("   ", "zero", api_name="/interventions")
    with pytest.raises(AppError, match="reads at most"):
        client.predict(" ".join(["它"] * 200), "zero", api_name="/interventions")
