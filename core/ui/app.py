"""Builds the Gradio app from the tab modules; each tab module has TITLE and build(ctx)."""

from __future__ import annotations

import importlib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio.from_thread
import gradio as gr
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.middleware import Middleware

from core.lab.session import Lab
from core.registry import Registry, load_registry
from core.serve import clients
from core.serve.class_routes import ClassRoutes
from core.serve.errors import Sentences, bound_logs
from core.serve.lesson_images import LessonImages
from core.serve.limits import MAX_BODY_BYTES, BodyLimit, invalid_request_sentence
from core.serve.pages import PageCache
from core.serve.plugins import AppLab
from core.serve.policy import ContentPolicy
from core.serve.slots import CPU

from . import access, gradio_seams, i18n
from .common import never_raises, serve_assets
from .i18n import static

log = logging.getLogger("attention_lab.ui")

# Tab modules, in the order they appear. Each defines TITLE, a msgid (core.i18n.mark), and
# build(ctx: AppContext) -> None, called inside `with gr.Tab(static(TITLE)):`.
TABS = [
    "core.ui.lesson_tab",  # the landing page: a lesson, one step per screen
    "core.ui.attention_tab",
    "core.ui.step_tab",
    "core.ui.causality_tab",
    "core.ui.transfer_tab",
    "core.ui.masking_tab",
    "core.ui.chapter_tab",
    "core.ui.plugins_tab",
    "core.ui.cost_tab",
    "core.ui.model_tab",
    "core.ui.generate_tab",
    "core.ui.real_model_tab",
    "core.ui.experiments_tab",
]


@dataclass
class AppContext:
    """What every tab may use: the registry (loaded once per app), the cached lab, and shared components."""

    registry: Registry
    lab: Lab | None = None  # cached computations of the Attention/Step/Causality/Masking tabs
    shared: dict[str, Any] = field(default_factory=dict)  # components one tab offers the next (by name)
    tab: gr.Tab | None = None  # the gr.Tab being built: tabs fill themselves on .select (lazy start-up)
    warm: list[Callable[[], Any]] = field(default_factory=list)  # what to compute once the app serves, in order
    shown: Any = None  # the trigger that fires when the page first shows the tab being built (load or select)
    first: list[tuple[Any, list[Any], Callable[..., Any]]] = field(default_factory=list)  # (tab, outputs, fn)
    first_inputs: dict[Callable[..., Any], list[Any]] = field(default_factory=dict)  # fn -> the blocks it reads
    filled: set[Any] = field(default_factory=set)  # blocks an event fills, in the page's language, when the tab shows

    def __post_init__(self) -> None:
        if self.lab is None:
            self.lab = AppLab(self.registry)  # a third-party variant's requests run in its plugin's worker

    def first_values(self, outputs: list[Any], fn: Callable[..., Any], inputs: list[Any] = ()) -> None:
        """fn(*inputs' values) -> the values of outputs a tab was built with (computed in English): computed again in
        the page's language when a page in another language first shows the tab being built (fn() -> as built)."""
        self.first.append((self.tab, list(outputs), fn))
        self.first_inputs[fn] = list(inputs)

    def filled_on_show(self, *blocks: Any) -> None:
        """Blocks whose first value an event of the tab replaces, in the page's language, when the tab is shown (a
        first value made again would race it): what they were built with is a placeholder, never read."""
        self.filled.update(blocks)


# What one person can make the server keep (see docs/reliability.md for the measured bounds).
SESSIONS_KEPT = 256  # Gradio keeps ~330 KB per session (its copy of every component); the app needs none of it
MAX_FILE_BYTES = 16_384  # no control takes a file: /gradio_api/upload gets almost nothing
DELETE_CACHE = (600, 3600)  # every 10 minutes, delete the files the app handed out more than an hour ago


def build_demo(registry: Registry | None = None) -> gr.Blocks:
    """The whole app as one Blocks; no network, no analytics."""
    ctx = AppContext(registry=registry or load_registry())
    serve_assets()
    # a request waiting on a plugin's worker lends its slot; the count changes in the queue's own event loop
    CPU.set_lender(gradio_seams.queue_lender(gradio_seams.cpu_group_now, anyio.from_thread.run_sync))
    # The window's title is the app's name in every language: Gradio writes it into the page's link-preview tags
    # as is (a translation key there would read "__i18n__{...}"); the page's own header is translated.
    with gradio_seams.LabBlocks(title="Attention Lab", analytics_enabled=False, delete_cache=DELETE_CACHE) as demo:
        gr.Markdown(static("# Attention Lab\nThe attention layer of GPT-style models, one stage at a time."),
                    elem_id="app-header")  # (hidden while a lesson is presented)
        tabs = []
        ctx.shared["demo"] = demo  # for a tab's demo.load (the Lesson tab opens ?lesson=NAME&step=N)
        ctx.shared["tabs"] = [m.rsplit(".", 1)[1] for m in TABS]  # the tabs' modules in order ("open in the lab")
        with gr.Tabs(overflow_behavior="wrap"):  # every tab in sight on a laptop, none behind a "⋯" menu
            for i, modname in enumerate(TABS):
                tab = importlib.import_module(modname)
                with gr.Tab(i18n.static(tab.TITLE)) as ctx.tab:  # the title: a msgid (a tab's TITLE, marked)
                    # The page's language, written by the page when it first shows the tab (before the tab's
                    # own events: Gradio runs the events of one trigger one after the other).
                    lang = gr.Textbox("en", visible=False)
                    ctx.shown = demo.load if i == 0 else ctx.tab.select
                    ctx.shown(None, None, lang, js=i18n.PAGE_LANG_JS)
                    tab.build(ctx)
                tabs.append((ctx.tab, lang))
        for wire in ctx.shared.pop("after_tabs", []):  # events between tabs, once all are built (open in the lab)
            wire()
        _first_values_in_language(ctx, dict(tabs))
    gradio_seams.progress_on_one_output(demo, [tab for tab, _ in tabs])  # one per tab: a click paints sooner
    if isinstance(ctx.lab, AppLab):
        ctx.warm[-1:-1] = [ctx.lab.guard.warm]  # start the plugins' workers; the training stays last
    demo.lab_warm = ctx.warm  # for launch(): the tabs' defaults, computed after the first page is served
    demo.lab_first = ctx.first  # each tab's first values and how to make them in a language (tests read it too)
    demo.lab_filled = ctx.filled  # and the blocks an event fills when their tab is shown
    # A bounded queue that is the only way in: api_open=False closes the direct REST routes (/gradio_api/run/<name>)
    # to every queued event; the unqueued fast events stay (bounded by core.serve.slots). Issue #26.
    demo.queue(max_size=clients.QUEUED_MAX, api_open=False)
    gradio_seams.install(demo)  # per-client share, fair order, cheap sessions, the server's limits (see there)
    return demo


def _first_values_in_language(ctx: AppContext, langs: dict[gr.Tab, gr.Textbox]) -> None:
    """Each tab's registered first values, computed in the page's language when a page in another language first
    shows the tab (an English page runs nothing: it has them)."""
    for tab, outputs, fn in ctx.first:
        inputs = ctx.first_inputs.get(fn, [])
        def first(_, *values, fn=fn, n=len(outputs)):
            if i18n.current() == i18n.SOURCE:
                return tuple(gr.skip() for _ in range(n)) if n > 1 else gr.skip()
            return fn(*values)
        langs[tab].change(never_raises(first), [langs[tab], *inputs], outputs, queue=False, api_visibility="private",
                          show_progress="hidden")


def launch_options(demo: gr.Blocks | None = None) -> dict[str, Any]:
    """How the app is served everywhere (app.py, tests): a built-in theme with local fonts only, no SSR/Node."""
    return {
        "theme": access.theme(),  # local fonts only; colours that pass WCAG 2.1 AA in the light and the dark scheme
        "css_paths": access.CSS_PATHS,  # focus rings, code colours, the phone layout
        "ssr_mode": False,
        # every static() text in every language of core/locales; the page keeps its language in a cookie for the server
        "i18n": i18n.catalogue(),
        "head": f"{i18n.LANG_SCRIPT}{access.ANNOUNCER_JS}",  # (the announcer: what changes and every error, said)
        # Gradio's run history keeps every call's inputs and outputs in the browser's localStorage (up to 100),
        # re-read and re-written whole on every event: ~1 ms of the page's time per KB of outputs, growing with
        # each click, and a class's sentences left on shared machines. Off (the API's /runs page is not the lab's).
        "run_history": False,
        # gr.Error messages (one escaped sentence each) reach the page either way; any other exception's
        # text never does: gradio_seams.LabBlocks turns it into one apology, and show_error=False keeps it from the page
        "show_error": False,
        "state_session_capacity": SESSIONS_KEPT,
        "max_file_size": MAX_FILE_BYTES,
        "app_kwargs": {  # fresh for each launch: Gradio adds to this dict
            # outermost first: one sentence for any failure, the Content-Security-Policy on every answer (images,
            # media, frames and forms from the lab only, #31), the lessons' images, the page built once, a share of
            # the direct routes per client (a live class's too), the live class's routes (#34), the body cap, the
            # queue's door: a 404 for a stream nobody waits for, a 429 past one's share (#26)
            "middleware": [Middleware(Sentences), Middleware(ContentPolicy), Middleware(LessonImages),
                           Middleware(PageCache), Middleware(clients.DirectShare), Middleware(ClassRoutes),
                           Middleware(BodyLimit, max_bytes=MAX_BODY_BYTES),
                           *([Middleware(gradio_seams.QueueDoor, blocks=demo)] if demo is not None else [])],
            "exception_handlers": {RequestValidationError: _invalid_request},
        },
    }


async def _invalid_request(request, exc: RequestValidationError) -> JSONResponse:
    """FastAPI's 422 (a body that is not what the route takes) as one sentence, in the page's language."""
    with i18n.speaking(i18n.locale_of(request)):
        return JSONResponse({"detail": invalid_request_sentence(exc.errors())}, status_code=422)


def launch(demo: gr.Blocks, **kwargs) -> None:
    """Serve on GRADIO_SERVER_NAME:GRADIO_SERVER_PORT (127.0.0.1:7860 by default); then warm the tabs.

    Warming (ATTENTION_LAB_WARM=0 turns it off) starts after the first page is served, so it never
    delays start-up: each tab's default view and the trained model's opening view (~3 s in all), then
    the two default experiments (~17 s, in a worker process).
    """
    bound_logs()
    demo.launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
        server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
        **{**launch_options(demo), **kwargs, "prevent_thread_lock": True},
    )
    if os.environ.get("ATTENTION_LAB_WARM", "1") != "0":
        warm(getattr(demo, "lab_warm", []))
    demo.block_thread()


def warm(jobs: list[Callable[[], Any]]) -> threading.Thread:
    """The tabs' warm-up jobs, one after the other in one background thread (cheap ones first)."""

    def work() -> None:
        for job in jobs:
            try:
                job()
            except Exception:  # never take the server down: a click computes it instead
                log.exception("warming up failed in %s", getattr(job, "__qualname__", job))

    thread = threading.Thread(target=work, name="attention-lab-warm", daemon=True)
    thread.start()
    return thread
