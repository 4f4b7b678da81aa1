"""What threads of one process share in torch: its thread count (small models run on one thread: faster on shared
cores, and the same floats whatever else the server is doing, since torch's matrix kernels round differently on one
thread than on two) and its global random generator (one seeded draw at a time)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import torch

GLOBAL_RNG = threading.Lock()  # torch.manual_seed then a draw (F.dropout, the classic classes' __init__): one at a time
_threads_lock = threading.Lock()
_threads_users = 0  # how many callers hold one thread right now (the app serves several at once)
_threads_saved = 1


def hold() -> None:
    """Lower torch to one thread until release(). The count is each thread's own (OpenMP's), and new threads take the
    last one set: so every caller lowers its own, and concurrent callers share one counter — the first in saves the
    count, the last out restores it (overlapping requests cannot leave it at 1, nor a second caller at 2)."""
    global _threads_users, _threads_saved
    with _threads_lock:
        if _threads_users == 0:
            _threads_saved = torch.get_num_threads()
        if torch.get_num_threads() != 1:
            torch.set_num_threads(1)
        _threads_users += 1


def release() -> None:
    """One hold() ended: the last one restores the thread count it found."""
    global _threads_users
    with _threads_lock:
        _threads_users -= 1
        if _threads_users == 0:
            torch.set_num_threads(_threads_saved)


@contextmanager
def one_thread() -> Iterator[None]:
    """Small models on shared cores run faster on one thread (no spinning workers); restored afterwards."""
    hold()
    try:
        yield
    finally:
        release()
