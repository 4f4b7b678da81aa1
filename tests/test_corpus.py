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


def _pronoun_sentences(n=3000, seed=0, held_out=False):
    return [s.split() for s in generate(n, seed, held_out) if " it " in s or "它" in s]


def test_chinese_pronoun_sentences_split_the_same_way_written_with_or_without_spaces():
    from core.lab.text import tokenize

    tok = Tokenizer.from_lexicon()
    zh = [w for w in _pronoun_sentences() + _pronoun_sentences(held_out=True) if "它" in w]
    assert len({" ".join(w) for w in zh}) >= 100  # both shapes, every item, every judgement
    for words in zh:
        unspaced = "".join(words)
        assert tok.words(unspaced) == words, unspaced  # the model's tokenizer
        assert list(tokenize(unspaced).tokens) == words  # the app's
        assert list(tokenize(" ".join(words)).tokens) == words
    assert tok.words("合同 违约金 过高 ， 它 可能 存在 风险") == "合同 违约金 过高 ， 它 可能 存在 风险".split()
    assert tok.words("这份合同中的违约金过高，它可能存在风险")[4] == "违约金"


def test_english_possessive_is_read_as_the_corpus_writes_it():
    tok = Tokenizer.from_lexicon()
    assert tok.words("The report's figure was too high, so it may mislead readers.") == (
        "the report 's figure was too high , so it may mislead readers .".split())
    assert tok.words("don't") == ["don't"]


def test_the_pronoun_refers_to_the_item_and_the_next_word_depends_on_it_alone():
    from core.corpus import DOCS, DOCUMENTS, ITEMS, MAY, PRONOUNS, document_of, referent

    for _, items in DOCUMENTS:  # within a document, each item continues with its own word (zh, en)
        for col in (2, 3, 4):
            assert len({it[col].split()[0] for it in items}) == len(items)
    following: dict[str, set[str]] = {}
    for words in _pronoun_sentences():
        t = next(i for i, w in enumerate(words) if w in PRONOUNS)
        noun, doc = referent(words, t), document_of(words, t)
        assert words[noun] in ITEMS and words[doc] in DOCS and noun != doc
        after = words[t + 2] if words[t + 1] in MAY else words[t + 1]
        following.setdefault(words[noun], set()).add(after)
    assert len(following) == 18 and all(len(v) <= 2 for v in following.values())  # zh: one word; en: "carries"/"carry"


def test_held_out_pronoun_sentences_never_occur_in_training_text():
    training = set(generate(20000, 0))
    held = [" ".join(w) for w in _pronoun_sentences(2000, 777, held_out=True)]
    assert len(held) > 300 and not any(s in training for s in held)
    assert generate(50, 777, held_out=True) == generate(50, 777, held_out=True)
