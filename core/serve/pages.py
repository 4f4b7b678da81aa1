"""The page and its config, built once and served from memory: a page-load flood costs the server a copy, not a build.

Gradio builds `/` (~520 KB) and `/config` (~455 KB) anew for every load (a deep copy of the whole app's config,
~25-40 ms of CPU each): 15 loads a second kept the server busy. What they return depends only on the address the
request was sent to (the root URL written into them), so `PageCache`, ASGI middleware, keeps each answer per
address for `seconds` and serves it as is. A request with a query is passed through (a Gradio deep link makes its
own page), except the lab's own links to `/` (?lesson=, ?step=, ?class=, ?present=, ?print=): the page reads them
itself, so it is the same page (measured: byte for byte), and thirty students opening a class's link at once cost
one build (#34).
"""

from __future__ import annotations

import time
from typing import Any

CACHED = {"/", "/config"}
OURS = {b"lesson", b"step", b"class", b"present", b"print"}  # the page's own link keys: it reads them in the browser
KEYS = (b"host", b"x-forwarded-host", b"x-forwarded-proto", b"x-forwarded-port", b"x-forwarded-prefix")


class PageCache:
    """ASGI middleware: GET/HEAD `/` and `/config` (no query) answered from a small cache, per root URL."""

    def __init__(self, app: Any, seconds: float = 300.0, entries: int = 32) -> None:
        self.app, self.seconds, self.entries = app, seconds, entries
        self._kept: dict[tuple, tuple[float, dict, bytes]] = {}  # key -> (time, response.start message, body)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if (scope["type"] != "http" or scope.get("method") not in ("GET", "HEAD") or scope.get("path") not in CACHED
                or scope.get("query_string") and not (scope["path"] == "/" and ours(scope["query_string"]))):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        key = (scope["path"], scope.get("root_path", ""), scope.get("scheme"), *(headers.get(k) for k in KEYS))
        kept = self._kept.get(key)
        if kept is not None and time.monotonic() - kept[0] < self.seconds:
            _, start, body = kept
            await send(start)
            await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
            return
        start: dict = {}
        chunks: list[bytes] = []

        async def keep(message: dict) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body") and start.get("status") == 200 and scope["method"] == "GET":
                    self._store(key, start, b"".join(chunks))
            await send(message)

        await self.app(scope, receive, keep)

    def _store(self, key: tuple, start: dict, body: bytes) -> None:
        if any(name.lower() == b"set-cookie" for name, _ in start.get("headers", [])):
            return  # a per-visitor answer
        if len(self._kept) >= self.entries:
            self._kept.pop(next(iter(self._kept)))
        self._kept[key] = (time.monotonic(), dict(start), body)


def ours(query: bytes) -> bool:
    """A query made only of the lab's own link keys (their values do not change the page)."""
    keys = {part.split(b"=", 1)[0] for part in query.split(b"&") if part}
    return bool(keys) and keys <= OURS
