"""A link as a QR code's modules, made here (segno) so the page draws it itself: no outside service sees the link."""

from __future__ import annotations

import segno

MAX_CHARS = 512  # a class link is ~60 characters; a longer text is not a link the lab makes


def modules(text: str) -> list[str]:
    """The QR code of text as rows of "0"/"1" (dark = "1"), without the quiet zone (the page leaves 4 modules)."""
    code = segno.make(text[:MAX_CHARS], error="m", micro=False)  # (n, n): n = 21 + 4 * (version - 1)
    return ["".join("1" if m else "0" for m in row) for row in code.matrix]
