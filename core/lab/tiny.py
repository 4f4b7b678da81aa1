"""The shipped tiny model, loaded once per process."""

from __future__ import annotations

from functools import lru_cache

from ..corpus import Tokenizer
from ..model import GPT, load_tiny


@lru_cache(maxsize=1)
def tiny() -> tuple[GPT, Tokenizer]:
    """The shipped model, loaded once per process."""
    return load_tiny()
