"""What one HTTP request may cost the server before any route reads it: a cap on the body, in one sentence; and a cap
on the shape of any one value it holds (bounded, which core/ui/inputs.py applies to every input of every event).

Gradio reads a request's JSON body whole, and nothing caps it: twenty 50 MB bodies held a gigabyte.
This ASGI middleware refuses a body over the cap (413) from its Content-Length, or as soon as a body
sent without one passes the cap, so it is never read into memory. A request whose body is not what the
route takes (FastAPI's 422) is answered in one sentence as well.

`answer` is how every middleware of the app answers a request itself, and `said` makes its sentence in the
request's language (the page's cookie, else the browser's Accept-Language), as an event's would be.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from ..config import ConfigError
from ..i18n import mark, normal, speaking, t

MAX_BODY_BYTES = 1 << 20  # a sentence is cut at 4,097 characters anyway; 1 MiB leaves room for any control
TOO_LARGE = mark("The request is larger than 1 MiB; the lab reads at most 4,096 characters of a sentence, so send "
                 "less.")
COOKIE = "lab_lang"  # where the page keeps its language (core/ui/i18n.py writes it, core.ui.i18n.COOKIE)


class BodyLimit:
    """ASGI middleware: 413 with one sentence for a body over max_bytes, before the app reads it."""

    def __init__(self, app: Any, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            await answer(send, 413, said(scope, TOO_LARGE))
            return
        received, started, refused = 0, False, False

        async def counted() -> dict:
            """The body as it arrives; past the cap, answer 413 ourselves and tell the app the client left."""
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    refused = True
                    if not started:
                        await answer(send, 413, said(scope, TOO_LARGE))
                    return {"type": "http.disconnect"}
            return message

        async def watched(message: dict) -> None:
            nonlocal started
            if refused:
                return  # answered already: whatever the app says about the "disconnect" goes nowhere
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, counted, watched)


async def answer(send: Any, status: int, sentence: str) -> None:
    """A whole HTTP response from an ASGI middleware: the status and {"detail": sentence} as JSON."""
    body = json.dumps({"detail": sentence}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def language_of(headers: Mapping[str, str]) -> str:
    """The language a request's page shows: the cookie the page keeps, else the browser's Accept-Language
    (headers by lower-case name); English for a script that says neither."""
    for part in headers.get("cookie", "").split(";"):
        key, _, value = part.strip().partition("=")
        if key == COOKIE and value:
            return normal(unquote(value))
    return normal(headers.get("accept-language", "").split(",")[0].split(";")[0])


def headers_of(scope: dict) -> dict[str, str]:
    """An ASGI scope's headers, by lower-case name."""
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}


def said(scope: dict, msgid: str, **fields: Any) -> str:
    """t(msgid, **fields) in the language of the request a middleware answers itself."""
    with speaking(language_of(headers_of(scope))):
        return t(msgid, **fields)


def invalid_request_sentence(errors: list[dict]) -> str:
    """FastAPI's list of validation errors as one sentence: the first field and what is wrong with it (in FastAPI's
    own words, which the sentence quotes)."""
    first = errors[0] if errors else {}
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")[:60]
    what = str(first.get("msg", "")).rstrip(".")[:80]
    if not where:
        where = t("the body")
    if not what:
        return t("The request is not what this endpoint takes: {where} is not valid.", where=where)
    return t("The request is not what this endpoint takes: {where}: {what}.", where=where, what=what)


MAX_NESTING = 32  # levels of lists, objects (or their brackets in a text) any value may have: the lab's take 2
MAX_ITEMS = 100_000  # values in one input, all levels together
MESSAGES = {
    "nested": mark("{name} nests {depth} levels deep; the lab reads at most {most}, so send it as the page does"),
    "deep": mark("{name} nests lists or objects more than {most} levels deep; send it as the page does"),
    "items": mark("{name} holds more than {most:,} values; send it as the page does"),
}


def bounded(name: str, value: Any) -> None:
    """Any input's shape, whatever its control: at most MAX_NESTING levels of lists and objects, and in a text at most
    MAX_NESTING open brackets ([ or {), so no handler's JSON reader recurses past Python's limit (a RecursionError
    would be the apology, not a sentence); at most MAX_ITEMS values. ConfigError naming the field otherwise."""
    if isinstance(value, str):
        depth = deepest = 0
        for ch in value:
            if ch in "[{":
                depth += 1
                deepest = max(deepest, depth)
            elif ch in "]}":
                depth = max(depth - 1, 0)
        if deepest > MAX_NESTING:
            raise ConfigError(t(MESSAGES["nested"], name=name, depth=f"{deepest:,}", most=MAX_NESTING))
        return
    if not isinstance(value, (list, tuple, dict)):
        return
    level, items, deepest = [value], 0, 1
    while level:  # breadth first, one level at a time: no recursion
        deeper = []
        for v in level:
            children = v.values() if isinstance(v, dict) else v
            items += len(children)
            if items > MAX_ITEMS:
                raise ConfigError(t(MESSAGES["items"], name=name, most=MAX_ITEMS))
            deeper += [c for c in children if isinstance(c, (list, tuple, dict))]
        if deeper:
            deepest += 1
            if deepest > MAX_NESTING:
                raise ConfigError(t(MESSAGES["deep"], name=name, most=MAX_NESTING))
        level = deeper
