"""The sentence a person's mistake becomes (in the reader's language): ConfigError, and the value they sent quoted.

Every layer refuses a field with these (whole, whole_in, named, about, excerpt), not only the layer's configuration,
so a value is quoted one way wherever it is said. core.config imports this module, so this one never imports it back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .i18n import mark, t
from .said import Said


class ConfigError(ValueError):
    """A setting a person chose is invalid; the message is one sentence naming the field."""


def choices_text(values: Iterable[Any]) -> str:
    """Join allowed values the way a person would say them: "1, 2 or 4" (in the reader's language)."""
    items = [str(v) for v in values]
    if len(items) <= 1:
        return "".join(items)
    head = items[0]
    for item in items[1:-1]:
        head = t("{first}, {second}", first=head, second=item)
    return t("{items} or {last}", items=head, last=items[-1])


# A sentence about a value a person sent for a field: the first msgid quotes the value as they typed it
# ({name}={value}), the second describes a value nobody types ({name} ({value}): a list of 2 items, a long number).
WHOLE = (mark("{name}={value} must be a whole number"), mark("{name} ({value}) must be a whole number"))
OUT_OF_RANGE = (mark("{name}={value} is out of range; choose {low} to {high}"),
                mark("{name} ({value}) is out of range; choose {low} to {high}"))


def quoted(value: Any, limit: int = 40) -> str | Said:
    """A value as an error may quote it (see excerpt), kept as a Said when it is described in words."""
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return repr(value) if value.bit_length() <= 64 else Said.t("a number with more than 19 digits")
    if isinstance(value, str):
        text = value if len(value) <= limit else value[:limit] + "…"
        return repr(text.encode("utf-8", "backslashreplace").decode("utf-8"))  # lone surrogates shown, not raised
    if isinstance(value, (list, tuple, dict, set)):
        return Said.t_n("a {kind} of {n} item", "a {kind} of {n} items", len(value), kind=type(value).__name__)
    return Said.t("a {kind}", kind=type(value).__name__)


def excerpt(value: Any, limit: int = 40) -> str:
    """A value as an error may quote it: short (a pasted book is not echoed back), never raising; a value nobody
    types (a list, a number of 400 digits) described in the reader's language."""
    return str(quoted(value, limit))


def named(name: str, value: Any) -> str:
    """'seed=3.5', or 'seed (a list of 2 items)' when the value is not one a person typed."""
    text = quoted(value)
    return t("{name} ({value})", name=name, value=text) if isinstance(text, Said) else f"{name}={text}"


def about(name: str, value: Any, sentence: tuple[str, str], **fields: Any) -> str:
    """One sentence about the value sent for a field, in the reader's language: sentence[0] ({name}={value} ...)
    quotes a value a person typed, sentence[1] ({name} ({value}) ...) describes one nobody types."""
    text = quoted(value)
    return t(sentence[isinstance(text, Said)], name=name, value=text, **fields)


def whole(name: str, value: Any) -> int:
    """A whole number from a UI/API value (sliders send 4.0, dropdowns may send "16"); ConfigError naming the field."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise ConfigError(t(WHOLE[0], name=name, value=excerpt(value, 20))) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not float(value).is_integer():
        raise ConfigError(about(name, value, WHOLE))
    return int(value)


def whole_in(name: str, value: Any, low: int, high: int) -> int:
    """whole(), and from low to high; ConfigError naming the field and the range otherwise."""
    if isinstance(value, int) and not isinstance(value, bool) and not low <= value <= high:
        raise ConfigError(about(name, value, OUT_OF_RANGE, low=low, high=high))
    if isinstance(value, float) and value == value and abs(value) > 2.0**62:  # inf, or far past any range here
        raise ConfigError(t(OUT_OF_RANGE[0], name=name, value=format(value, "g"), low=low, high=high))
    number = whole(name, value)
    if not low <= number <= high:
        raise ConfigError(t(OUT_OF_RANGE[0], name=name, value=number, low=low, high=high))
    return number
