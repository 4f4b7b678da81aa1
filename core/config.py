"""Configuration of one attention layer: AttentionConfig, its variant's Options, and the one parser of them."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from .i18n import mark, t
from .mistakes import ConfigError, choices_text, excerpt, quoted
from .said import Said

OptionValue = Union[bool, int, float, str]


def divisors(n: int) -> list[int]:
    """All positive divisors of n, so an error can list the valid choices."""
    return [d for d in range(1, n + 1) if n % d == 0]


WRONG_TYPE = {  # the default's type -> the sentence for an option value of another type
    bool: mark("option {name}={value} has the wrong type; it takes true or false"),
    int: mark("option {name}={value} has the wrong type; it takes a whole number"),
    float: mark("option {name}={value} has the wrong type; it takes a number"),
    str: mark("option {name}={value} has the wrong type; it takes text"),
}
WRONG_KIND = mark("option {name}={value} has the wrong type; it takes a {kind}")  # (a default of no usual type)
RANGE = {  # (too small?, both bounds?) -> the sentence
    (True, True): mark("option {name}={value} is too small; choose a value from {low} to {high}"),
    (True, False): mark("option {name}={value} is too small; choose {low} or more"),
    (False, True): mark("option {name}={value} is too large; choose a value from {low} to {high}"),
    (False, False): mark("option {name}={value} is too large; choose {high} or less"),
}


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
        value, refused = self.refusal(value)
        if refused is not None:
            raise ConfigError(str(refused))
        return value

    def refusal(self, value: Any) -> tuple[Any, Said | None]:
        """value in the default's type, and why this option refuses it (None when it takes it)."""
        value, ok = self._coerce(value)
        if not ok:
            kind = type(self.default)
            return value, Said(WRONG_TYPE.get(kind, WRONG_KIND), name=self.name, value=quoted(value),
                               kind=kind.__name__)
        if isinstance(value, float) and not math.isfinite(value):
            return value, Said.t("option {name}={value} is not a number a layer can use; choose a finite value",
                               name=self.name, value=value)
        if self.choices is not None and value not in self.choices:
            return value, Said.t("option {name}={value} is not offered; choose {choices}", name=self.name,
                               value=quoted(value), choices=Listed(self.choices))
        too_small = self.minimum is not None and value < self.minimum
        if too_small or (self.maximum is not None and value > self.maximum):
            both = self.minimum is not None and self.maximum is not None
            return value, Said(RANGE[too_small, both], name=self.name, value=value, low=_g(self.minimum),
                               high=_g(self.maximum))
        return value, None

    def _coerce(self, value: Any) -> tuple[Any, bool]:
        """value in the default's type (a whole float for an int option), and whether it could be."""
        kind = type(self.default)
        if kind is bool:
            ok = isinstance(value, bool)
        elif kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
            if isinstance(value, float) and value.is_integer():
                value, ok = int(value), True
            elif isinstance(value, float) and not math.isfinite(value):
                ok = True  # refused by refusal() in its own sentence: not finite
        elif kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            value = float(value) if ok else value
        else:
            ok = isinstance(value, kind)
        return value, ok

    @property
    def fits_a_slider(self) -> bool:
        """A number with both bounds and at most 64 steps between them: a slider shows it best."""
        if isinstance(self.default, bool) or not isinstance(self.default, (int, float)):
            return False
        return self.minimum is not None and self.maximum is not None and self.maximum - self.minimum <= 64


def _g(bound: float | None) -> str:
    return "" if bound is None else f"{bound:g}"


class Listed:
    """Values to list in a Said's sentence: "1, 2 or 4", in the language of whoever reads it (choices_text)."""

    def __init__(self, values: Iterable[Any]) -> None:
        self.values = tuple(values)

    def __str__(self) -> str:
        return choices_text(self.values)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


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
                raise ConfigError(t("{name}={value} must be a whole number", name=name, value=repr(value)))
        for name in ("causal", "scaled", "bias"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(t("{name}={value} must be true or false", name=name, value=repr(getattr(self, name))))
        for name in ("d_model", "n_heads"):
            if getattr(self, name) < 1:
                raise ConfigError(t("{name}={value} is too small; choose {low} or more", name=name,
                                    value=getattr(self, name), low=1))
        if self.d_model % self.n_heads:
            raise ConfigError(t("{name}={value} does not divide {other}={total}; choose {choices}", name="n_heads",
                                value=self.n_heads, other="d_model", total=self.d_model,
                                choices=choices_text(divisors(self.d_model))))
        if not isinstance(self.dropout, (int, float)) or isinstance(self.dropout, bool):
            raise ConfigError(t("{name}={value} must be a number from 0 up to (not including) 1", name="dropout",
                                value=repr(self.dropout)))
        if not 0 <= self.dropout < 1:
            raise ConfigError(t("{name}={value} is out of range; choose a value from 0 up to (not including) 1",
                                name="dropout", value=self.dropout))
        if not isinstance(self.options, Mapping):
            raise ConfigError(t("{name}={value} must be a mapping of option names to values", name="options",
                                value=repr(self.options)))
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
        if unknown and spec:
            raise ConfigError(t("unknown option {name}; this variant takes {allowed}", name=excerpt(unknown[0]),
                                allowed=choices_text(sorted(spec))))
        if unknown:
            raise ConfigError(t("unknown option {name}; this variant takes none (this variant has no options)",
                                name=excerpt(unknown[0])))
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
            raise ConfigError(t("options must be a JSON object such as {example}", example=OPTIONS_EXAMPLE))
        return value
    options: dict[str, Any] = {}
    for item in spec:
        key, sep, raw = str(item).partition("=")
        if not sep or not key.strip():
            raise ConfigError(t("option {item} must look like KEY=VALUE, e.g. window=3", item=excerpt(str(item))))
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


def _short(text: str, limit: int = 80) -> str:
    """A plugin's own value, quoted in a sentence: at most `limit` characters."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def option_problem(options: Iterable[Any]) -> Said | None:
    """Why a variant's option list cannot become controls (None when it can): the one check of Option lists.

    A predicate about the variant ("has option window with ..."), said when it is shown (a plugin's load error
    outlives the request that loaded it)."""
    options = list(options)
    names = [getattr(o, "name", None) for o in options]
    for o in options:
        if not isinstance(o, Option) or not isinstance(o.name, str) or not o.name.isidentifier():
            return Said.t("has an option {option} that is not an Option with an identifier for a name",
                        option=_short(repr(o)))
    if len(set(names)) != len(names):
        return Said.t("repeats an option name: {names}", names=_short(repr(names)))
    for o in options:
        if o.minimum is not None and o.maximum is not None and o.minimum > o.maximum:
            return Said.t("has option {name} with minimum {low} above maximum {high}", name=o.name,
                        low=o.minimum, high=o.maximum)
        for bound in (o.minimum, o.maximum):
            if bound is not None and (isinstance(bound, bool) or not isinstance(bound, (int, float))
                                      or not math.isfinite(bound)):
                return Said.t("has option {name} with a bound {bound} that is not a finite number", name=o.name,
                            bound=_short(repr(bound)))
        if o.choices is not None:
            if not o.choices or any(type(c) is not type(o.default) for c in o.choices):
                return Said.t("has option {name} whose choices are not all of its default's type", name=o.name)
            if len(set(o.choices)) != len(o.choices):
                return Said.t("has option {name} that repeats a choice: {choices}", name=o.name,
                            choices=_short(repr(list(o.choices))))
        try:
            refused: Said | str | None = o.refusal(o.default)[1]
        except TypeError as exc:  # a bound compared with a default of another type: Python's words
            refused = str(exc)
        if refused is not None:
            return Said.t("has a default its own option refuses: {problem}", problem=refused)
    return None
