"""The synthetic corpus: reproducible, fully covered by the tokenizer, and built so context matters."""

from __future__ import annotations

from core.corpus import NOUNS, Tokenizer, generate, grammar_entropy, unigram_entropy


def test_same_seed_same_text_and_new_seed_new_text():
    assert generate(50, 3) == generate(50, 3)
    assert generate(50, 3) != generate(50, 4)


def test_tokenizer_covers_the_generator_and_round_trips():
    tok = Tokenizer.from_lexicon()
    text = " ".join(generate(300, 0))
    ids = tok.encode(text)
    assert 0 not in ids  # no <unk> in the generator's own text
    assert tok.decode(ids) == text


def test_unknown_words_become_unk_and_punctuation_splits_off():
    tok = Tokenizer.from_lexicon()
    assert tok.words("The Zebra slept.") == ["the", "zebra", "slept", "."]
    ids = tok.encode("The Zebra slept.")
    assert ids[1] == 0 and tok.vocab[0] == "<unk>"
    assert tok.decode(ids) == "the <unk> slept ."


def test_a_noun_named_early_comes_back_and_the_verb_agrees_across_the_clause():
    relative = [s.split() for s in generate(400, 1) if " that " in s]
    assert relative
    for w in relative:  # the N1 that the N2 saw was|were ADJ , so the N1 ...
        assert w[11] == w[1] and w[1] in NOUNS
        plural = w[1] not in {"fox", "owl", "cat", "dog", "hen", "bear", "wolf", "mouse", "horse", "goat",
                              "child", "farmer", "king", "girl", "boy", "teacher", "baker", "sailor"}
        assert w[6] == ("were" if plural else "was")


def test_the_grammar_leaves_room_a_model_can_use():
    tok = Tokenizer.from_lexicon()
    unigram = unigram_entropy(tok.encode(" ".join(generate(2000, 5))))
    assert grammar_entropy() < 0.3 * unigram  # context can in principle cut the loss by more than 3x
