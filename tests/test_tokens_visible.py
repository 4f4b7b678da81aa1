"""A token label says what the token holds: a bidi override or an invisible character is drawn as ⟨U+XXXX⟩ in every
drawn view (the app's, the notebook's, the Real model's), and a token inside lab-made Markdown (a check line) reads
as typed, never as a heading, a link or a tag."""

from __future__ import annotations

import pytest
import torch
from markdown_it import MarkdownIt

from core.render import matrix
from core.render.tokens import markdown_text, visible


@pytest.mark.parametrize("token, shown", [
    ("\u202eRTL", "⟨U+202E⟩RTL"),  # right-to-left override: "RTL" would read "LTR"
    ("a\u200bb", "a⟨U+200B⟩b"),  # zero-width space
    ("\ufeffbom", "⟨U+FEFF⟩bom"),
    ("x\n", "x⟨U+000A⟩"),
    ("\u2066iso\u2069", "⟨U+2066⟩iso⟨U+2069⟩"),
    ("\x00", "⟨U+0000⟩"),
    ("违约金", "违约金"),
    ("👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"),  # a joiner inside an emoji family joins it: kept
    ("\u200d", "⟨U+200D⟩"),  # ... a joiner alone is invisible: shown
    ("it's", "it's"),
])
def test_a_token_is_shown_as_what_it_holds(token, shown):
    assert visible(token) == shown and visible(shown) == shown


def test_a_token_in_a_check_line_reads_as_typed():
    md = MarkdownIt("commonmark", {"html": False})
    for token in ("<h1>BIG<", "**x**", "[a](http://other.invalid/)", "`x`", "$x$", "&amp;", "# h", "\u202eRTL"):
        html = md.render(f"{markdown_text(token)} → y: 0.50")
        text = html.removeprefix("<p>").removesuffix("</p>\n")
        assert "<" not in text.replace("&lt;", ""), html
        assert text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") == f"{visible(token)} → y: 0.50"


def test_every_drawn_view_gets_the_visible_labels():
    data = matrix.heatmaps(["a", "\u202eRTL"], [torch.eye(2).numpy()], ["head \u200b0"], cols=["\u202ek", "q"])
    assert data["rows"] == ["a", "⟨U+202E⟩RTL"] and data["cols"] == ["⟨U+202E⟩k", "q"]
    assert data["heads"][0]["title"] == "head ⟨U+200B⟩0"
    model = matrix.model_view(["\u202eRTL", "b"], torch.rand(1, 1, 2, 2).numpy(), [["t"]], [["d"]], (0, 0))
    assert model["rows"] == ["⟨U+202E⟩RTL", "b"]


def test_the_notebook_views_show_a_bidi_token_visibly():
    from core.notebook import head_view, model_view

    w = torch.rand(2, 2, 3, 3).softmax(-1)  # (L, H, T, T)
    tokens = ["a", "\u202eRTL", "b\u200b"]
    for view in (head_view(w, tokens), model_view(w, tokens)):
        assert view.data["rows"] == ["a", "⟨U+202E⟩RTL", "b⟨U+200B⟩"]
        page = view._repr_html_()  # (its numbers as JSON, non-ASCII escaped)
        assert "\\u27e8U+202E\\u27e9RTL" in page and "\\u202e" not in page and "\u202e" not in page


@pytest.fixture(scope="module")
def bidi_gpt2(tmp_path_factory):
    """A random GPT-2 whose byte-level BPE learnt U+202E as one token (GPT-2's own may, for text it saw often)."""
    import tokenizers
    import transformers

    from tests.test_gpt2_loader import SENTENCES

    folder = tmp_path_factory.mktemp("gpt2-bidi")
    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator([*SENTENCES, "\u202eRTL " * 50], vocab_size=300, min_frequency=1,
                            special_tokens=["<|endoftext|>"], show_progress=False)
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=bpe.get_vocab_size(), n_positions=48, n_embd=32, n_layer=2, n_head=2,
                                     bos_token_id=None, eos_token_id=None, attn_implementation="eager")
    transformers.GPT2LMHeadModel(config).eval().save_pretrained(folder)
    transformers.PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer).save_pretrained(folder)
    return folder


def test_the_real_model_views_show_a_bidi_token_visibly(monkeypatch, bidi_gpt2):
    """A byte-level tokenizer can keep U+202E in a token: the model view, its step-through and causality maps and
    its next-word table all show it as ⟨U+202E⟩."""
    from core.serve import real_model, real_views

    monkeypatch.setenv("ATTENTION_LAB_GPT2", str(bidi_gpt2))
    sentence = "the fox \u202eRTL saw the cat"
    view, table, _ = real_model.model_view(sentence, "gpt2", True, True, "[]")
    assert any("⟨U+202E⟩" in t for t in view["rows"]) and not any("\u202e" in t for t in view["rows"])
    assert not any("\u202e" in str(cell) for row in table for cell in row)
    _, stages = real_views.step_view(sentence, "gpt2", True, True, 0, 0)
    assert all("\u202e" not in t for s in stages if s for t in s["rows"])
    causality, _ = real_views.causality_view(sentence, "gpt2", True, True, 1, " the")
    assert not any("\u202e" in t for t in causality["rows"]) and "\u202e" not in causality["labels"]["warning"]
