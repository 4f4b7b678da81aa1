"""Configuration of one attention layer, and the errors a person can make with it."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

OptionValue = Union[bool, int, float, str]


class ConfigError(ValueError):
    """A setting a person chose is invalid; the message is one sentence naming the field."""


def choices_text(values: Iterable[Any]) -> str:
    """Join allowed values the way a person would say them: "1, 2 or 4"."""
    items = [str(v) for v in values]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]


def divisors(n: int) -> list[int]:
    """All positive divisors of n, so an error can list the valid choices."""
    return [d for d in range(1, n + 1) if n % d == 0]


def _type_name(value: Any) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text"}.get(
        type(value), type(value).__name__
    )


@dataclass(frozen=True)
class Option:
    """A variant-specific knob; the app builds one control from each."""

    name: str
    default: OptionValue
    minimum: float | None = None
    maximum: float | None = None
    help: str = ""
    choices: tuple[OptionValue, ...] | None = None  # the only values allowed (a dropdown); None = any in range

    def __post_init__(self) -> None:
        if self.choices is not None and not isinstance(self.choices, tuple):
            object.__setattr__(self, "choices", tuple(self.choices))  # frozen and hashable, a list works too

    def validate(self, value: Any) -> OptionValue:
        """Return value coerced to the default's type, or raise ConfigError naming this option."""
        value = self._coerce(value)
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"option {self.name}={value} is not a number a layer can use; choose a finite value")
        if self.choices is not None and value not in self.choices:
            raise ConfigError(f"option {self.name}={value!r} is not offered; choose {choices_text(self.choices)}")
        if self.minimum is not None and value < self.minimum:
            raise ConfigError(f"option {self.name}={value} is too small; {self._range()}")
        if self.maximum is not None and value > self.maximum:
            raise ConfigError(f"option {self.name}={value} is too large; {self._range()}")
        return value

    def _coerce(self, value: Any) -> OptionValue:
        """value in the default's type (a whole float for an int option), or ConfigError."""
        kind = type(self.default)
        if kind is bool:
            ok = isinstance(value, bool)
        elif kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
            if isinstance(value, float) and value.is_integer():
                value, ok = int(value), True
            elif isinstance(value, float) and not math.isfinite(value):
                ok = True  # refused by validate in its own sentence: not finite
        elif kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            value = float(value) if ok else value
        else:
            ok = isinstance(value, kind)
        if not ok:
            raise ConfigError(
                f"option {self.name}={value!r} has the wrong type; it takes {_type_name(self.default)}"
            )
        return value

    @property
    def fits_a_slider(self) -> bool:
        """A number with both bounds and at most 64 steps between them: a slider shows it best."""
        if isinstance(self.default, bool) or not isinstance(self.default, (int, float)):
            return False
        return self.minimum is not None and self.maximum is not None and self.maximum - self.minimum <= 64

    def _range(self) -> str:
        if self.minimum is not None and self.maximum is not None:
            return f"choose a value from {self.minimum:g} to {self.maximum:g}"
        if self.minimum is not None:
            return f"choose {self.minimum:g} or more"
        return f"choose {self.maximum:g} or less"


class FrozenOptions(dict):
    """A dict that refuses changes, so a frozen config stays frozen (and still pickles and hashes)."""

    def _read_only(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("AttentionConfig.options is read-only; use config.replace(options=...)")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _read_only

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))

    def __reduce__(self) -> tuple:
        return (FrozenOptions, (dict(self),))

    def __deepcopy__(self, memo: dict) -> FrozenOptions:
        return self


@dataclass(frozen=True)
class AttentionConfig:
    """Everything one attention layer needs; frozen so it can key caches."""

    d_model: int = 16
    n_heads: int = 2
    causal: bool = True
    scaled: bool = True
    dropout: float = 0.0
    bias: bool = True
    options: Mapping[str, OptionValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("d_model", "n_heads"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"{name}={value!r} must be a whole number")
        for name in ("causal", "scaled", "bias"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name}={getattr(self, name)!r} must be true or false")
        if self.d_model < 1:
            raise ConfigError(f"d_model={self.d_model} is too small; choose 1 or more")
        if self.n_heads < 1:
            raise ConfigError(f"n_heads={self.n_heads} is too small; choose 1 or more")
        if self.d_model % self.n_heads:
            raise ConfigError(
                f"n_heads={self.n_heads} does not divide d_model={self.d_model}; "
                f"choose {choices_text(divisors(self.d_model))}"
            )
        if not isinstance(self.dropout, (int, float)) or isinstance(self.dropout, bool):
            raise ConfigError(f"dropout={self.dropout!r} must be a number from 0 up to (not including) 1")
        if not 0 <= self.dropout < 1:
            raise ConfigError(f"dropout={self.dropout} is out of range; choose a value from 0 up to (not including) 1")
        if not isinstance(self.options, Mapping):
            raise ConfigError(f"options={self.options!r} must be a mapping of option names to values")
        object.__setattr__(self, "options", FrozenOptions(self.options))

    @property
    def head_dim(self) -> int:
        """Width of one head: d_model split evenly across the heads."""
        return self.d_model // self.n_heads

    def replace(self, **changes: Any) -> AttentionConfig:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def with_options(self, spec: Iterable[Option]) -> AttentionConfig:
        """Check options against a variant's Option list and fill in the defaults."""
        spec = {o.name: o for o in spec}
        unknown = sorted(set(self.options) - set(spec))
        if unknown:
            allowed = choices_text(sorted(spec)) if spec else "none (this variant has no options)"
            raise ConfigError(f"unknown option {unknown[0]!r}; this variant takes {allowed}")
        resolved = {name: o.validate(self.options.get(name, o.default)) for name, o in spec.items()}
        return self.replace(options=resolved)



OPTIONS_EXAMPLE = '{"window": 3}'


def parse_options(spec: str | Mapping[str, Any] | Iterable[str] | None) -> dict[str, Any]:
    """Options as a person writes them: a JSON object ('{"window": 3}', the API) or KEY=VALUE items (the CLI).

    Values are only parsed here; the variant's Options validate and coerce them (Option.validate).
    """
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        return {}
    if isinstance(spec, Mapping):
        return dict(spec)
    if isinstance(spec, str):
        try:
            value = json.loads(spec)
        except (TypeError, ValueError):
            value = None
        if not isinstance(value, dict):
            raise ConfigError(f"options must be a JSON object such as {OPTIONS_EXAMPLE}")
        return value
    options: dict[str, Any] = {}
    for item in spec:
        key, sep, raw = str(item).partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"option {str(item)[:40]!r} must look like KEY=VALUE, e.g. window=3")
        options[key.strip()] = _scalar(raw.strip())
    return options


def _scalar(raw: str) -> OptionValue:
    """'3' -> 3, '0.5' -> 0.5, 'true' -> True; anything else stays text."""
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            continue
    return raw


def option_problem(options: Iterable[Any]) -> str | None:
    """Why a variant's option list cannot become controls (None when it can): the one check of Option lists."""
    options = list(options)
    names = [getattr(o, "name", None) for o in options]
    for o in options:
        if not isinstance(o, Option) or not isinstance(o.name, str) or not o.name.isidentifier():
            return f"has an option {o!r} that is not an Option with an identifier for a name"
    if len(set(names)) != len(names):
        return f"repeats an option name: {names}"
    for o in options:
        if o.minimum is not None and o.maximum is not None and o.minimum > o.maximum:
            return f"has option {o.name} with minimum {o.minimum} above maximum {o.maximum}"
        for bound in (o.minimum, o.maximum):
            if bound is not None and (isinstance(bound, bool) or not isinstance(bound, (int, float))
                                      or not math.isfinite(bound)):
                return f"has option {o.name} with a bound {bound!r} that is not a finite number"
        if o.choices is not None:
            if not o.choices or any(type(c) is not type(o.default) for c in o.choices):
                return f"has option {o.name} whose choices are not all of its default's type"
            if len(set(o.choices)) != len(o.choices):
                return f"has option {o.name} that repeats a choice: {list(o.choices)}"
        try:
            o.validate(o.default)
        except (ConfigError, TypeError) as exc:
            return f"has a default its own option refuses: {exc}"
    return None


def excerpt(value: Any, limit: int = 40) -> str:
    """A value as an error may quote it: short (a pasted book is not echoed back), never raising."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return repr(value) if value.bit_length() <= 64 else "a number with more than 19 digits"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        text = value if len(value) <= limit else value[:limit] + "…"
        return repr(text.encode("utf-8", "backslashreplace").decode("utf-8"))  # lone surrogates shown, not raised
    if isinstance(value, (list, tuple, dict, set)):
        return f"a {type(value).__name__} of {len(value)} item{'s' if len(value) != 1 else ''}"
    return f"a {type(value).__name__}"


def named(name: str, value: Any) -> str:
    """'seed=3.5', or 'seed (a list of 2 items)' when the value is not one a person typed."""
    text = excerpt(value)
    return f"{name} ({text})" if text.startswith("a ") else f"{name}={text}"


def whole(name: str, value: Any) -> int:
    """A whole number from a UI/API value (sliders send 4.0, dropdowns may send "16"); ConfigError naming the field."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise ConfigError(f"{name}={excerpt(value, 20)} must be a whole number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not float(value).is_integer():
        raise ConfigError(f"{named(name, value)} must be a whole number")
    return int(value)


def whole_in(name: str, value: Any, low: int, high: int) -> int:
    """whole(), and from low to high; ConfigError naming the field and the range otherwise."""
    if isinstance(value, int) and not isinstance(value, bool) and not low <= value <= high:
        raise ConfigError(f"{named(name, value)} is out of range; choose {low} to {high}")
    if isinstance(value, float) and value == value and abs(value) > 2.0**62:  # inf, or far past any range here
        raise ConfigError(f"{name}={value:g} is out of range; choose {low} to {high}")
    number = whole(name, value)
    if not low <= number <= high:
        raise ConfigError(f"{name}={number} is out of range; choose {low} to {high}")
    return number
