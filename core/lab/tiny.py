"""The shipped tiny model, loaded once per process, and the one-thread rule small models run under."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

import torch

from ..corpus import Tokenizer
from ..model import GPT, load_tiny

_threads_lock = threading.Lock()
_threads_users = 0  # how many callers are inside one_thread() right now (the app serves several at once)
_threads_saved = 1


@contextmanager
def one_thread() -> Iterator[None]:
    """Small models on shared cores run faster on one thread (no spinning workers); restored afterwards.

    torch's thread count is process-wide, so concurrent callers share one counter: the first in
    saves and lowers it, the last out restores it (two overlapping requests cannot leave it at 1).
    """
    global _threads_users, _threads_saved
    with _threads_lock:
        if _threads_users == 0:
            _threads_saved = torch.get_num_threads()
            torch.set_num_threads(1)
        _threads_users += 1
    try:
        yield
    finally:
        with _threads_lock:
            _threads_users -= 1
            if _threads_users == 0:
                torch.set_num_threads(_threads_saved)


@lru_cache(maxsize=1)
def tiny() -> tuple[GPT, Tokenizer]:
    """The shipped model, loaded once per process."""
    return load_tiny()
