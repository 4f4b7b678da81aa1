"""A lab link's `?z=`: the page's long links (core/ui/link_js.py) read back, with a cap on what they inflate to.

The page writes a state whose readable link would pass 2,000 bytes as one parameter: the keys as JSON, deflated
("deflate-raw") and base64url-encoded. Reading it must cost nothing a link could abuse: at most ZIPPED_MAX bytes are
inflated (a small z= cannot become gigabytes), and anything the page would not have written is one sentence.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from typing import Any

from ..config import ConfigError
from ..i18n import mark, t

ZIPPED_MAX = 65_536  # bytes a ?z= may inflate to: a whole state is a few KB
MESSAGES = {"zipped": mark("z= is not a link this lab wrote; copy the link again")}


def unzipped(raw: Any) -> dict[str, str]:
    """A ?z= parameter -> the parameters it holds (key -> text); ConfigError in one sentence otherwise."""
    try:
        text = raw if isinstance(raw, str) else ""
        packed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        inflate = zlib.decompressobj(-15)
        data = inflate.decompress(packed, ZIPPED_MAX)
        if inflate.unconsumed_tail or not inflate.eof:
            raise ValueError("longer than ZIPPED_MAX, or cut short")
        obj = json.loads(data.decode("utf-8"))
    except (ValueError, binascii.Error, zlib.error, RecursionError):
        raise ConfigError(t(MESSAGES["zipped"])) from None
    if not isinstance(obj, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in obj.items()):
        raise ConfigError(t(MESSAGES["zipped"]))
    return obj
