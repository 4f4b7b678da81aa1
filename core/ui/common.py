"""Small glue every tab shares: errors as one sentence, browser-drawn views, the API accordion, concurrency policy."""

from __future__ import annotations

import dataclasses
import functools
import html
import inspect
import logging
import re

import gradio as gr

from core.config import ConfigError
from core.i18n import mark, t
from core.render import web
from core.serve import exports
from core.serve.slots import SLOTS

from .i18n import static

log = logging.getLogger("attention_lab.ui")

# Concurrency policy (Gradio 6 runs one call per event at a time by default). The lab's events are
# short and CPU-bound (torch + matplotlib), and this app targets a 2-core machine: every tab's
# compute event shares ONE group of 2 workers, one per core, so 30 students queue fairly instead of
# oversubscribing the CPU. Repeated requests are LRU cache hits and leave the queue in milliseconds.
# A request for a plugin's variant that waits on the plugin's worker process lends its slot to the
# next request meanwhile (core.serve.slots, wired in app.py): a plugin that hangs slows nobody else.
CPU_GROUP = "lab-cpu"
CPU_LIMIT = SLOTS  # one per core: core.proc.CORES, the one count
# Training experiments take 10-20 s of CPU each, in a worker process. They have their own group, so
# they never hold the CPU group's slots while a class waits for heatmaps. Inside it, one run trains at
# a time and each visitor (address) may have one training waiting or running (core.serve.runs); a finished run
# is answered from the cache at once, so the group lets several events in: most are cache hits.
TRAINING_GROUP = "lab-training"
TRAINING_LIMIT = 6
MAX_ERROR_CHARS = 200
APOLOGY = mark("Something went wrong computing this view; try other settings.")  # said as t(APOLOGY)

# Static texts a tab shows with static(...) (core.ui.i18n): each a msgid.
API = mark("For scripts (API)")  # the accordion on each tab that holds what a script needs, not a student
EXPORT = mark("PNG for a worksheet")
EXPORTED = mark("PNG of this view")


def serve_assets() -> None:
    """The views' JS and CSS, served by the app itself (never a CDN); build_demo calls it (imports do no work)."""
    gr.set_static_paths([web.ASSETS])


def view(value=None, elem_id: str | None = None, **kwargs) -> gr.HTML:
    """A view the browser draws from numbers (core/render/web): value is a core.render.matrix/charts dict."""
    return gr.HTML(value=value, html_template=web.TEMPLATE, js_on_load=web.JS_ON_LOAD, head=web.head(),
                   elem_id=elem_id, show_label=False, container=False, padding=False, apply_default_css=False,
                   **kwargs)


def api_accordion(elem_id: str | None = None) -> gr.Accordion:
    """Collapsed: the JSON, option boxes and downloads a script needs; teaching screens stay for teaching."""
    return gr.Accordion(static(API), open=False, elem_id=elem_id)


def export_button(source: gr.HTML, elem_id: str) -> None:
    """A button that draws the view once as a PNG (matplotlib, on demand) and offers it as a file."""
    with gr.Row():
        button = gr.Button(static(EXPORT), size="sm", scale=0, min_width=220, elem_id=f"{elem_id}-export")
        file = gr.File(label=static(EXPORTED), visible=False, interactive=False, elem_id=f"{elem_id}-png")

    @user_errors
    def save(shown):
        return gr.update(value=exports.png_file(shown), visible=True)

    button.click(save, source, file, api_visibility="private", concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)


def one_sentence(message: str) -> str:
    """An error as a person reads it: one line, long quotes cut to an excerpt, at most MAX_ERROR_CHARS."""
    text = " ".join(str(message).split())
    text = re.sub(r"'([^']{40,})'", lambda m: "'" + m.group(1)[:30] + "…'", text)
    if len(text) > MAX_ERROR_CHARS:
        text = text[:199] + "…"
    return text


def sentence_of(exc: BaseException, where: str) -> str:
    """The one way a failure becomes what a person reads: a mistake's own sentence; a bug's apology (logged)."""
    if isinstance(exc, gr.Error):
        return html.unescape(one_sentence(exc.message))
    if isinstance(exc, ConfigError):
        return one_sentence(str(exc))
    log.error("unexpected error in %s", where, exc_info=exc)  # a bug: logged, the app keeps serving
    return t(APOLOGY)


def user_errors(fn=None, *, unqueued: int | None = None):
    """The one wrapper that turns a handler's failure into one sentence: a gr.Error toast (queued events); with
    unqueued=N, the sentence in a problem box after the N outputs, which keep the last drawing (an event that
    skips the queue, one round trip instead of three, cannot show a toast; the public API keeps a queued one)."""
    if fn is None:
        return functools.partial(user_errors, unqueued=unqueued)
    if unqueued is not None:
        @functools.wraps(fn)
        def said(*args):
            return _said(fn, unqueued, *args)
        return never_raises(said)
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def steps(*args, **kwargs):
            try:
                yield from fn(*args, **kwargs)
            except gr.Error:
                raise
            except Exception as exc:
                raise _toast(exc, fn) from None
        return steps

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except Exception as exc:
            raise _toast(exc, fn) from None

    return wrapper


def _toast(exc: Exception, fn) -> gr.Error:
    return gr.Error(html.escape(sentence_of(exc, fn.__name__), quote=False), print_exception=False)


def _said(fn, n_outputs: int, *args):
    kept = tuple(gr.skip() for _ in range(n_outputs))
    values = [*args, *(v for a in args if isinstance(a, dict) for v in a.values())]  # (a dict: inputs by component)
    refused = next((v for v in values if isinstance(v, Refused)), None)
    if refused is not None:  # a value its control cannot hold (a hand-made request): said, not computed
        return (*kept, refused.sentence)
    try:
        out = tuple(fn(*args))
    except Exception as exc:
        return (*kept, sentence_of(exc, fn.__name__))
    return (*out, gr.skip() if out == kept else "")  # nothing new drawn: nothing to say either


PROBLEM = mark("Not redrawn")  # the label of the sentence that says why a setting could not be drawn


def problem_box(elem_id: str) -> gr.Textbox:
    """Where a fast (unqueued) event says, in one sentence, why it kept the last drawing. Shown while it holds
    a sentence (the CSS hides it empty): an event then writes a value, never `visible`, which costs the page
    a walk over its components."""
    return gr.Textbox(label=static(PROBLEM), interactive=False, elem_id=elem_id, placeholder=" ",
                      elem_classes=["al-problem"])


@dataclasses.dataclass(frozen=True)
class Refused:
    """What a never-raising handler receives instead of values that failed their controls' checks: the sentence."""

    sentence: str


def never_raises(fn):
    """Mark a handler that answers every value without raising: it may skip the queue (an unqueued event that
    raised would be an HTTP 500 the page never shows), and its values reach it unchecked: it checks them."""
    fn.never_raises = True
    return fn
