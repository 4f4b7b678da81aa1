"""core.lab.text: the tokenizer a student's sentence goes through, and the deterministic embeddings."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core.config import ConfigError
from core.lab.text import EXAMPLES, MAX_TOKENS, embed, embed_at, positions, token_vector, tokenize


def toks(s: str) -> tuple[str, ...]:
    return tokenize(s).tokens


def test_words_and_punctuation_are_separate_tokens():
    assert toks("Wait, what? It works!") == ("Wait", ",", "what", "?", "It", "works", "!")


def test_apostrophe_inside_a_word_stays():
    assert toks("don't stop") == ("don't", "stop")
    assert toks("l’homme") == ("l’homme",)


def test_unicode_words_and_combining_marks():
    assert toks("Ça va, Zoë? Привет мир") == ("Ça", "va", ",", "Zoë", "?", "Привет", "мир")
    assert toks("cafe\u0301") == ("café",)  # decomposed accent normalised into one word


CHAPTER = "合同 违约金 过高 ， 它 可能 存在 风险"


def test_chinese_written_with_spaces_is_split_at_the_spaces():
    t = tokenize(CHAPTER)
    assert t.tokens == ("合同", "违约金", "过高", "，", "它", "可能", "存在", "风险")  # the full-width comma stays
    assert t.note == "" and not t.segmented
    assert toks("我 爱 你。") == ("我", "爱", "你", "。")
    assert toks("我 爱 自 然 语 言") == tuple("我爱自然语言")  # spaces between characters: characters


def test_chinese_without_spaces_is_cut_into_words_with_a_note():
    t = tokenize("这份合同中的违约金过高，它可能存在风险")
    assert t.tokens == ("这份", "合同", "中", "的", "违约金", "过高", "，", "它", "可能", "存在", "风险")
    assert t.segmented and "cut into words automatically" in t.note
    assert toks("这份报告中的指标过高，它可能")[4] == "指标"
    assert toks("我爱自然语言") == ("我", "爱", "自然语言")
    assert toks("I ❤️ 你好!") == ("I", "❤️", "你好", "!")


def test_kana_text_keeps_one_token_per_character():
    assert toks("カタカナとひらがな") == tuple("カタカナとひらがな")
    assert toks("日本語のテキスト") == tuple("日本語のテキスト")  # Han in Japanese text: not cut as Chinese
    assert not tokenize("日本語のテキスト").segmented


def test_without_the_segmenter_chinese_falls_back_to_characters_and_says_so(monkeypatch):
    from core.text import segment

    monkeypatch.setattr(segment, "_segmenter", lambda: None)
    t = tokenize("违约金过高")
    assert t.tokens == tuple("违约金过高") and not t.segmented and "not installed" in t.note
    assert toks(CHAPTER)[1] == "违约金"  # spaced text needs no segmenter


def test_the_segmenter_is_imported_only_when_chinese_without_spaces_appears():
    import subprocess
    import sys

    code = ("import sys; from core.lab.text import tokenize; tokenize('The cat sat'); tokenize('合同 违约金'); "
            "a = 'rjieba' in sys.modules; tokenize('合同违约金'); print(a, 'rjieba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


def test_examples_offer_the_chapters_sentence_as_its_8_words():
    assert EXAMPLES[0] == CHAPTER and len(tokenize(EXAMPLES[0])) == 8
    assert all(0 < len(tokenize(e)) <= MAX_TOKENS and not tokenize(e).truncated for e in EXAMPLES)


def test_emoji_are_kept_whole():
    family = "👨\u200d👩\u200d👧"
    assert toks(f"I ❤️ 👍🏽 {family} 🇫🇷!") == ("I", "❤️", "👍🏽", family, "🇫🇷", "!")


def test_control_and_zero_width_characters_are_dropped():
    assert toks("a\u200bb \x07c\u200d \ufeffd\u2060") == ("ab", "c", "d")
    assert toks("\x00\x1b[31m") == ("[", "31m")


def test_html_is_just_tokens():
    assert toks("<img src=x onerror=alert(1)>") == (
        "<", "img", "src", "=", "x", "onerror", "=", "alert", "(", "1", ")", ">")


def test_cap_at_64_tokens_with_a_note():
    t = tokenize("word " * 1000)
    assert len(t) == MAX_TOKENS and t.truncated
    assert "64" in t.note
    short = tokenize("word " * MAX_TOKENS)
    assert len(short) == MAX_TOKENS and not short.truncated and short.note == ""


def test_huge_input_is_cheap():
    import time

    start = time.perf_counter()
    t = tokenize("x" * 5_000_000 + " y" * 1_000_000)
    assert time.perf_counter() - start < 2.0  # 6 MB in: only the first MAX_CHARS are read
    assert t.truncated and len(t) <= MAX_TOKENS and t.note


def test_empty_and_non_text():
    assert toks("   \u200b ") == ()
    with pytest.raises(ConfigError):
        tokenize(None)  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        embed((), 8)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_tokens_never_contain_whitespace_control_or_empty(s):
    for t in tokenize(s).tokens:
        assert t and not any(c.isspace() for c in t)
        assert not any(ord(c) < 32 or c in "\u200b\ufeff\u2060" for c in t)


@pytest.mark.floats
def test_same_token_same_vector_in_every_sentence():
    a = embed(toks("the cat saw the dog"), 16)  # (1, 5, 16)
    b = embed(toks("dog"), 16)
    pe = positions(5, 16)
    # the token part is the embedding minus its position; "the" at 0 and 3, "dog" in both sentences
    scale = math.sqrt(2.0)
    assert torch.allclose(a[0, 0] * scale - pe[0], a[0, 3] * scale - pe[3], atol=1e-6)
    assert torch.allclose(a[0, 4] * scale - pe[4], b[0, 0] * scale - pe[0], atol=1e-6)
    assert torch.equal(token_vector("cat", 16), token_vector("cat", 16))


@pytest.mark.kernel_free
def test_embeddings_are_stable_across_processes():
    # blake2b, not hash(): fixed numbers, whatever PYTHONHASHSEED says
    v = token_vector("attention", 4, seed=0)
    import subprocess
    import sys

    code = "from core.lab.text import token_vector; print(token_vector('attention', 4, seed=0).tolist())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "123", "PATH": ""}).stdout
    assert torch.allclose(v, torch.tensor(eval(out)))


@pytest.mark.floats
def test_seed_changes_vectors():
    assert not torch.allclose(token_vector("cat", 16, seed=0), token_vector("cat", 16, seed=1))


@pytest.mark.floats
def test_positions_match_the_published_formula():
    pe = positions(50, 8)
    p, i = 7, 1
    assert pe[p, 2 * i].item() == pytest.approx(math.sin(p / 10000 ** (2 * i / 8)), abs=1e-6)
    assert pe[p, 2 * i + 1].item() == pytest.approx(math.cos(p / 10000 ** (2 * i / 8)), abs=1e-6)
    assert positions(3, 5).shape == (3, 5)  # odd width works


@pytest.mark.floats
def test_embed_at_is_what_embed_puts_there():
    x = embed(("a", "b", "c"), 8, seed=3)
    assert torch.allclose(x[0, 2], embed_at("c", 2, 8, seed=3))
    assert x.shape == (1, 3, 8)
