"""core.lab.causality: editing a token moves only the rows at and after it, while the mask is on."""

import pytest
import torch

from core import load_registry
from core.config import ConfigError
from core.lab.causality import probe
from core.lab.session import Lab, make_request

SENTENCE = "The cat sat on the mat"


@pytest.fixture(scope="module")
def lab():
    return Lab(load_registry(entry_points=False))


@pytest.mark.floats
@pytest.mark.parametrize("variant", ["multi-head", "multi-head-stacked", "gqa", "sliding-window", "single-head"])
def test_rows_before_the_edit_are_byte_identical(lab, variant):
    res = probe(lab, SENTENCE, 3, "dog", True, variant)
    assert res.row_max_abs_diff[:3] == [0.0, 0.0, 0.0]
    assert res.identical_before
    assert res.row_max_abs_diff[3] > 0
    assert "byte-identical" in res.summary


@pytest.mark.floats
def test_without_the_mask_the_future_leaks(lab):
    res = probe(lab, SENTENCE, 3, "dog", False)
    assert all(d > 0 for d in res.row_max_abs_diff)
    assert not res.identical_before and "leaks" in res.summary


def test_dependency_matrix_is_lower_triangular_with_the_mask_and_full_without(lab):
    dep = probe(lab, SENTENCE, 0, "dog", True).dependency
    assert torch.all(dep.triu(1) == 0) and torch.all(dep.diagonal() > 0)
    full = probe(lab, SENTENCE, 0, "dog", False).dependency
    assert torch.all(full > 0)


@pytest.mark.floats
def test_dependency_matches_a_finite_difference(lab):
    run = lab.run(make_request(SENTENCE))
    dep = probe(lab, SENTENCE, 0, "dog").dependency  # (T, T)
    x = run.x.clone()
    eps = 1e-3
    x2 = x.clone()
    x2[0, 1, 0] += eps  # nudge input token 1, dimension 0
    with torch.no_grad():
        delta = (run.module(x2) - run.module(x))[0] / eps  # (T, d) ≈ d out / d x_1[0]
    assert torch.all(delta[0].abs() == 0)  # row 0 cannot see token 1
    # the column-0 slice of each Jacobian block is bounded by the block's Frobenius norm
    assert torch.all(delta[1:].norm(dim=-1) <= dep[1:, 1] * 1.05 + 1e-4)


@pytest.mark.floats
def test_same_token_changes_nothing(lab):
    res = probe(lab, SENTENCE, 1, "cat")
    assert max(res.row_max_abs_diff) == 0 and "Nothing changed" in res.summary


@pytest.mark.floats
def test_payload_and_errors(lab):
    p = probe(lab, SENTENCE, 2, "dog").payload()
    assert len(p["row_max_abs_diff"]) == 6 and p["tokens"][2] == "sat"
    with pytest.raises(ConfigError, match="position=6 is outside"):
        probe(lab, SENTENCE, 6, "dog")
    with pytest.raises(ConfigError, match="replacement"):
        probe(lab, SENTENCE, 1, "  ")
    with pytest.raises(ConfigError, match="position"):
        probe(lab, SENTENCE, 1.5, "dog")


@pytest.mark.floats
def test_dependency_of_the_explicit_path_equals_the_fast_path(lab):
    from core.lab.causality import _Explicit, dependency_matrix

    run = lab.run(make_request(SENTENCE, variant="gqa", n_heads=4, options='{"n_kv_heads": 2}'))
    fast = dependency_matrix(run.module, run.x)  # through F.scaled_dot_product_attention
    assert torch.allclose(dependency_matrix(_Explicit(run.module), run.x), fast, atol=1e-5)
