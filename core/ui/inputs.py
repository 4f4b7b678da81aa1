"""Every value an event receives, checked against the control it is for, before Gradio's own reading of it.

Gradio answers a bad value in its own words: several paragraphs, the whole input echoed back, no field
name ("Value 9 is greater than maximum value 8."). These checks answer first, in one sentence that names
the field and quotes at most a short excerpt; text is cut to the lab's cap before Gradio keeps a copy of
it in the session.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

import gradio as gr

from core.config import ConfigError, Option, choices_text, excerpt, named
from core.lab.session import switch
from core.lab.text import KEPT_CHARS as TEXT_CAP
from core.lab.text import text_field


def check_inputs(block_fn: Any, inputs: list[Any], state: Any = None) -> list[Any]:
    """The event's raw values, each checked against its control (texts cut to TEXT_CAP); ConfigError otherwise."""
    blocks = list(block_fn.inputs)
    names = field_names(block_fn)
    if len(inputs) < len(blocks):
        sent = "1 value" if len(inputs) == 1 else f"{len(inputs)} values"
        raise ConfigError(f"this request sends {sent}, but the event takes {len(blocks)}: {', '.join(names)}")
    checked = list(inputs)
    props = set(getattr(block_fn, "component_prop_inputs", []) or [])
    for i, (block, name) in enumerate(zip(blocks, names, strict=True)):
        if i in props or getattr(block, "stateful", False):
            continue
        if state is not None and block._id in state:
            block = state[block._id]  # this session's copy: a slider whose range an event changed
        checked[i] = check_value(block, name, inputs[i])
    return checked


def check_value(block: Any, name: str, value: Any) -> Any:
    """One value against one control; returns it (text cut to TEXT_CAP) or raises ConfigError naming the field."""
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


def field_names(block_fn: Any) -> list[str]:
    """What to call each input in a sentence: the API's parameter name, else the control's label."""
    params = list(getattr(block_fn, "input_parameter_names", None) or [])
    names = []
    for i, block in enumerate(block_fn.inputs):
        param = params[i] if i < len(params) and not isinstance(block, gr.Dataset) else None  # Gradio's own fn
        names.append(param or _label(block) or f"input {i}")
    return names


def _label(block: Any) -> str:
    """A control's label up to its first explanation: "heads (n_heads; must divide d_model)" -> "heads"."""
    label = getattr(block, "label", None)
    if not isinstance(label, str):
        return getattr(block, "elem_id", None) or ""
    return label.split(" (")[0].split(":")[0].strip()


def unreadable(block_fn: Any, inputs: list[Any], exc: Exception) -> str:
    """Gradio's own "Could not preprocess input component at index N ..." as one sentence naming that field."""
    found = re.search(r"at index (\d+)", str(exc))
    names = field_names(block_fn)
    if found and int(found.group(1)) < len(names):
        i = int(found.group(1))
        return f"{named(names[i], inputs[i])} is not a value this control takes; send one like the page does"
    return "One of the values sent is not one the controls take; send them as the page does"


def options_json(spec: Iterable[Option], values: Iterable[Any]) -> str:
    """Control values (sliders send 4.0) in the Options' own types, as the API's options JSON."""
    return json.dumps({o.name: o.validate(v) for o, v in zip(spec, values, strict=True)})
