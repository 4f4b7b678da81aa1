"""Every call the kit makes into a plugin, watched: weights edited in place, threads left behind, NaN/inf, wrong shapes.

A fault is named for what it is the first time it shows, so it is never mistaken for a broken promise
further on (a module that edits its weights in place would otherwise look as if the future leaked).
"""

from __future__ import annotations

import threading

import torch
from torch import Tensor

from ..attention import AttentionModule, AttentionTrace
from ..i18n import t, t_n
from ..variant import one_line, where

_equal = torch.equal  # bound now, before any plugin code runs in this process
_isfinite = torch.isfinite


class CheckFailed(AssertionError):
    """One promise broken; the message is one sentence for the plugin author (`case` says where)."""

    def __init__(self, message: str, case: str = "") -> None:
        super().__init__(t("{message} ({case})", message=message, case=case) if case else message)
        self.message, self.case = message, case


class PluginRaised(CheckFailed):
    """The plugin's own code raised; `original` is its exception, for ATTENTION_LAB_STRICT=1."""

    def __init__(self, what: str, exc: BaseException, case: str = "", message: str = "") -> None:
        at = where(exc)
        if not message:
            message = (t("{what} raised {error} at {at}", what=what, error=one_line(exc), at=at) if at else
                       t("{what} raised {error}", what=what, error=one_line(exc)))
        super().__init__(message, case)
        self.original = exc


class Guarded:
    """A module under test: forward and trace through checks that no plugin can talk its way past."""

    def __init__(self, module: AttentionModule) -> None:
        self.module = module

    def forward(self, x: Tensor, key_padding_mask: Tensor | None = None, case: str = "") -> Tensor:
        """module(x) (B, T, d_model), or CheckFailed naming what went wrong."""
        out = self._call("forward", lambda: self.module(x, key_padding_mask=key_padding_mask), case)
        if not isinstance(out, Tensor) or tuple(out.shape) != tuple(x.shape):
            raise CheckFailed(t("forward returned {got}; expected {shape}", got=shape_of(out), shape=tuple(x.shape)),
                              case)
        _finite(t("forward's output"), out, case)
        return out

    def trace(self, x: Tensor, key_padding_mask: Tensor | None = None, case: str = "") -> AttentionTrace:
        """module.trace(x) with its stages' shapes and values checked."""
        tr = self._call("trace", lambda: self.module.trace(x, key_padding_mask=key_padding_mask), case)
        if not isinstance(tr, AttentionTrace):
            raise CheckFailed(t("trace returned a {kind}, not an AttentionTrace", kind=type(tr).__name__), case)
        B, T, d = x.shape
        H = tr.q.shape[1] if isinstance(tr.q, Tensor) and tr.q.dim() == 4 else -1
        maps = tr.maps if isinstance(tr.maps, dict) else {}
        per_map = (B, H, len(maps), T, T) if maps else (B, H, T, T)  # several maps per head: one score map each
        expected = {"scores": per_map, "scaled": per_map, "masked": per_map, "weights": (B, H, T, T),
                    "output": (B, T, d), **{f"maps[{n!r}]": (B, H, T, T) for n in maps}}
        for name, shape in expected.items():
            value = maps[name[6:-2]] if name.startswith("maps[") else getattr(tr, name)
            if not isinstance(value, Tensor) or tuple(value.shape) != shape:
                raise CheckFailed(t("trace.{name} has shape {got}; expected {shape}", name=name, got=shape_of(value),
                                    shape=shape), case)
        for name in ("q", "k", "v", "context"):
            value = getattr(tr, name)
            if not isinstance(value, Tensor) or value.dim() != 4 or value.shape[0] != B or value.shape[2] != T:
                raise CheckFailed(t("trace.{name} has shape {got}; expected (B={B}, heads, T={T}, hd)", name=name,
                                    got=shape_of(value), B=B, T=T), case)
        if not isinstance(tr.mask, Tensor) or tr.mask.dtype != torch.bool or tr.mask.dim() != 4:
            raise CheckFailed(t("trace.mask must be a bool tensor (B|1, 1, T, T) with True = may attend"), case)
        for name in ("q", "k", "v", "scores", "scaled", "weights", "context", "output"):
            _finite(f"trace.{name}", getattr(tr, name), case)
        for name, value in maps.items():
            _finite(f"trace.maps[{name!r}]", value, case)
        if torch.isnan(tr.masked).any() or torch.isposinf(tr.masked).any():
            raise CheckFailed(t("trace.masked holds NaN or +inf; only forbidden positions may hold -inf"), case)
        return tr

    def _call(self, what: str, fn, case: str):
        """Run one call into the plugin; name an exception, a weight edited in place or a thread left behind."""
        before = {name: p.detach().clone() for name, p in self.module.named_parameters()}
        threads = set(threading.enumerate())
        try:
            result = fn()
        except CheckFailed:
            raise
        except Exception as exc:  # the plugin's bug, named with its own file:line
            raise PluginRaised(what, exc, case) from exc
        edited = [name for name, p in self.module.named_parameters() if name not in before
                  or not _equal(p.detach(), before[name])]
        if edited:
            raise CheckFailed(t("{what} edited its weights in place ({names}); a pass must leave parameters unchanged",
                                what=what, names=", ".join(edited[:3])), case)
        left = [thread.name for thread in threading.enumerate() if thread not in threads and thread.is_alive()]
        if left:
            raise CheckFailed(t_n("{what} left {n} thread running ({names}); a variant must not start threads",
                                  "{what} left {n} threads running ({names}); a variant must not start threads",
                                  len(left), what=what, names=", ".join(left[:3])), case)
        return result


def _finite(what: str, value: Tensor, case: str) -> None:
    """NaN and inf are named as such, never as a disagreement or a leak further on."""
    if value.dtype.is_floating_point and not bool(_isfinite(value).all()):
        kind = "NaN" if bool(torch.isnan(value).any()) else "inf"
        raise CheckFailed(t("{what} holds {kind}", what=what, kind=kind), case)


def shape_of(value: object) -> object:
    """A tensor's shape as a tuple, or the type of whatever came back instead."""
    return tuple(value.shape) if isinstance(value, Tensor) else t("a {kind}", kind=type(value).__name__)
