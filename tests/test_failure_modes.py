"""The chapter's failure modes: each card's check passes on the right code, fails on the wrong one, live."""

from __future__ import annotations

import inspect
import json

import pytest
import torch
import torch.nn.functional as F

from core.lab import failure_modes as fm
from core.lab.masking import three_ways


@pytest.fixture(scope="module")
def cards():
    return {c.key: c for c in fm.cards()}


def test_every_card_is_caught_by_its_check(cards):
    assert set(cards) == {"softmax-dim", "zero-fill", "mask-dtype", "mask-device", "padding-nan"}
    for card in cards.values():
        assert card.check_right.passed, (card.key, card.check_right.detail)
        assert not card.check_wrong.passed, (card.key, card.check_wrong.detail)
        assert card.wrong_code != card.right_code and card.effect and card.check


def test_the_lines_on_the_cards_are_the_lines_that_ran(cards):
    src = {fn: inspect.getsource(fn) for fn in (fm.attention, fm.attention_softmax_over_queries, fm.attention_zero_fill,
                                                 fm.attention_float_mask, fm.attention_mask_elsewhere,
                                                 fm.padded_attention)}
    for line in (fm.SOFTMAX_RIGHT, fm.FILL_RIGHT, fm.DTYPE_RIGHT):
        assert line in src[fm.attention]
    assert fm.SOFTMAX_WRONG in src[fm.attention_softmax_over_queries]
    assert fm.FILL_WRONG in src[fm.attention_zero_fill]
    assert fm.DTYPE_WRONG in src[fm.attention_float_mask]
    assert fm.DEVICE_WRONG in src[fm.attention_mask_elsewhere]
    assert fm.PADDING_WRONG in src[fm.padded_attention] and fm.PADDING_RIGHT in src[fm.padded_attention]
    assert cards["softmax-dim"].wrong_code == fm.SOFTMAX_WRONG and cards["zero-fill"].right_code == fm.FILL_RIGHT


@pytest.mark.floats
def test_the_right_code_is_pytorchs_causal_attention():
    q, k, v = (torch.randn(6, 4, generator=torch.Generator().manual_seed(i)) for i in range(3))
    out, w = fm.attention(q, k, v)
    ref = F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=True)[0]
    assert torch.allclose(out, ref, atol=1e-6) and torch.allclose(w.sum(-1), torch.ones(6))


@pytest.mark.floats
def test_softmax_over_queries_normalises_columns_not_rows(cards):
    wrong = torch.tensor(cards["softmax-dim"].wrong["weights"])
    assert torch.allclose(wrong.sum(0), torch.ones(5), atol=1e-3)  # columns sum to 1
    assert (wrong.sum(1) - 1).abs().max() > 0.1  # rows do not
    assert "changing the last token moved earlier outputs by up to 0;" not in cards["softmax-dim"].check_wrong.detail


@pytest.mark.floats
def test_zero_fill_leaks_exactly_what_the_masking_tab_shows(cards):
    q, k, _ = fm._qkv()
    ways = three_ways(q @ k.T / fm.HEAD_DIM**0.5)
    card = cards["zero-fill"]
    assert torch.allclose(torch.tensor(card.wrong["weights"]), ways.zero_fill, atol=1e-4)
    assert card.wrong["future_weight_per_row"][0] > 0 and card.wrong["future_weight_per_row"][-1] == 0


def test_dtype_and_device_cards_carry_torchs_own_message_and_the_fix(cards):
    try:
        ~torch.tril(torch.ones(3, 3))
    except TypeError as e:
        expected = f"TypeError: {e}"
    assert cards["mask-dtype"].wrong["error"] == expected
    assert "dtype=torch.bool" in cards["mask-dtype"].right_code and "dtype" not in cards["mask-dtype"].wrong_code
    device = cards["mask-device"]
    if not torch.cuda.is_available():
        try:
            torch.zeros(3, 3).masked_fill(torch.ones(3, 3, dtype=torch.bool, device="meta"), 0.0)
        except RuntimeError as e:
            assert device.wrong["error"] == f"RuntimeError: {e}"
        assert device.wrong["device"] == "meta" and "no GPU" in device.note
    assert "device=q.device" in device.right_code


def test_padding_rows_give_nan_and_the_guard_gives_what_the_sentence_gives_alone(cards):
    card = cards["padding-nan"]
    assert card.tokens[:2] == [fm.PAD, fm.PAD] and card.wrong["nan_rows"] == [0, 1] and card.wrong["output_nan"]
    assert all(v is None for v in card.wrong["weights"][0])  # NaN, sent as null
    right = torch.tensor(card.right["weights"])
    assert not torch.isnan(right).any() and torch.all(right[2:, :2] == 0)  # real tokens never read padding


def test_cards_are_json(cards):
    json.dumps(fm.cards_payload(), allow_nan=False)
