"""The chapter in a real model and the attention sink, measured (core.lab.real_lessons) and shown as lesson steps:
the pronoun's row and the sink's weights equal transformers' eager attention, the zeroed head and the barred sink
equal transformers run with the same edit (a pre-hook on o_proj; a 4D mask), and without a Chinese-capable model
the step says how to configure one."""

from __future__ import annotations

import math

import pytest
import torch

from core.i18n import speaking
from core.lab import lesson_format
from core.lab.real_lessons import attention_sink, positions, pronoun_heads
from core.model import load_pretrained
from core.serve import real_lessons
from tests.real_families import save

CHAPTER = "合同违约金过高，它可能"
ENGLISH = "the fox that the child saw was hungry, so it slept"


@pytest.fixture(scope="module")
def qwen(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models") / "qwen-toy"
    reference = save("qwen2", folder)
    model, tokenizer = load_pretrained(folder)
    return folder, model, tokenizer, reference


@pytest.mark.floats
def test_the_pronouns_row_equals_transformers_and_zeroing_the_hardest_head_equals_a_pre_hook(qwen):
    _, model, tokenizer, reference = qwen
    r = pronoun_heads(model, tokenizer, CHAPTER)
    ids = tokenizer.encode(CHAPTER)
    assert "它" in "".join(tokenizer.decode([ids[i]]) for i in [r.pronoun])
    assert "违约金" in tokenizer.decode([ids[i] for i in r.noun])
    with torch.no_grad():
        ref = reference(torch.tensor([ids]), output_attentions=True)
    expected = torch.stack([a[0, :, r.pronoun][..., r.noun].sum(-1) for a in ref.attentions])  # (L, H)
    assert torch.allclose(r.on_noun, expected, atol=1e-5) and r.best == divmod(int(expected.argmax()), 4)
    layer, head = r.best
    hd = 8

    def zero(module, args):
        x = args[0].clone()
        x[..., head * hd:(head + 1) * hd] = 0
        return (x,)

    hook = reference.model.layers[layer].self_attn.o_proj.register_forward_pre_hook(zero)
    try:
        with torch.no_grad():
            probs = torch.softmax(reference(torch.tensor([ids])).logits[0, -1], -1)
    finally:
        hook.remove()
    assert r.next_zeroed[1] == pytest.approx(float(probs.max()), abs=1e-5)


@pytest.mark.floats
def test_the_sink_is_each_heads_weight_on_the_first_token_and_barring_it_equals_a_4d_mask(qwen):
    _, model, tokenizer, reference = qwen
    s = attention_sink(model, tokenizer, ENGLISH)
    ids = tokenizer.encode(ENGLISH)
    T = len(ids)
    with torch.no_grad():
        ref = reference(torch.tensor([ids]), output_attentions=True, labels=torch.tensor([ids]))
    expected = torch.stack([a[0, :, 1:, 0].mean(-1) for a in ref.attentions])  # (L, H)
    assert torch.allclose(s.on_first, expected, atol=1e-5)
    assert s.loss_intact == pytest.approx(float(ref.loss) / math.log(2), abs=1e-4)
    allowed = torch.ones(T, T).tril().bool()
    allowed[1:, 0] = False  # every later query barred from token 0; token 0 still sees itself
    mask = torch.zeros(1, 1, T, T).masked_fill(~allowed, torch.finfo(torch.float32).min)
    with torch.no_grad():
        barred = reference(torch.tensor([ids]), attention_mask=mask, labels=torch.tensor([ids]))
    assert s.loss_without == pytest.approx(float(barred.loss) / math.log(2), abs=1e-4)
    assert s.loss_without != pytest.approx(s.loss_intact, abs=1e-3)


def test_a_word_the_sentence_lacks_is_one_sentence(qwen):
    from core.config import ConfigError

    _, _, tokenizer, _ = qwen
    ids = tokenizer.encode(ENGLISH)
    with pytest.raises(ConfigError, match="'违约金' is not in the sentence"):
        positions(tokenizer, ENGLISH, ids, "违约金")


def test_the_steps_say_how_to_configure_a_model_and_run_one_when_it_is_named(qwen, monkeypatch):
    folder, *_ = qwen
    monkeypatch.delenv("ATTENTION_LAB_MODELS", raising=False)
    monkeypatch.delenv("ATTENTION_LAB_GPT2", raising=False)
    view, text = real_lessons.chapter_step()
    assert view is None and "ATTENTION_LAB_MODELS=Qwen/Qwen2.5-0.5B" in text
    with speaking("zh-CN"):
        assert "ATTENTION_LAB_MODELS" in real_lessons.chapter_step()[1] and "没有" in real_lessons.chapter_step()[1]
    tiny_view, tiny_text = real_lessons.sink_step(None)  # no real model: the tiny one, on its own words
    assert "**tiny**" in tiny_text and len(tiny_view["heads"]) == 1
    monkeypatch.setenv("ATTENTION_LAB_MODELS", str(folder))  # its byte-level BPE learnt the chapter's sentence
    view, text = real_lessons.chapter_step()
    assert view is not None and "qwen-toy (Qwen2)" in text and "looks hardest at 违约金" in text
    assert len(view["rows"]) == 2 and len(view["cols"]) == 4  # layer × head
    with speaking("es"):
        _, sink = real_lessons.sink_step(None)
    assert "primer token" in sink and "qwen-toy" in sink


def test_the_chapter_lesson_has_both_steps_in_both_languages():
    from core.lab import lesson_shelf

    for name in ("chapter.md", "chapter.zh-CN.md"):
        views = [s.view for s in lesson_format.read(lesson_shelf.BUILT_IN / name).steps]
        assert "real-chapter" in views and "sink" in views
