"""The one way a tab publishes its public endpoint: gr.api (documented), no hidden button.

A tab names its endpoint's function, the controls whose checks its parameters take (core/ui/inputs.py: the same
sentence a page's event gets, one place for both) and the components its outputs are read as: the endpoint
returns each value as that component sends it (Component.postprocess), so a script sees what it always saw.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import gradio as gr

CHECKED = "checked_against"  # the attribute core/ui/blocks_seams.py reads: the controls each value is checked by
SENT_AS = "sent_as"  # the components its outputs are sent as (what each is: a view, words, JSON)


def python_type(block: Any) -> type:
    """The JSON type a parameter or an output has, from the control it stands for (the API page's types)."""
    if isinstance(block, gr.Checkbox):
        return bool
    if isinstance(block, gr.Number):
        return int if block.precision == 0 else float
    if isinstance(block, gr.Dataset):  # an example's index
        return int
    if isinstance(block, gr.Slider):
        return int if block.step and float(block.step).is_integer() else float
    if isinstance(block, (gr.Dropdown, gr.Radio)):
        values = [v for _, v in block.choices]
        return type(values[0]) if values and all(type(v) is type(values[0]) for v in values) else str
    if isinstance(block, (gr.Textbox, gr.Markdown)):
        return str
    return dict


def sent(block: Any, value: Any) -> Any:
    """A value as the component sends it to a page or a script (its postprocess, then plain JSON)."""
    out = block.postprocess(value)
    return out.model_dump() if hasattr(out, "model_dump") else out


def publish(fn: Callable, api_name: str, controls: Sequence[Any], outputs: Sequence[Any], **kwargs: Any) -> Callable:
    """gr.api(fn) under `api_name`: its parameters (fn's names; its defaults, else the controls' first values) checked
    as `controls` check them, its outputs sent as `outputs` send them. Returns the published function."""
    params = list(inspect.signature(fn).parameters.values())
    if len(params) != len(controls):
        raise TypeError(f"{api_name}: {len(params)} parameters, {len(controls)} controls")
    many = len(outputs) != 1

    @functools.wraps(fn)
    def endpoint(*args: Any, **kw: Any) -> Any:
        values = fn(*args, **kw)
        shown = tuple(sent(b, v) for b, v in zip(outputs, values if many else (values,), strict=True))
        return shown if many else shown[0]

    returns = tuple[tuple(python_type(b) for b in outputs)] if many else python_type(outputs[0])  # type: ignore[misc]
    endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [p.replace(annotation=python_type(c), default=c.value if p.default is p.empty else p.default)
         for p, c in zip(params, controls, strict=True)],  # (no default of its own: the control's first value)
        return_annotation=returns)
    endpoint.__annotations__ = {**{p.name: python_type(c) for p, c in zip(params, controls, strict=True)},
                                "return": returns}
    del endpoint.__wrapped__  # (its own signature, not fn's: typed for the API page)
    setattr(endpoint, CHECKED, list(controls))
    setattr(endpoint, SENT_AS, list(outputs))
    gr.api(endpoint, api_name=api_name, **kwargs)
    return endpoint
