"""core.lab.transfer_report: the Weight-transfer tab's verdicts, and the classic published numbers."""

import pytest
import torch

from core import load_registry
from core.config import ConfigError
from core.lab.transfer_report import other_transfers, v2_to_v1

# SelfAttention_v2 built after torch.manual_seed(789), on "Your journey starts with one step"
PUBLISHED_V2_789 = [[-0.0739, 0.0713], [-0.0748, 0.0703], [-0.0749, 0.0702],
                    [-0.0760, 0.0685], [-0.0763, 0.0679], [-0.0754, 0.0693]]


@pytest.mark.floats
def test_correct_transfer_is_the_same_function_up_to_float_rounding():
    # v1 computes x @ W, v2 nn.Linear's x @ W.T: two kernels, equal on one CPU, a few ulps apart on another
    r = v2_to_v1(123, 3, 2, "none")
    payload = r.payload()
    assert payload["equal"] is True and r.error is None and 0 <= r.max_abs_diff <= payload["atol"] == 1e-5
    assert torch.allclose(torch.tensor(r.out_v1), torch.tensor(r.out_v2), atol=1e-4)  # printed to 4 decimals
    assert ("bit-for-bit" in r.verdict) is payload["exact"] is (r.max_abs_diff == 0)  # the verdict says which
    shapes = {(m, p): shape for m, p, _, shape in r.shapes}
    assert shapes["SelfAttention_v2", "W_key.weight"] == "(2, 3)"  # nn.Linear stores (d_out, d_in)
    assert shapes["SelfAttention_v1", "W_key"] == "(3, 2)"  # nn.Parameter (d_in, d_out)
    assert len(r.shapes) == 6


@pytest.mark.floats
def test_published_numbers_reproduce():
    r = v2_to_v1(789, 3, 2, "none")
    assert torch.allclose(torch.tensor(r.out_v2), torch.tensor(PUBLISHED_V2_789), atol=1e-4)


@pytest.mark.floats
def test_no_transpose_is_a_shape_error_when_d_in_differs():
    r = v2_to_v1(123, 3, 2, "no-transpose")
    p = r.payload()
    assert p["equal"] is False and p["max_abs_diff"] is None
    assert "weight.T" in p["error"] and "(2, 3)" in p["error"]


@pytest.mark.floats
def test_no_transpose_is_silently_wrong_when_square():
    r = v2_to_v1(123, 3, 3, "no-transpose")
    assert r.error is None and not r.equal and r.max_abs_diff > 1e-3
    assert "silently wrong" in r.verdict


@pytest.mark.floats
def test_swap_query_key_is_wrong():
    r = v2_to_v1(123, 3, 2, "swap-query-key")
    assert not r.equal and r.max_abs_diff > 0


@pytest.mark.floats
def test_global_rng_untouched():
    torch.manual_seed(5)
    expected = torch.rand(1)
    torch.manual_seed(5)
    v2_to_v1(42, 4, 4, "none")  # (the lab keeps nothing: each call builds)
    assert torch.equal(torch.rand(1), expected)


def test_bad_values():
    with pytest.raises(ConfigError, match="d_in=0"):
        v2_to_v1(1, 0, 2, "none")
    with pytest.raises(ConfigError, match="mistake"):
        v2_to_v1(1, 3, 2, "oops")


@pytest.mark.floats
def test_other_transfers_agree():
    results = other_transfers(load_registry(entry_points=False), seed=3)
    assert len(results) == 2 and all(o.equal and o.max_abs_diff < 1e-5 for o in results)


def test_output_tables_show_dashes_when_the_copy_failed():
    failed = v2_to_v1(123, 3, 2, "no-transpose")
    assert failed.outputs_table("v1") == (["out0", "out1"], [["—", "—"]])
    ok = v2_to_v1(123, 3, 2, "none")
    headers, rows = ok.outputs_table("v2")
    assert headers == ["out0", "out1"] and rows == ok.out_v2 and len(rows) == 6
