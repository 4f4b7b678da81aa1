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

from core.config import Option
from core.i18n import mark, t
from core.lab.session import switch
from core.lab.text import KEPT_CHARS as TEXT_CAP
from core.lab.text import text_field
from core.mistakes import OUT_OF_RANGE, ConfigError, about, choices_text, excerpt
from core.serve.limits import bounded

# Each sentence twice: about a value as typed ({name}={value}), and about one described ({name} ({value})).
EXAMPLES = (mark("{name}={value} is not one of the {count} examples; choose one from the list"),
            mark("{name} ({value}) is not one of the {count} examples; choose one from the list"))
NUMBER = (mark("{name}={value} must be a number"), mark("{name} ({value}) must be a number"))
AT_LEAST = (mark("{name}={value} is out of range; choose {low} or more"),
            mark("{name} ({value}) is out of range; choose {low} or more"))
AT_MOST = (mark("{name}={value} is out of range; choose {high} or less"),
           mark("{name} ({value}) is out of range; choose {high} or less"))
TEXT = (mark("{name}={value} must be text"), mark("{name} ({value}) must be text"))
CHOICES = (mark("{name}={value} is not one of the choices; choose {choices}"),
           mark("{name} ({value}) is not one of the choices; choose {choices}"))
MORE_CHOICES = (mark("{name}={value} is not one of the choices; choose {choices} or another listed choice"),
                mark("{name} ({value}) is not one of the choices; choose {choices} or another listed choice"))


def check_value(block: Any, name: str, value: Any) -> Any:
    """One value against one control; returns it (text cut to TEXT_CAP) or raises ConfigError naming the field."""
    bounded(name, value[:TEXT_CAP] if isinstance(value, str) else value)
    if isinstance(block, gr.Dataset):  # a click on one of the examples: its index
        count = len(block.samples or [])
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
            raise ConfigError(about(name, value, EXAMPLES, count=count))
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
        raise ConfigError(about(name, value, NUMBER))
    if value != value or value in (float("inf"), float("-inf")):
        raise ConfigError(t("{name}={value} must be a finite number", name=name, value=value))
    low, high = block.minimum, block.maximum
    if (low is not None and value < low) or (high is not None and value > high):
        sentence = OUT_OF_RANGE if low is not None and high is not None else AT_LEAST if low is not None else AT_MOST
        raise ConfigError(about(name, value, sentence, low=_g(low), high=_g(high)))
    return value


def _g(bound: Any) -> str:
    return "" if bound is None else f"{bound:g}"


def _choice(block: Any, name: str, value: Any) -> Any:
    values = [v for _, v in block.choices]
    if isinstance(block, gr.Dropdown) and block.allow_custom_value:
        if isinstance(value, str):
            return text_field(name, value)[:TEXT_CAP]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(about(name, value, TEXT))
        return value
    if isinstance(value, (str, int, float)) and not isinstance(value, bool) and value in values:
        return value
    shown = [excerpt(v, 20) if isinstance(v, str) else str(v) for v in values[:8]]
    sentence = MORE_CHOICES if len(values) > len(shown) else CHOICES
    raise ConfigError(about(name, value, sentence, choices=choices_text(shown)))


def options_json(spec: Iterable[Option], values: Iterable[Any]) -> str:
    """Control values (sliders send 4.0) in the Options' own types, as the API's options JSON."""
    return json.dumps({o.name: o.validate(v) for o, v in zip(spec, values, strict=True)})
