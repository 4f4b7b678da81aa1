"""Small glue every tab shares: errors as one sentence, cached PNGs as gr.Plot values, concurrency policy."""

from __future__ import annotations

import functools
import html
import logging

import gradio as gr
from gradio.components.plot import PlotData

from core.config import ConfigError

log = logging.getLogger("attention_lab.ui")

# Concurrency policy (Gradio 6 runs one call per event at a time by default). The lab's events are
# short and CPU-bound (torch + matplotlib), and this app targets a 2-core machine: every tab's
# compute event shares ONE group of 2 workers, one per core, so 30 students queue fairly instead of
# oversubscribing the CPU. Repeated requests are LRU cache hits and leave the queue in milliseconds.
CPU_GROUP = "lab-cpu"
CPU_LIMIT = 2
# Training experiments take 10-20 s of CPU each. In the shared group two of them would hold both
# workers and every heatmap in the class would wait behind them, so they get their own group of ONE
# (on one torch thread): interactive tabs keep their two workers, and a second student asking for the
# same run waits for the first and then gets its cached result.
TRAINING_GROUP = "lab-training"
TRAINING_LIMIT = 1


def plot(data_url: str) -> PlotData:
    """A PNG the core already rendered (and cached), as gr.Plot's value: no second savefig."""
    return PlotData(type="matplotlib", plot=data_url)


def user_errors(fn):
    """Turn a person's mistake into gr.Error with one escaped sentence; anything else into a short apology."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except (ConfigError, ValueError, TypeError) as exc:
            raise gr.Error(html.escape(str(exc), quote=False), print_exception=False) from None
        except Exception:  # a bug: log it, keep serving, never show a traceback
            log.exception("unexpected error in %s", fn.__name__)
            raise gr.Error("Something went wrong computing this view; try other settings.",
                           print_exception=False) from None

    return wrapper
