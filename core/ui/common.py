"""Small glue every tab shares: errors as one sentence, cached PNGs as gr.Plot values, concurrency policy."""

from __future__ import annotations

import functools
import html
import logging
import re

import gradio as gr
from gradio.components.plot import PlotData

from core.config import ConfigError

log = logging.getLogger("attention_lab.ui")

# Concurrency policy (Gradio 6 runs one call per event at a time by default). The lab's events are
# short and CPU-bound (torch + matplotlib), and this app targets a 2-core machine: every tab's
# compute event shares ONE group of 2 workers, one per core, so 30 students queue fairly instead of
# oversubscribing the CPU. Repeated requests are LRU cache hits and leave the queue in milliseconds.
# A request for a plugin's variant that waits on the plugin's worker process lends its slot to the
# next request meanwhile (core.serve.slots, wired in app.py): a plugin that hangs slows nobody else.
CPU_GROUP = "lab-cpu"
CPU_LIMIT = 2
# Training experiments take 10-20 s of CPU each, in a worker process. They have their own group, so
# they never hold the CPU group's slots while a class waits for heatmaps. Inside it, one run trains at
# a time and each session may have one training waiting or running (core.serve.runs); a finished run
# is answered from the cache at once, so the group lets several events in: most are cache hits.
TRAINING_GROUP = "lab-training"
TRAINING_LIMIT = 6
MAX_ERROR_CHARS = 200
APOLOGY = "Something went wrong computing this view; try other settings."


def plot(data_url: str) -> PlotData:
    """A PNG the core already rendered (and cached), as gr.Plot's value: no second savefig."""
    return PlotData(type="matplotlib", plot=data_url)


def one_sentence(message: str) -> str:
    """An error as a person reads it: one line, long quotes cut to an excerpt, at most MAX_ERROR_CHARS."""
    text = " ".join(str(message).split())
    text = re.sub(r"'([^']{40,})'", lambda m: "'" + m.group(1)[:30] + "…'", text)
    if len(text) > MAX_ERROR_CHARS:
        text = text[:199] + "…"
    return text


def user_errors(fn):
    """Turn a person's mistake into gr.Error with one escaped sentence (at most ~200 characters); a bug into an apology."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except ConfigError as exc:
            raise gr.Error(html.escape(one_sentence(str(exc)), quote=False), print_exception=False) from None
        except Exception:  # a bug: log it, keep serving, never show a traceback
            log.exception("unexpected error in %s", fn.__name__)
            raise gr.Error(APOLOGY, print_exception=False) from None

    return wrapper
