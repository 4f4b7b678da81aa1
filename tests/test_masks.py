"""Masks say True = may attend; each is checked against its definition written as loops."""

import pytest
import torch

from core.masks import causal_mask, combine_masks, padding_mask, sliding_window_mask


def test_causal_mask_is_the_lower_triangle():
    m = causal_mask(4)
    assert m.dtype == torch.bool
    assert m.tolist() == [[i >= j for j in range(4)] for i in range(4)]


@pytest.mark.parametrize("T, window, stride", [(1, 1, 0), (7, 1, 0), (7, 3, 0), (9, 2, 3), (10, 4, 4), (6, 10, 0), (8, 2, 1)])
def test_sliding_window_matches_its_definition(T, window, stride):
    expected = [
        [(0 <= i - j < window) or (stride > 0 and j <= i and j % stride == 0) for j in range(T)]
        for i in range(T)
    ]
    assert sliding_window_mask(T, window, stride).tolist() == expected


@pytest.mark.floats
def test_window_as_long_as_the_sequence_is_the_causal_mask():
    assert torch.equal(sliding_window_mask(6, 6), causal_mask(6))


@pytest.mark.parametrize("window, stride", [(0, 0), (2, -1)])
def test_sliding_window_rejects_bad_sizes(window, stride):
    with pytest.raises(ValueError):
        sliding_window_mask(5, window, stride)


def test_padding_mask_marks_real_tokens_true():
    assert padding_mask([3, 1], 4).tolist() == [[True, True, True, False], [True, False, False, False]]


def test_combine_hides_padding_keys_from_every_query():
    kpm = padding_mask([3, 2], 4)  # (2, 4)
    m = combine_masks(causal_mask(4), kpm)
    assert m.shape == (2, 1, 4, 4)
    for b, length in enumerate([3, 2]):
        for i in range(4):
            for j in range(4):
                assert m[b, 0, i, j].item() == (j <= i and j < length)


def test_combine_with_only_one_mask():
    assert combine_masks(causal_mask(3), None).shape == (1, 1, 3, 3)
    m = combine_masks(None, padding_mask([2], 3))
    assert m.shape == (1, 1, 3, 3) and m[0, 0, :, 2].tolist() == [False] * 3


def test_combine_refuses_float_masks():
    with pytest.raises(TypeError, match="True = may attend"):
        combine_masks(torch.zeros(3, 3), None)
