"""Every value an event receives, checked against the control it is for, before Gradio's own reading of it
(by core/ui/blocks_seams.py, which hands each value to check_value).

Gradio answers a bad value in its own words: several paragraphs, the whole input echoed back, no field
name ("Value 9 is greater than maximum value 8."). These checks answer first, in one sentence that names
the field and quotes at most a short excerpt; text is cut to the lab's cap before Gradio keeps a copy of
it in the session.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import gradio as gr

from core.config import ConfigError, Option, choices_text, excerpt, named
from core.i18n import mark, t
from core.lab.session import switch
from core.lab.text import KEPT_CHARS as TEXT_CAP
from core.lab.text import text_field

MAX_NESTING = 32  # levels of lists, objects (or their brackets in a text) any value may have: the lab's take 2
MAX_ITEMS = 100_000  # values in one input, all levels together
MESSAGES = {
    "nested": mark("{name} nests {depth} levels deep; the lab reads at most {most}, so send it as the page does"),
    "deep": mark("{name} nests lists or objects more than {most} levels deep; send it as the page does"),
    "items": mark("{name} holds more than {most:,} values; send it as the page does"),
}


def bounded(name: str, value: Any) -> None:
    """Any input's shape, whatever its control: at most MAX_NESTING levels of lists and objects, and in a text at most
    MAX_NESTING open brackets ([ or {), so no handler's JSON reader recurses past Python's limit (a RecursionError
    would be the apology, not a sentence); at most MAX_ITEMS values. ConfigError naming the field otherwise."""
    if isinstance(value, str):
        depth = deepest = 0
        for ch in value:
            if ch in "[{":
                depth += 1
                deepest = max(deepest, depth)
            elif ch in "]}":
                depth = max(depth - 1, 0)
        if deepest > MAX_NESTING:
            raise ConfigError(t(MESSAGES["nested"], name=name, depth=f"{deepest:,}", most=MAX_NESTING))
        return
    if not isinstance(value, (list, tuple, dict)):
        return
    level, items, deepest = [value], 0, 1
    while level:  # breadth first, one level at a time: no recursion
        deeper = []
        for v in level:
            children = v.values() if isinstance(v, dict) else v
            items += len(children)
            if items > MAX_ITEMS:
                raise ConfigError(t(MESSAGES["items"], name=name, most=MAX_ITEMS))
            deeper += [c for c in children if isinstance(c, (list, tuple, dict))]
        if deeper:
            deepest += 1
            if deepest > MAX_NESTING:
                raise ConfigError(t(MESSAGES["deep"], name=name, most=MAX_NESTING))
        level = deeper


def check_value(block: Any, name: str, value: Any) -> Any:
    """One value against one control; returns it (text cut to TEXT_CAP) or raises ConfigError naming the field."""
    bounded(name, value[:TEXT_CAP] if isinstance(value, str) else value)
    if isinstance(block, gr.Dataset):  # a click on one of the examples: its index
        count = len(block.samples or [])
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
            raise ConfigError(f"{named(name, value)} is not one of the {count} examples; choose one from the list")
        return value
    if value is None:
        return value  # an empty control: the handler says what it needs
    if isinstance(block, (gr.Slider, gr.Number)):
        return _number(block, name, value)
    if isinstance(block, gr.Checkbox):
        return switch(name, value)  # the library's own check (make_request's), one sentence for both
    if isinstance(block, (gr.Dropdown, gr.Radio)):
        return _choice(block, name, value)
    if isinstance(block, gr.Textbox):
        return text_field(name, value)[:TEXT_CAP]
    return value


def _number(block: Any, name: str, value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{named(name, value)} must be a number")
    if value != value or value in (float("inf"), float("-inf")):
        raise ConfigError(f"{name}={value} must be a finite number")
    low, high = block.minimum, block.maximum
    if (low is not None and value < low) or (high is not None and value > high):
        raise ConfigError(f"{named(name, value)} is out of range; {_range(low, high)}")
    return value


def _range(low: Any, high: Any) -> str:
    if low is not None and high is not None:
        return f"choose {low:g} to {high:g}"
    if low is not None:
        return f"choose {low:g} or more"
    return f"choose {high:g} or less"


def _choice(block: Any, name: str, value: Any) -> Any:
    values = [v for _, v in block.choices]
    if isinstance(block, gr.Dropdown) and block.allow_custom_value:
        if isinstance(value, str):
            return text_field(name, value)[:TEXT_CAP]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{named(name, value)} must be text")
        return value
    if isinstance(value, (str, int, float)) and not isinstance(value, bool) and value in values:
        return value
    shown = [excerpt(v, 20) if isinstance(v, str) else str(v) for v in values[:8]]
    more = " or another listed choice" if len(values) > len(shown) else ""
    raise ConfigError(f"{named(name, value)} is not one of the choices; choose {choices_text(shown)}{more}")


def options_json(spec: Iterable[Option], values: Iterable[Any]) -> str:
    """Control values (sliders send 4.0) in the Options' own types, as the API's options JSON."""
    return json.dumps({o.name: o.validate(v) for o, v in zip(spec, values, strict=True)})
