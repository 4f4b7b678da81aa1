"""The Weight transfer tab's numbers (core.lab.transfer_report), kept per setting and language for a class."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..i18n import current
from ..lab import transfer_report
from ..lab.transfer_report import OtherTransfer, TransferReport
from ..registry import Registry
from .cache import Same


def v2_to_v1(seed: Any = 123, d_in: Any = 3, d_out: Any = 2, mistake: Any = "none") -> TransferReport:
    """core.lab.transfer_report.v2_to_v1, computed once per setting and language (its verdict is words)."""
    return _v2_to_v1(seed, d_in, d_out, mistake, current())


@lru_cache(maxsize=256)
def _v2_to_v1(seed: Any, d_in: Any, d_out: Any, mistake: Any, language: str) -> TransferReport:
    return transfer_report.v2_to_v1(seed, d_in, d_out, mistake)


def other_transfers(registry: Registry, seed: Any = 123) -> list[OtherTransfer]:
    """core.lab.transfer_report.other_transfers, computed once per app, seed and language (titles are words)."""
    return list(_other_transfers(Same(registry), seed, current()))


@lru_cache(maxsize=64)
def _other_transfers(same: Same, seed: Any, language: str) -> tuple[OtherTransfer, ...]:
    return tuple(transfer_report.other_transfers(same.registry, seed))
