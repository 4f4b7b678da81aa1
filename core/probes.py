"""The conformance kit's public door: `from core.probes import check_variant`."""

from .kit.conformance import CheckFailed, CheckReport, check_variant

__all__ = ["CheckFailed", "CheckReport", "check_variant"]
