"""Sentence -> tokens -> embeddings: deterministic, Unicode-aware, no vocabulary to download."""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from dataclasses import dataclass

import torch
from torch import Tensor

from ..i18n import mark, t, tc
from ..mistakes import ConfigError, named
from ..text import scripts, segment

EXAMPLES = (  # the sentences the app offers; the first is the Chinese chapter's running example, pre-segmented
    "合同 违约金 过高 ， 它 可能 存在 风险",
    "这份合同中的违约金过高，它可能存在风险",
    "这份报告中的指标过高，它可能误导读者",
    "The cat sat on the mat because it was tired",
    "Wait, what? It works: attention, masks and heads!",
)
MAX_TOKENS = 64
MAX_CHARS = 4096  # read no further: a pasted book costs the same as a sentence
KEPT_CHARS = MAX_CHARS + 1  # what the app keeps of a text: one past what it reads, so it can say it was cut
ZWJ, VS16, KEYCAP = "\u200d", "\ufe0f", "\u20e3"
_CJK = scripts.HAN + scripts.KANA  # one token per character (Han runs: words, by the segmenter)
_DROP = {"Cc", "Cf", "Cs"}  # control, format (zero-width, bidi marks, BOM), lone surrogates


@dataclass(frozen=True)
class Tokens:
    """The tokens of one sentence, and whether the sentence was cut to fit."""

    tokens: tuple[str, ...]
    truncated: bool = False
    limit: int = MAX_TOKENS
    segmented: bool = False  # Chinese without spaces was cut into words by the segmenter
    no_segmenter: bool = False  # ... or would have been, but rjieba is not installed: one token per character

    @property
    def note(self) -> str:
        """The sentences a person sees about how their input was read ("" when there is nothing to say)."""
        notes = []
        if self.segmented:
            notes.append(t("Chinese written without spaces was cut into words automatically (rjieba); "
                           "put spaces between words to choose them yourself."))
        if self.no_segmenter:
            notes.append(t("Chinese written without spaces is split one character per token here: "
                           "the rjieba segmenter is not installed."))
        if self.truncated:
            notes.append(t("The sentence was cut: the lab reads its first {limit} tokens (at most {chars} characters).",
                           limit=self.limit, chars=MAX_CHARS))
        return sentences(*notes)

    def __len__(self) -> int:
        return len(self.tokens)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # half of a UTF-16 pair: no encoding can write it
AFTER = mark("{first} {second}")  # one sentence after another: a space in English, none in Chinese
FIELD_WORDS = ("sentence", "replacement", "word")  # fields said as words (tc("field", ...): a noun in a sentence)


def sentences(*parts: str) -> str:
    """Sentences one after another as the reader's language writes them (empty ones left out)."""
    out = ""
    for part in parts:
        if part:
            out = t(AFTER, first=out, second=part) if out else part
    return out


def text_field(name: str, value: object) -> str:
    """Text a person typed, as it came: a str with no lone surrogate; ConfigError naming the field otherwise."""
    if not isinstance(value, str):
        raise ConfigError(t("{field} must be text", field=named(name, value)))
    bad = _LONE_SURROGATE.search(value)
    if bad:
        said = {"sentence": tc("field", "sentence"), "replacement": tc("field", "replacement"),
                "word": tc("field", "word")}.get(name, name)  # (another field: its name, as the API's)
        raise ConfigError(t("{name} holds an invalid character (a lone surrogate, U+{code}) at position {at}; "
                            "remove it", name=said, code=format(ord(bad.group()), "04X"), at=bad.start()))
    return value


def _is_cjk(ch: str) -> bool:
    return scripts.contains(_CJK, ch)


def _is_word(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LNM" and not _is_cjk(ch)


def _is_emoji_part(ch: str) -> bool:
    """Modifiers that belong to the emoji before them: variation selector, skin tones, keycap."""
    return ch in (VS16, KEYCAP) or 0x1F3FB <= ord(ch) <= 0x1F3FF


def _is_regional(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def _emoji_end(text: str, i: int) -> int:
    """Index just past the emoji cluster starting at text[i] (ZWJ sequences, flags, modifiers)."""
    n = len(text)
    if _is_regional(text[i]):
        return i + 2 if i + 1 < n and _is_regional(text[i + 1]) else i + 1
    j = i + 1
    while j < n:
        if _is_emoji_part(text[j]):
            j += 1
        elif text[j] == ZWJ and j + 1 < n and unicodedata.category(text[j + 1]) == "So":
            j += 2
        else:
            break
    return j


def tokenize(sentence: str, max_tokens: int = MAX_TOKENS) -> Tokens:
    """Words, punctuation on its own, Chinese words (core.text.segment), kana one each, emoji whole; control dropped."""
    if not isinstance(sentence, str):
        raise ConfigError(t("{field} must be text", field="sentence"))
    text = unicodedata.normalize("NFC", sentence[:MAX_CHARS])
    mode = segment.han_mode(text)
    tokens: list[str] = []
    cut_runs = False  # did the segmenter cut a run of two or more characters?
    i, n = 0, len(text)
    while i < n and len(tokens) <= max_tokens:  # stop one past the cap: huge input stays cheap
        ch = text[i]
        cat = unicodedata.category(ch)
        if ch.isspace() or cat in _DROP:
            i += 1
        elif mode != "characters" and segment.is_han(ch):
            j = i + 1
            while j < n and segment.is_han(text[j]):
                j += 1
            tokens.extend(segment.han_words(text[i:j], mode))
            cut_runs = cut_runs or (mode == "segment" and j - i > 1)
            i = j
        elif _is_word(ch):
            j = i + 1
            while j < n and (
                _is_word(text[j])
                or (text[j] in "'\u2019" and j + 1 < n and _is_word(text[j + 1]) and unicodedata.category(text[j + 1])[0] == "L")
                or unicodedata.category(text[j]) in _DROP and j + 1 < n and _is_word(text[j + 1])
            ):
                j += 1
            tokens.append("".join(c for c in text[i:j] if unicodedata.category(c) not in _DROP))
            i = j
        elif cat == "So" or _is_regional(ch):
            j = _emoji_end(text, i)
            tokens.append(text[i:j])
            i = j
        else:  # punctuation, symbols, kana, Han in Japanese text: a token of one character
            tokens.append(ch)
            i += 1
    truncated = len(tokens) > max_tokens or len(sentence) > MAX_CHARS
    available = not cut_runs or segment.segmenter_available()
    return Tokens(tuple(tokens[:max_tokens]), truncated, max_tokens, segmented=cut_runs and available,
                  no_segmenter=not available)


def _token_seed(token: str, seed: int) -> int:
    """A stable 63-bit seed from the token's UTF-8 bytes (hashlib, not hash(): that is salted per process)."""
    digest = hashlib.blake2b(token.encode("utf-8"), digest_size=8, key=str(int(seed)).encode()).digest()
    return int.from_bytes(digest, "little") >> 1


def token_vector(token: str, d_model: int, seed: int = 0) -> Tensor:
    """The same token string gets the same vector in every sentence (for a given seed).  (d_model,)"""
    g = torch.Generator().manual_seed(_token_seed(token, seed))
    return torch.randn(d_model, generator=g)


def positions(T: int, d_model: int) -> Tensor:
    """Sinusoidal positions (Vaswani et al. 2017): PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...).  (T, d)"""
    pos = torch.arange(T, dtype=torch.float32)[:, None]  # (T, 1)
    i = torch.arange(0, d_model, 2, dtype=torch.float32)  # (ceil(d/2),)
    angle = pos / torch.pow(10000.0, i / d_model)  # (T, ceil(d/2))
    pe = torch.zeros(T, d_model)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return pe


def embed(tokens: tuple[str, ...] | list[str], d_model: int, seed: int = 0) -> Tensor:
    """Token vectors plus positions, as a batch of one: (1, T, d_model)."""
    if not tokens:
        raise ConfigError(t("the sentence has no tokens; type at least one word"))
    vecs = torch.stack([token_vector(t, d_model, seed) for t in tokens])  # (T, d)
    return ((vecs + positions(len(tokens), d_model)) * _SCALE)[None]  # (1, T, d)


def embed_at(token: str, position: int, d_model: int, seed: int = 0) -> Tensor:
    """The vector `token` would get at `position` in any sentence (what embed puts there).  (d_model,)"""
    return (token_vector(token, d_model, seed) + positions(position + 1, d_model)[position]) * _SCALE


_SCALE = 1 / math.sqrt(2.0)  # token (variance 1) + position (variance 1/2 on average): keep values near unit scale
