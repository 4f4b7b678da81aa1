"""The live class over HTTP, served by the app's own server: a few JSON routes and one server-sent-event stream per page.

    POST /class/new              {lesson, step, base}          -> {code, secret, link, qr, ...state}   (the teacher's page)
    GET  /class/CODE                                           -> state           (is there such a class?)
    GET  /class/CODE/events?page=ID[&role=teacher]             -> text/event-stream: the state now, then at each change
    POST /class/CODE/step        {secret, lesson, step, ask}   -> state           (only the page holding the secret)
    POST /class/CODE/reveal      {secret, shown}               -> state
    POST /class/CODE/end         {secret}                      -> state
    POST /class/CODE/answer      {page, step, value}           -> state

`ClassRoutes` is ASGI middleware (as core.serve.lesson_images is), placed inside core.serve.clients.DirectShare, which
counts every /class/ request, an open stream included, once against its client's share. A stream sends the whole
state (core.serve.classroom.Class.public, encoded once per change for every page) when it changes: a step, a reveal
or an end at once, a count (followers, answers) at most every SOFT_SECONDS; a comment line every HEARTBEAT_SECONDS
keeps proxies from closing it. A dropped stream is opened again by the browser (EventSource, `retry:`) and starts with
the state as it is now, so the page lands on the current step. What a person is told is one sentence in their page's
language: an error as {"detail": sentence} (a stream's as its one `refused` event, which EventSource can read).
"""

from __future__ import annotations

import asyncio
import json
import re
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qs

from ..render import qr
from .classroom import Class, Classroom, Refused
from .clients import client_key
from .limits import answer, headers_of, said

PREFIX = "/class/"
PATH = re.compile(r"^/class/([A-Za-z0-9-]{1,16})(?:/(events|step|reveal|end|answer))?$")
MAX_BODY = 4096  # bytes of a class request's JSON (the largest, a step with its question, is ~200)
SOFT_SECONDS = 0.5  # counts reach the pages at most this often (a join or an answer never floods 500 streams)
HEARTBEAT_SECONDS = 20.0
RETRY_MS = 1500  # how soon a browser opens a dropped stream again
MAX_BASE = 512  # characters of the page address a class link is made from
HEADERS = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
STREAM = [(b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-store"),
          (b"x-accel-buffering", b"no")]  # (a proxy that buffers would hold every step back)


class Hub:
    """The classroom and its streams: who waits on which class, and the state each is sent, encoded once."""

    def __init__(self, room: Classroom | None = None) -> None:
        self.room = room or Classroom()
        self.room.changed = self._changed
        self.loop: asyncio.AbstractEventLoop | None = None
        self.waiting: dict[str, dict[asyncio.Event, asyncio.Event]] = {}  # code -> {a stream's wake: its end}
        self.soft: dict[str, asyncio.TimerHandle] = {}  # code -> the pending tell of a count
        self.frames: dict[str, tuple[int, bytes]] = {}  # code -> (version, its SSE frame)

    def _changed(self, klass: Class, now: bool) -> None:
        """The classroom's hook (any thread): tell the class's streams, at once or after SOFT_SECONDS."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._tell, klass.code, now)

    def _tell(self, code: str, now: bool) -> None:
        pending = self.soft.get(code)
        if now or pending is None:
            if pending is not None:
                pending.cancel()
                del self.soft[code]
            if now:
                self._wake(code)
            else:
                self.soft[code] = self.loop.call_later(SOFT_SECONDS, self._wake, code)

    def _wake(self, code: str) -> None:
        self.soft.pop(code, None)
        for event in self.waiting.get(code, ()):
            event.set()

    def drop(self, code: str) -> None:
        """Close every stream of a class, as a network drop would (its pages open them again and land on the step
        the class is at); from any thread."""
        def close() -> None:
            for woken, gone in list(self.waiting.get(code, {}).items()):
                gone.set()
                woken.set()
        if self.loop is not None:
            self.loop.call_soon_threadsafe(close)

    def frame(self, klass: Class) -> tuple[int, bytes]:
        """The class's state as one SSE message, made once per version."""
        with self.room.lock:
            version = klass.version
            kept = self.frames.get(klass.code)
            if kept is None or kept[0] != version:
                data = json.dumps(klass.public(), separators=(",", ":"))
                kept = (version, f"id: {version}\ndata: {data}\n\n".encode())
                if klass.ended:
                    self.frames.pop(klass.code, None)
                else:
                    self.frames[klass.code] = kept
            return kept


@lru_cache(maxsize=1)
def hub() -> Hub:
    """The server's one hub (made at the first class request: importing does no work)."""
    return Hub()


class ClassRoutes:
    """ASGI middleware: the /class/ routes; every other request passes through."""

    def __init__(self, app: Any, the_hub: Hub | None = None) -> None:
        self.app, self._hub = app, the_hub

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope.get("path", "").startswith(PREFIX):
            await self.app(scope, receive, send)
            return
        h = self._hub or hub()
        h.loop = h.loop or asyncio.get_running_loop()
        headers = headers_of(scope)
        address = client_key((scope.get("client") or ("unknown",))[0], headers)
        match, method = PATH.match(scope["path"]), scope.get("method")
        try:
            if match is None:
                raise Refused("request", 404)
            code, action = match.group(1), match.group(2)
            if action == "events" and method == "GET":
                query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
                page, role = query.get("page", [""])[0][:64], query.get("role", [""])[0]
                await _stream(h, scope, receive, send, code, address, page, role != "teacher")
                return
            if action is None and method == "GET":
                state = h.room.find(code, address).public()
            elif method == "POST":
                state = _post(h.room, code, action, address, await _body(receive))
            else:
                raise Refused("request", 405)
        except Refused as refused:
            await answer(send, refused.status, said(scope, refused.args[0], **refused.fields))
            return
        await _json(send, 200, state)


def _post(room: Classroom, code: str, action: str | None, address: str, body: dict) -> dict:
    """What a POST does, by its action; the new state (with the secret and the link's QR code for a new class)."""
    if code == "new" and action is None:
        base = body.get("base")
        if not isinstance(base, str) or not base.startswith(("http://", "https://")) or len(base) > MAX_BASE \
                or any(c.isspace() for c in base):
            raise Refused("request", 400)
        klass, secret = room.start(body.get("lesson"), body.get("step"), address)
        link = f"{base.split('?')[0].split('#')[0]}?class={klass.code}"
        return {**klass.public(), "secret": secret, "link": link, "qr": qr.modules(link)}
    secret = body.get("secret")
    if action == "step":
        return room.move(code, secret, body.get("lesson"), body.get("step"), body.get("ask")).public()
    if action == "reveal":
        return room.reveal(code, secret, body.get("shown", True) is not False).public()
    if action == "end":
        return room.end(code, secret).public()
    if action == "answer":
        return room.answer(code, address, body.get("page"), body.get("step"), body.get("value")).public()
    raise Refused("request", 404)


async def _stream(h: Hub, scope: dict, receive: Any, send: Any, code: str, address: str, page: str,
                  follower: bool) -> None:
    """One page's stream: the state now, then each change, until the page leaves or the class ends."""
    try:
        klass = h.room.join(code, address, page, follower)
    except Refused as refused:  # a 200 whose one event says why: EventSource reads no error's body
        sentence = said(scope, refused.args[0], **refused.fields)
        data = json.dumps({"detail": sentence, "status": refused.status})
        await send({"type": "http.response.start", "status": 200, "headers": STREAM})
        await send({"type": "http.response.body", "body": f"event: refused\ndata: {data}\n\n".encode()})
        return
    woken, gone, left = asyncio.Event(), asyncio.Event(), asyncio.Event()  # gone: left, or dropped by the hub
    h.waiting.setdefault(klass.code, {})[woken] = gone

    async def watch() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        left.set()
        gone.set()
        woken.set()

    watcher = asyncio.get_running_loop().create_task(watch())
    try:
        await send({"type": "http.response.start", "status": 200, "headers": STREAM})
        sent, frame = h.frame(klass)
        await send({"type": "http.response.body", "body": f"retry: {RETRY_MS}\n\n".encode() + frame,
                    "more_body": True})
        while not gone.is_set() and not klass.ended:
            try:
                async with asyncio.timeout(HEARTBEAT_SECONDS):
                    await woken.wait()
            except TimeoutError:
                h.room.sweep()  # (a class nobody moved for 3 hours ends even if nobody asks for it)
                if klass.version == sent:
                    await send({"type": "http.response.body", "body": b": \n\n", "more_body": True})
            woken.clear()
            if klass.version != sent and not gone.is_set():
                sent, frame = h.frame(klass)
                await send({"type": "http.response.body", "body": frame, "more_body": True})
        if not left.is_set():
            await send({"type": "http.response.body", "body": b""})
    finally:
        watcher.cancel()
        waiting = h.waiting.get(klass.code)
        if waiting is not None:
            waiting.pop(woken, None)
            if not waiting:
                del h.waiting[klass.code]
        h.room.leave(klass, page, follower)


async def _body(receive: Any) -> dict:
    """The request's JSON object, at most MAX_BODY bytes."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise Refused("request", 400)
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if size > MAX_BODY:
            raise Refused("request", 413)
        if not message.get("more_body"):
            break
    try:
        body = json.loads(b"".join(chunks) or b"{}")
    except (ValueError, RecursionError):
        raise Refused("request", 400) from None
    if not isinstance(body, dict):
        raise Refused("request", 400)
    return body


async def _json(send: Any, status: int, data: dict) -> None:
    body = json.dumps(data, separators=(",", ":")).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [*HEADERS, (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
