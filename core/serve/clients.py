"""Who a request comes from, so one client's flood costs that client only: its address, never a header it wrote.

The client is the TCP peer. Behind a proxy (a Hugging Face Space: SPACE_ID set; or the addresses listed in
ATTENTION_LAB_TRUSTED_PROXY, comma-separated) every peer is the proxy, so the client is the rightmost address of
X-Forwarded-For that is not a trusted proxy: the one the proxy itself saw. From any other peer the header is
ignored (anyone can write one).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from ..i18n import mark, speaking, t_n
from .limits import answer, headers_of, language_of

QUEUED_MAX = 256  # events the whole queue holds (waiting + running); past it, a short 503 sentence
# events one client (address) may have waiting or running at once; past it, a 429 sentence. A student's page has
# 1-2, but a class behind a school's NAT is one address: 48 lets forty students press the same button at once,
# and fair order (below) still serves another address between two of this one's.
PER_CLIENT = int(os.environ.get("ATTENTION_LAB_PER_CLIENT", "48"))
FULL = mark("The lab is answering as many requests as it can hold right now; try again in a few seconds.")


def busy(n: int) -> str:
    """What a visitor over its share is told (429), in the current language."""
    return t_n("You have {n} request waiting or running already, the most one visitor may have; wait for an answer "
               "before you send more.",
               "You have {n} requests waiting or running already, the most one visitor may have; wait for an answer "
               "before you send more.", n)


def in_any_order(items: list) -> list:
    """The queue's groups shuffled, as Gradio's own picker does: no group is always looked at first."""
    return random.sample(items, len(items))


def is_full(waiting: int, running: int, max_size: int | None) -> bool:
    return max_size is not None and waiting + running >= max_size


def next_of(waiting: list, client: Callable[[Any], str], running: Counter, limit: int | None) -> Any | None:
    """The event a group starts next: the oldest of the client with the fewest running in the group, among clients
    that leave one slot of the group to someone else (a group of 1 excepted); None if every client is at its share."""
    share = max(1, (limit or 1 << 30) - 1)
    allowed = [e for e in waiting if running[client(e)] < share]
    return min(allowed, key=lambda e: running[client(e)]) if allowed else None  # min keeps the first on ties: FIFO


def trusted_proxies() -> set[str]:
    """The peers whose X-Forwarded-For is believed (ATTENTION_LAB_TRUSTED_PROXY, read at each call)."""
    return {a.strip() for a in os.environ.get("ATTENTION_LAB_TRUSTED_PROXY", "").split(",") if a.strip()}


def client_key(peer: str | None, headers: Mapping[str, str] | None) -> str:
    """The address a request counts against: the peer, or, from a trusted proxy, the address it forwarded."""
    trusted = trusted_proxies()
    peer = peer or "unknown"
    if not (peer in trusted or os.environ.get("SPACE_ID")):
        return peer
    forwarded = (headers or {}).get("x-forwarded-for", "")
    hops = [h.strip() for h in forwarded.split(",") if h.strip()][-8:]  # the proxy appends; the left is hearsay
    for hop in reversed(hops):
        if hop not in trusted:
            return hop[:64]
    return peer


def key_of(request: object) -> str:
    """client_key of a Starlette/FastAPI request or a gr.Request (both have .client and .headers)."""
    client = getattr(request, "client", None)
    return client_key(getattr(client, "host", None), getattr(request, "headers", None))


class DirectShare:
    """ASGI middleware: the direct REST routes (`/gradio_api/run/…`, only unqueued events answer there) and a live
    class's routes (`/class/…`, core.serve.class_routes: an open stream is one request in flight) get the same
    per-client bound as the queue: PER_CLIENT requests in flight per client, a 429 sentence past it."""

    PREFIXES = ("/gradio_api/run/", "/gradio_api/api/", "/class/")

    def __init__(self, app: Any) -> None:
        self.app, self.in_flight = app, Counter()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope.get("path", "").startswith(self.PREFIXES):
            await self.app(scope, receive, send)
            return
        headers = headers_of(scope)
        key = client_key((scope.get("client") or ("unknown",))[0], headers)
        if self.in_flight[key] >= PER_CLIENT:
            with speaking(language_of(headers)):
                sentence = busy(self.in_flight[key])
            await answer(send, 429, sentence)
            return
        self.in_flight[key] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight[key] -= 1
            if not self.in_flight[key]:
                del self.in_flight[key]
