"""The uvicorn server Gradio starts (gradio.http_server.start_server), with the lab's limits.

Part of the one door, core/ui/gradio_seams.py, which re-exports everything here; tests/test_gradio_seams.py
exercises each seam against the pinned Gradio and fails naming the internal that moved.
"""

from __future__ import annotations

import types
from typing import Any

import gradio.http_server
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_SECONDS = 10.0  # a request's line and headers must arrive within this (slowloris)
KEEP_ALIVE_SECONDS = 5  # uvicorn's documented default, said out loud
CONNECTIONS = 800  # uvicorn's limit_concurrency: connections + tasks at once, past it a 503 (ulimit -n is larger)
HEADER_BYTES = 16_384  # uvicorn's h11_max_incomplete_event_size: a request line + headers bigger than this is a 400


# --- 5. Header timeout and connection limits (gradio.http_server.start_server builds uvicorn.Config itself) ---
# Documented: launch() takes no uvicorn settings. Here gradio.http_server sees a uvicorn whose Config carries the
# lab's limits, and whose h11 protocol closes a connection whose request line and headers take > HEADER_SECONDS.

class HeaderTimeout(H11Protocol):
    """uvicorn's h11 protocol, with a deadline for each request's headers."""

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        self._header_timer = self.loop.call_later(HEADER_SECONDS, self._too_slow)

    def _too_slow(self) -> None:
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()  # nothing answered: a slowloris, or an idle half-request

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before and self.cycle is not None:
            self._header_timer.cancel()  # the headers are in

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._header_timer.cancel()
            self._arm()  # the next request on this connection gets its own deadline

    def connection_lost(self, exc) -> None:
        self._header_timer.cancel()
        super().connection_lost(exc)


class LabConfig(uvicorn.Config):
    """uvicorn.Config with the lab's limits (the caller's own settings win)."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        kwargs.setdefault("http", HeaderTimeout)
        kwargs.setdefault("timeout_keep_alive", KEEP_ALIVE_SECONDS)
        kwargs.setdefault("limit_concurrency", CONNECTIONS)
        kwargs.setdefault("h11_max_incomplete_event_size", HEADER_BYTES)
        super().__init__(app, **kwargs)  # (configures uvicorn's loggers anew)
        from core.serve.errors import bound_logs

        bound_logs()  # then each distinct line once a minute


def install_server() -> None:
    if getattr(gradio.http_server.uvicorn, "Config", None) is LabConfig:
        return
    shim = types.ModuleType("uvicorn")
    shim.__dict__.update(vars(uvicorn))
    shim.Config = LabConfig
    gradio.http_server.uvicorn = shim  # only Gradio's start_server sees it
