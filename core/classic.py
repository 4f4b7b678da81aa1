"""The textbook's SelfAttention_v1 and _v2, built exactly as it builds them (re-exported by single_head)."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from .attention import attend


class SelfAttention_v1(nn.Module):
    """Weights as raw (d_in, d_out) matrices, so x @ W reads like the maths; no mask."""

    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x: Tensor) -> Tensor:
        """x (T, d_in) or (B, T, d_in) -> context (…, T, d_out)."""
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value
        return attend(queries, keys, values)["context"]


class SelfAttention_v2(nn.Module):
    """The same layer with nn.Linear, which stores its weight transposed: (d_out, d_in)."""

    def __init__(self, d_in: int, d_out: int, qkv_bias: bool = False) -> None:
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x: Tensor) -> Tensor:
        """x (T, d_in) or (B, T, d_in) -> context (…, T, d_out)."""
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        return attend(queries, keys, values)["context"]
