"""Plugins that misbehave on purpose, one misbehaviour each, for the reliability suite and its tests.

Each is a separate plugin (its own name, its own worker in the app), registered with
`load_registry(plugins=hostile_plugins.PLUGINS)`. Their classes live at module level so a worker
process can import them by name, as it imports any installed plugin's code.
"""

from __future__ import annotations

import os
import threading
import time

import torch

from core import AttentionModule, Variant, hookimpl
from core.attention import AttentionTrace

THREADS_LEFT = 4  # threads the "threads" plugin leaves spinning behind each build


class Hang(AttentionModule):
    """Never answers: sleeps in project (forward and trace both call it)."""

    def project(self, x):
        time.sleep(3600)
        return super().project(x)


class Spin(AttentionModule):
    """Burns a core in pure Python (holding its interpreter lock) and never answers."""

    def project(self, x):
        while True:
            pass


class Exit(AttentionModule):
    """Ends its process without a word: os._exit, no exception, no cleanup."""

    def project(self, x):
        os._exit(3)


def exit_on_build(config):
    """build() raises SystemExit, which `except Exception` does not catch."""
    raise SystemExit(2)


class Interrupt(AttentionModule):
    """bias() raises KeyboardInterrupt, as a Ctrl-C in the wrong process would."""

    def bias(self, T, device=None):
        raise KeyboardInterrupt


class Allocate(AttentionModule):
    """Asks for 20 GB in forward/trace."""

    def project(self, x):
        big = torch.ones(5 * 2**30)  # 5 Gi fp32 values: 20 GiB
        return super().project(x + big[0])


def _spin_forever():
    while True:
        time.sleep(0.001)


class Threads(AttentionModule):
    """Answers correctly, but each build leaves non-daemon threads running."""

    def __init__(self, config):
        super().__init__(config)
        for _ in range(THREADS_LEFT):
            threading.Thread(target=_spin_forever, name="left-behind").start()


class NaN(AttentionModule):
    """Answers on time with NaN queries, so every attention weight is NaN."""

    def project(self, x):
        q, k, v = super().project(x)
        return q * float("nan"), k, v


class WrongShape(AttentionModule):
    """trace() answers with weights of the wrong shape (one key too few)."""

    def trace(self, x, key_padding_mask=None):
        t = super().trace(x, key_padding_mask)
        return AttentionTrace(**{**vars(t), "weights": t.weights[..., :-1]})


class Raise(AttentionModule):
    """The polite failure: a RuntimeError in project."""

    def project(self, x):
        raise RuntimeError("this variant is not finished")


class _Plugin:
    """One plugin object offering one variant (pluggy reads the marked method)."""

    def __init__(self, name: str, variant: Variant) -> None:
        self.__name__, self.variant = name, variant

    @hookimpl
    def register_attention_variants(self, register) -> None:
        register(self.variant)


def _plugin(name: str, build, what: str) -> _Plugin:
    return _Plugin(f"hostile-{name}", Variant(name=f"hostile-{name}", title=f"Hostile: {name}", summary=what,
                                              build=build))


BEHAVIOURS = {  # name -> (build, what it does)
    "hang": (Hang, "sleeps forever in forward and trace"),
    "spin": (Spin, "spins in pure Python forever in forward and trace"),
    "exit": (Exit, "calls os._exit(3) in forward and trace"),
    "sysexit": (exit_on_build, "raises SystemExit in build()"),
    "interrupt": (Interrupt, "raises KeyboardInterrupt in bias()"),
    "memory": (Allocate, "allocates 20 GB in forward and trace"),
    "threads": (Threads, "leaves 4 spinning threads behind each build()"),
    "nan": (NaN, "returns NaN queries, so NaN weights"),
    "shape": (WrongShape, "returns weights of the wrong shape from trace()"),
    "raise": (Raise, "raises RuntimeError in forward and trace"),
}
PLUGINS = [_plugin(name, build, what) for name, (build, what) in BEHAVIOURS.items()]
