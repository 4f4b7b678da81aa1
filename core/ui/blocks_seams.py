"""The Gradio internals of events (Blocks' data hooks, BlockFunction fields, LocalContext, the queue's analytics).

Part of the one door, core/ui/gradio_seams.py, which re-exports everything here; tests/test_gradio_seams.py
exercises each seam against the pinned Gradio and fails naming the internal that moved.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import gradio as gr
from gradio.context import LocalContext

from core.i18n import mark, t, t_n
from core.mistakes import ConfigError, about

from . import i18n
from .common import CPU_GROUP, Refused, one_sentence, sentence_of
from .endpoints import CHECKED
from .inputs import check_value

log = logging.getLogger("attention_lab.ui")


# --- 7. One sentence per event, in the page's language (Blocks.preprocess_data, .postprocess_data, .process_api) ---
# Documented: an event's gr.Error reaches the page as a toast; any other exception as "Error" (show_error=False).
# Gradio answers a bad value in several paragraphs echoing the whole input, with no field name; a ConfigError
# or a bug raised outside a handler (Gradio's own reading of a value) would be "Error". Here each value is checked
# against its control first (core/ui/inputs.py: one sentence naming the field), and every
# failure becomes the sentence core.ui.common.sentence_of says (tests/test_app_errors.py, test_i18n_mistakes.py):
# every sentence is made in the request's language where it is made, under the language process_api sets.

class LabBlocks(gr.Blocks):
    """gr.Blocks whose every event answers a person in one sentence, in the page's language."""

    async def preprocess_data(self, block_fn, inputs, state, explicit_call=False):
        try:
            inputs = check_inputs(block_fn, inputs, state)
        except ConfigError as exc:
            if getattr(block_fn.fn, "never_raises", False):  # unqueued: its handler says the sentence
                return [Refused(one_sentence(str(exc))) for _ in block_fn.inputs]
            raise
        try:
            return await super().preprocess_data(block_fn, inputs, state, explicit_call)
        except gr.Error:
            raise
        except Exception as exc:  # a control these checks do not know, reading a value it cannot take
            raise gr.Error(html.escape(unreadable(block_fn, inputs, exc), quote=False), print_exception=False) from None

    async def process_api(self, *args, **kwargs):
        with i18n.speaking(i18n.locale_of(kwargs.get("request"))):  # the page's language, for every sentence
            try:
                return await super().process_api(*args, **kwargs)
            except Exception as exc:  # a mistake's sentence, or a bug's apology (logged): the app keeps serving
                sentence = html.escape(sentence_of(exc, "an event"), quote=False)
                if isinstance(exc, gr.Error) and sentence == exc.message:
                    raise
                raise gr.Error(sentence, print_exception=False) from None


# What the hooks of 7. read of Gradio's BlockFunction (inputs, outputs, component_prop_inputs,
# input_parameter_names), of a block (_id, stateful), of the session's state and of its error text ("at index N").

def check_inputs(block_fn: Any, inputs: list[Any], state: Any = None) -> list[Any]:
    """The event's raw values, each checked against its control (texts cut to TEXT_CAP); ConfigError otherwise."""
    blocks = list(block_fn.inputs)
    names = field_names(block_fn)
    controls = getattr(getattr(block_fn, "fn", None), CHECKED, None)  # a gr.api endpoint: its controls
    if len(inputs) < len(blocks):
        raise ConfigError(t_n("this request sends {n} value, but the event takes {count}: {names}",
                              "this request sends {n} values, but the event takes {count}: {names}", len(inputs),
                              count=len(blocks), names=", ".join(names)))
    checked = list(inputs)
    props = set(getattr(block_fn, "component_prop_inputs", []) or [])
    for i, (block, name) in enumerate(zip(blocks, names, strict=True)):
        if i in props or getattr(block, "stateful", False):
            continue
        if controls is not None:
            block = controls[i]
        elif state is not None and block._id in state:
            block = state[block._id]  # this session's copy: a slider whose range an event changed
        checked[i] = check_value(block, name, inputs[i])
    return checked


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
    label = i18n.english(getattr(block, "label", None))  # a localized label's English ("window", not an elem_id)
    if not isinstance(label, str):
        return getattr(block, "elem_id", None) or ""
    return label.split(" (")[0].split(":")[0].strip()


def inside(block: Any) -> list[Any]:
    """A block and everything laid out in it."""
    return [block, *(b for child in getattr(block, "children", []) for b in inside(child))]


def unreadable(block_fn: Any, inputs: list[Any], exc: Exception) -> str:
    """Gradio's own "Could not preprocess input component at index N ..." as one sentence naming that field."""
    found = re.search(r"at index (\d+)", str(exc))
    names = field_names(block_fn)
    if found and int(found.group(1)) < len(names):
        i = int(found.group(1))
        return about(names[i], inputs[i], NOT_TAKEN)
    return t("One of the values sent is not one the controls take; send them as the page does")


NOT_TAKEN = (mark("{name}={value} is not a value this control takes; send one like the page does"),
             mark("{name} ({value}) is not a value this control takes; send one like the page does"))


# --- 8. Progress shown on one component per tab (BlockFunction.show_progress_on, edited after the build) ---
# Documented: show_progress_on= per event. The right component is the tab's (known only once every tab is built),
# so it is set on Blocks.fns afterwards. Gradio's page updates the loading status of every output any event has
# had, at the start and the end of every event: with every output, a page whose tabs had all been used took
# ~400 ms per click on the Attention tab; with one per tab, 150-235 ms (docs/app.md; scripts/paint_bench.py).

def progress_on_one_output(demo: gr.Blocks, tabs: list[gr.Tab]) -> None:
    """A tab's events show their progress on the tab's first text output a person sees (else its first shown)."""
    fns = [fn for fn in demo.fns.values() if fn.fn is not None and fn.outputs and fn.show_progress_on is None]
    outputs = {id(b) for fn in fns for b in fn.outputs}
    target = {}
    for tab in tabs:
        shown = [b for b in inside(tab) if id(b) in outputs and b.visible is True
                 and not isinstance(b, (gr.File, gr.JSON, gr.DownloadButton))]
        light = [b for b in shown if isinstance(b, (gr.Textbox, gr.Markdown))]  # a drawn view costs more per walk
        for b in inside(tab):
            target[id(b)] = (light or shown or [None])[0]
    for fn in fns:
        fn.show_progress_on = [target.get(id(fn.outputs[0])) or fn.outputs[0]]


# --- 9. A bounded event history (Queue.ANALYTICS_MAX_EVENTS, Queue.ANAYLTICS_CACHE_FREQUENCY, sic) ---
# Documented: none (the queue reads GRADIO_ANALYTICS_MAX_EVENTS / _CACHE_FREQUENCY when it is made). Gradio's queue
# re-summarises up to 10,000 past events with pandas after EVERY event, for its /monitoring page: ~20 ms at 10,000
# on this machine, a per-click cost that grows all day. Keep the last 1,000, summarised every 100.

ANALYTICS_EVENTS, ANALYTICS_EVERY = 1000, 100


def bound_analytics(queue: Any) -> None:
    queue.ANALYTICS_MAX_EVENTS, queue.ANAYLTICS_CACHE_FREQUENCY = ANALYTICS_EVENTS, ANALYTICS_EVERY


# --- 10. A queue slot lent while its request waits on a plugin's worker (LocalContext.blocks, Blocks._queue,
# Queue.event_queue_per_concurrency_id, EventQueue.current_concurrency) ---
# Documented: concurrency_limit= bounds a group's running events. A request for a plugin's variant may wait on the
# plugin's worker until its time limit; while it waits the CPU group counts one fewer, so the next event in line
# starts: a plugin that hangs slows nobody else (tests/test_plugin_isolation.py). core.serve.slots asks for it.

def cpu_group_now() -> Any:
    """The CPU group of the app whose event runs in this thread (Gradio's queue), or None outside an event."""
    queue = getattr(LocalContext.blocks.get(None), "_queue", None)
    return getattr(queue, "event_queue_per_concurrency_id", {}).get(CPU_GROUP)


def queue_lender(group_now: Callable[[], Any], in_loop: Callable[[Callable[[], None]], Any]
                 ) -> Callable[[], AbstractContextManager]:
    """A lender for the group group_now() finds; in_loop(fn) runs fn in the queue's event loop (no update lost)."""

    @contextmanager
    def lend() -> Iterator[None]:
        group = group_now()
        if group is None:
            yield
            return
        in_loop(lambda: _count(group, -1))
        try:
            yield
        finally:
            in_loop(lambda: _count(group, 1))

    return lend


def _count(group: Any, change: int) -> None:
    group.current_concurrency += change
