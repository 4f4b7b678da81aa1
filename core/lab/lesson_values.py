"""One state value of a lesson step, read from its text against its key (core.lab.lesson_keys.KEYS).

A value a key cannot take is a Mistake: the sentence's msgid and fields, placed at its file and line by the parser
(core.lab.lesson_format) and said in the reader's language when it is shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..i18n import mark
from ..mistakes import excerpt
from .lesson_errors import Mistake
from .lesson_keys import KEYS

MAX_TEXT = 4096
OPTIONS_EXAMPLE = '{"window": 3}'
MESSAGES = {
    "no_key": mark("{name} is not a state key; the keys are {keys}"),
    "text": mark("{name} needs a text of 1 to {most} characters"),
    "bool": mark("{name} is true or false, not {value}"),
    "int": mark("{name} is a whole number, not {value}"),
    "range": mark("{name} is a whole number from {low} to {high}, not {value}"),
    "choice": mark("{name} is one of {choices}, not {value}"),
    "variant": mark("variant {value} is not registered; the variants are {variants}"),
    "json": mark("{name} is a JSON object such as {example}, not {value}"),
}


@dataclass(frozen=True)
class Known(Mapping):
    """The variants a lesson may name (name -> Variant), and those whose build() may run in this process to check a
    step's settings: the built-ins (a plugin's build() runs only in its worker; its Options say what it takes)."""

    variants: Mapping[str, Any]
    trusted: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, registry: Any) -> Known:
        plugins = dict(getattr(registry, "plugins", {}) or {})
        variants = dict(getattr(registry, "variants", {}) or {})
        built_in = {n for n, v in variants.items() if getattr(plugins.get(getattr(v, "plugin", "")), "builtin", False)}
        return cls(variants, frozenset(built_in))

    def __getitem__(self, name: str) -> Any:
        return self.variants[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.variants)

    def __len__(self) -> int:
        return len(self.variants)


Variants = Known | Mapping[str, Any] | set[str] | None  # the registry's variants (name -> Variant), or their names


def _bool(text: str) -> bool | None:
    return {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}.get(text.lower())


def value(name: str, text: str, variants: Variants = None) -> Any:
    """One state value from its text; Mistake (the sentence's end) when it is not one the key takes."""
    spec = KEYS.get(name)
    if spec is None:
        raise Mistake(MESSAGES["no_key"], name=repr(name), keys=", ".join(KEYS))
    if spec.kind == "text":
        if not text or len(text) > MAX_TEXT:
            raise Mistake(MESSAGES["text"], name=name, most=MAX_TEXT)
        return text
    if spec.kind == "bool":
        b = _bool(text)
        if b is None:
            raise Mistake(MESSAGES["bool"], name=name, value=excerpt(text))
        return b
    if spec.kind == "int":
        if not re.fullmatch(r"-?\d{1,12}", text):
            raise Mistake(MESSAGES["int"], name=name, value=excerpt(text))
        n = int(text)
        if not spec.minimum <= n <= spec.maximum:
            raise Mistake(MESSAGES["range"], name=name, low=spec.minimum, high=spec.maximum, value=n)
        return n
    if spec.kind == "choice":
        for choice in spec.choices:
            if text == str(choice):
                return choice
        raise Mistake(MESSAGES["choice"], name=name, choices=", ".join(map(str, spec.choices)), value=excerpt(text))
    if spec.kind == "variant":
        if variants is not None and text not in variants:
            raise Mistake(MESSAGES["variant"], value=excerpt(text), variants=", ".join(sorted(variants)))
        return text
    if spec.kind == "json":
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):  # (a line of 100,000 brackets: too deep for any reader)
            obj = None
        if not isinstance(obj, dict):
            raise Mistake(MESSAGES["json"], name=name, example=OPTIONS_EXAMPLE, value=excerpt(text))
        return obj
    items = tuple(p.strip() for p in text.split(",") if p.strip())  # "list"
    return items
