"""A malformed request gets a 4xx and one sentence, never a traceback; the log says each distinct error once a minute.

`Sentences` is ASGI middleware around the whole app: it refuses what no route should read (a URL over 8 KB,
a multi-range Range header), gives a body BODY_SECONDS to arrive, and answers any exception a route lets out
with one sentence (a 404 for a name the app does not have) and one log line, where Gradio would answer a 500
with its traceback. `OncePerMinute` is the logging filter that bounds the log under junk traffic.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any

from ..i18n import mark
from .limits import answer, said

log = logging.getLogger("attention_lab.http")
MAX_URL_BYTES = 8192  # path + query; the lab's longest real URL is a few hundred bytes
BODY_SECONDS = 30.0  # from the headers to the body's last byte (1 MiB at most: core.serve.limits)
# What a request is told, in its page's language (core.serve.limits.said).
TOO_LONG = mark("The address is longer than 8 KB; the lab's addresses are short, so check it.")
ONE_RANGE = mark("The lab serves one byte range per request; ask for the ranges one at a time.")
TOO_SLOW = mark("The request's body did not arrive within 30 s; send it again in one go.")
NO_SUCH = mark("The lab has no such component, event or session; reload the page.")
UNKNOWN = {
    "FnIndexInferError": mark("The lab has no endpoint by that name; /gradio_api/info lists them."),
    "KeyError": NO_SUCH,
    "IndexError": NO_SUCH,
}
FAILED = mark("The lab could not answer this request; it is logged, and the lab keeps serving.")


class Sentences:
    """ASGI middleware: one sentence (JSON {"detail": ...}) for what a route cannot answer, and bounded logs."""

    def __init__(self, app: Any, body_seconds: float = BODY_SECONDS) -> None:
        self.app, self.body_seconds = app, body_seconds

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") > MAX_URL_BYTES:
            await answer(send, 414, said(scope, TOO_LONG))
            return
        headers = dict(scope.get("headers") or [])
        if b"," in headers.get(b"range", b""):
            await answer(send, 416, said(scope, ONE_RANGE))
            return
        started = ended = body_done = False
        deadline = time.monotonic() + self.body_seconds

        async def timed() -> dict:
            """The body within its deadline; after it, only the client leaving is waited for (no deadline)."""
            nonlocal body_done
            if body_done:
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                body_done = True
                if not started:
                    await answer(watched, 408, said(scope, TOO_SLOW))
                return {"type": "http.disconnect"}
            body_done = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        async def watched(message: dict) -> None:
            nonlocal started, ended
            if ended:
                return
            started = started or message["type"] == "http.response.start"
            ended = message["type"] == "http.response.body" and not message.get("more_body", False)
            await send(message)

        try:
            await self.app(scope, timed, watched)
        except Exception as exc:  # a route's failure: one sentence to the client, one line (a minute) in the log
            name = _innermost(exc)
            log.warning("%s %s: %s (answered in one sentence)", scope.get("method"), scope.get("path", "")[:80], name,
                        extra={"lab_key": name})
            if not started:
                await answer(watched, 404 if name in UNKNOWN else 500, said(scope, UNKNOWN.get(name, FAILED)))
            elif not ended:
                await watched({"type": "http.response.body", "body": b"", "more_body": False})


def _innermost(exc: BaseException) -> str:
    """The exception's class name, looking inside an ExceptionGroup (Starlette's task groups wrap them)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if type(exc).__name__ == "HTTPException":
        return f"HTTPException {getattr(exc, 'status_code', '')}"
    return type(exc).__name__


class OncePerMinute(logging.Filter):
    """Lets each distinct message (logger + format string) through once per `seconds`; drops tracebacks of the
    uvicorn/Gradio HTTP layer (a request's failure is a line, not 40)."""

    def __init__(self, seconds: float = 60.0, max_keys: int = 4096) -> None:
        super().__init__()
        self.seconds, self.max_keys, self._last, self._lock = seconds, max_keys, {}, threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if hasattr(record, "lab_once"):  # seen already by this filter on a logger or another handler
            return record.lab_once
        record.lab_once = self._first(record)
        return record.lab_once

    def _first(self, record: logging.LogRecord) -> bool:
        key, now = (record.name, str(record.msg)[:200], getattr(record, "lab_key", "")), time.monotonic()
        with self._lock:
            if now - self._last.get(key, -1e9) < self.seconds:
                return False
            if len(self._last) >= self.max_keys:
                self._last.clear()
            self._last[key] = now
        if record.name.startswith("uvicorn") and record.exc_info:
            record.msg = f"{record.msg}: {record.exc_info[0].__name__ if record.exc_info[0] else ''}"
            record.exc_info = record.exc_text = None
        return True


LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "gradio", "attention_lab", "attention_lab.ui",
           "attention_lab.http", "asyncio")
_FILTER = OncePerMinute()


def bound_logs() -> OncePerMinute:
    """The one filter on the app's loggers and on the handlers records reach (idempotent)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
        for handler in logger.handlers:
            if _FILTER not in handler.filters:
                handler.addFilter(_FILTER)
    for handler in [*logging.getLogger().handlers, logging.lastResort]:
        if handler is not None and _FILTER not in handler.filters:
            handler.addFilter(_FILTER)
    return _FILTER
