"""The Causality tab's numbers: edit one token, measure which output rows move; the autograd dependency map."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from ..i18n import t
from ..mistakes import ConfigError, whole
from .session import Lab, json_number, make_request
from .text import embed_at, sentences, text_field

MAX_REPLACEMENT_CHARS = 100  # one word


@dataclass(frozen=True)
class CausalityResult:
    """Per-row output change after editing one token, and |d out_i / d x_j| for the sentence."""

    tokens: tuple[str, ...]
    position: int
    replacement: str
    causal: bool
    row_max_abs_diff: list[float]  # (T,) max |output change| of each row
    identical_before: bool  # rows before the edit are byte-identical (torch.equal)
    dependency: Tensor  # (T, T) Frobenius norm of each Jacobian block

    @property
    def summary(self) -> str:
        """What the bars show, in one or two sentences."""
        p, diffs = self.position, self.row_max_abs_diff
        after = max(diffs[p:]) if diffs[p:] else 0.0
        if p == 0:
            before = t("There are no rows before position 0.")
        elif self.identical_before:
            before = t("Rows 0 to {last}, before the edit, are byte-identical (change exactly 0).", last=p - 1)
        else:
            before = t("Rows before the edit changed by up to {diff}: without the mask the future leaks into the past.",
                       diff=format(max(diffs[:p]), ".3g"))
        if after == 0:
            return sentences(before, t("Nothing changed: the replacement is the same token."))
        return sentences(before, t("Rows {first} to {last} change (up to {diff}).", first=p, last=len(diffs) - 1,
                                   diff=format(after, ".3g")))

    def payload(self) -> dict[str, Any]:
        """The /causality JSON."""
        return {"tokens": list(self.tokens), "position": self.position, "replacement": self.replacement,
                "causal": self.causal, "row_max_abs_diff": [json_number(v, None) for v in self.row_max_abs_diff],
                "byte_identical_before": self.identical_before}


def replacement_word(replacement: Any) -> str:
    """The word to put in, stripped; ConfigError when it is not text, empty or longer than a word can be."""
    word = text_field("replacement", "" if replacement is None else replacement).strip()
    if not word:
        raise ConfigError(t("The replacement word is empty; type a word to put at that position."))
    if len(word) > MAX_REPLACEMENT_CHARS:
        raise ConfigError(t("replacement is longer than {n} characters; type one word.", n=MAX_REPLACEMENT_CHARS))
    return word


def dependency_matrix(module: nn.Module, x: Tensor, **kwargs) -> Tensor:
    """|d out_i / d x_j| from autograd: the Frobenius norm of each (d, d) Jacobian block.  -> (T, T)"""
    x0 = x[:1].detach()  # (1, T, d)

    def f(inp: Tensor) -> Tensor:
        return module(inp[None], **kwargs)[0]  # (T, d) -> (T, d)

    jac = torch.autograd.functional.jacobian(f, x0[0], vectorize=True)  # (T, d, T, d)
    return jac.pow(2).sum(dim=(1, 3)).sqrt()  # (T_out, T_in)


class _Explicit(nn.Module):
    """The module through its explicit path (trace): the same function as forward, with a fast backward.

    The fused SDPA CPU kernel's backward under the Jacobian's vmap is far slower than the explicit
    matmul/softmax path, which also involves no global SDPA backend switch (docs/performance.md).
    """

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, x: Tensor) -> Tensor:
        return self.module.trace(x).output  # (B, T, d)


def probe(
    lab: Lab, sentence: Any, position: Any, replacement: Any, causal: Any = True, variant: Any = "multi-head",
    seed: int = 0,
) -> CausalityResult:
    """Replace the token at `position` by `replacement` (same position vector) and compare every output row."""
    req = make_request(sentence, variant, causal, True, 2, 16, seed, "{}")
    run = lab.run(req)
    T = len(run.tokens)
    pos = whole("position", position)
    if not 0 <= pos < T:
        raise ConfigError(t("position={pos} is outside the sentence; choose 0 to {last}", pos=pos, last=T - 1))
    word = replacement_word(replacement)
    d = run.config.d_model
    x = run.x  # (1, T, d)
    changed = x.clone()
    changed[0, pos] = embed_at(word, pos, d, seed)  # (d,) same position vector, new token
    with torch.no_grad():
        out, out_changed = run.module(x), run.module(changed)  # (1, T, d)
    diffs = (out - out_changed).abs().amax(dim=-1)[0]  # (T,)
    dep = dependency_matrix(_Explicit(run.module), x)  # (T, T)
    return CausalityResult(
        tokens=run.tokens.tokens, position=pos, replacement=word, causal=run.config.causal,
        row_max_abs_diff=[float(v) for v in diffs],
        identical_before=bool(torch.equal(out[0, :pos], out_changed[0, :pos])),
        dependency=dep.detach(),
    )
