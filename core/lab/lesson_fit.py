"""Will a step fit one 1024×768 screen? An estimate from its text alone, for `attention-lab lesson check` to warn.

(placeholder: calibrated below)
"""

from __future__ import annotations

ROOM = 560


def height(step, language: str = "en") -> int:
    return 0
