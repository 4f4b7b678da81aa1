"""The conformance kit catches each broken promise, however the module describes itself."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from core import AttentionConfig, AttentionModule, Option, Variant
from core.masks import causal_mask
from core.probes import CheckReport, check_variant
from core.testing import assert_variant_conforms

pytest_plugins = ["core.testing"]


class ReadsTheFuture(AttentionModule):
    """forward attends to every token; trace (inherited) still draws the causal triangle."""

    def forward(self, x, key_padding_mask=None):
        q, k, v = self.project(x)
        return self.merge(F.scaled_dot_product_attention(q, k, v))


class LeaksATinyBit(AttentionModule):
    """Adds 1e-7 of the next token: too small for allclose, not for a byte-identical probe."""

    def forward(self, x, key_padding_mask=None):
        out = super().forward(x, key_padding_mask)
        return out if key_padding_mask is not None else out + 1e-7 * x.roll(-1, dims=1)


class AlwaysCausal(AttentionModule):
    """Ignores config.causal, so the causal=False control cannot see the future."""

    def allowed(self, T, device=None):
        return causal_mask(T, device)


class NaNOnPadding(AttentionModule):
    """Masks padding query rows completely, so softmax meets rows of -inf."""

    def forward(self, x, key_padding_mask=None):
        q, k, v = self.project(x)
        mask = self.allowed(x.shape[1])
        mask = torch.ones(x.shape[1], x.shape[1], dtype=torch.bool) if mask is None else mask
        if key_padding_mask is not None:  # hides padding queries as well as padding keys
            mask = mask & key_padding_mask[:, None, :, None] & key_padding_mask[:, None, None, :]
        scores = (q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5).masked_fill(~mask, float("-inf"))
        return self.merge(torch.softmax(scores, dim=-1) @ v)


class HalfWeights(AttentionModule):
    """A trace whose weights were tampered with after softmax."""

    def trace(self, x, key_padding_mask=None):
        tr = super().trace(x, key_padding_mask)
        tr.weights = tr.weights * 0.5
        return tr


def variant(build, name="probe", options=()) -> Variant:
    return Variant(name=name, title=name, summary="a module under test", build=build, options=options)


def failed_checks(report: CheckReport) -> set[str]:
    return {f.split(":")[0] for f in report.failures}


@pytest.mark.floats
@pytest.mark.parametrize("name", ["single-head", "multi-head", "multi-head-stacked", "gqa", "sliding-window"])
def test_every_builtin_variant_conforms(registry, name):
    report = assert_variant_conforms(registry.variants[name])
    assert report.passed and not report.failures
    assert {"build", "options validate", "padding", "causal forward (autograd)"} <= set(report.timings)


@pytest.mark.floats
def test_builtins_conform_with_non_default_options(registry):
    assert_variant_conforms(registry.variants["gqa"], AttentionConfig(d_model=24, n_heads=6, options={"n_kv_heads": 3}))
    assert_variant_conforms(registry.variants["sliding-window"], AttentionConfig(options={"window": 2, "stride": 3}))


def test_forward_reading_the_future_is_caught_although_trace_looks_causal():
    tr = ReadsTheFuture(AttentionConfig()).trace(torch.randn(1, 5, 16))
    assert not tr.weights[0, 0].triu(1).any()  # the module's own story: causal
    report = check_variant(variant(ReadsTheFuture))
    assert not report.passed
    assert {"causal forward (perturbation)", "causal forward (autograd)", "forward agrees with trace"} <= failed_checks(report)
    assert "causal trace (perturbation)" not in failed_checks(report)
    assert any("forward reads the future: token 0 changed when token 1 did" in f for f in report.failures)


@pytest.mark.floats
def test_a_leak_below_float_tolerance_is_still_caught():
    report = check_variant(variant(LeaksATinyBit))
    assert failed_checks(report) == {"causal forward (perturbation)", "causal forward (autograd)",
                                     "cached decoding equals the recompute"}  # a cache cannot see the future either


def test_ignoring_causal_false_fails_the_control():
    assert failed_checks(check_variant(variant(AlwaysCausal))) == {"causal=False control sees the future"}


def test_nan_on_padding_is_caught_and_named_as_nan():
    report = check_variant(variant(NaNOnPadding), only=["shapes, NaN and inf", "padding"])
    assert report.failures == ["shapes, NaN and inf: forward's output holds NaN (T=7, batch 1 with padding, "
                               "d_model=16, n_heads=2)"]
    assert report.skipped == {"padding": "same fault as 'shapes, NaN and inf'"}


def test_tampered_trace_weights_are_caught():
    assert {"rows sum to 1", "trace is the formula"} <= failed_checks(check_variant(variant(HalfWeights)))


def test_build_that_raises_is_a_failure_not_a_crash():
    def build(config):
        raise RuntimeError("CUDA required\nsecond line")

    report = check_variant(variant(build))
    assert not report.passed
    line = build.__code__.co_firstlineno + 1
    assert report.failures == [f"build: variant 'probe' failed to build: RuntimeError: CUDA required "
                               f"(at test_conformance.py:{line}) (d_model=16, n_heads=2)"]
    assert set(report.timings) == {"options validate", "declarations", "build"}  # the rest needs a module


def test_build_returning_something_else_is_reported():
    report = check_variant(variant(lambda config: torch.nn.Linear(16, 16)))
    assert report.failures == ["build: variant 'probe' built a Linear, not an AttentionModule (d_model=16, n_heads=2)"]


def test_an_option_whose_default_breaks_its_own_range_fails_options():
    report = check_variant(variant(AttentionModule, options=(Option("window", 0, minimum=1),)))
    assert failed_checks(report) == {"options validate"}
    assert "option window=0 is too small" in report.failures[0]
    assert report.skipped["build"] == "the options do not resolve"


def test_duplicate_option_names_fail_options():
    report = check_variant(variant(AttentionModule, options=(Option("a", 1), Option("a", 2))))
    assert "options validate" in failed_checks(report)


def test_assert_variant_conforms_fails_with_the_report():
    with pytest.raises(pytest.fail.Exception, match="probe: FAILED"):
        assert_variant_conforms(variant(ReadsTheFuture))


def test_assert_variant_conforms_accepts_a_name(registry):
    assert assert_variant_conforms("gqa", registry=registry).variant == "gqa"


def test_the_report_is_reproducible(registry):
    first, again = check_variant(variant(ReadsTheFuture)), check_variant(variant(ReadsTheFuture))
    assert first.failures == again.failures  # private, fixed weights: the same sentences every time
