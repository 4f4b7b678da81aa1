"""Issue #26's fast cases on the live app: a bounded queue that is the only way in, 4xx sentences, timeouts, logs."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from urllib.parse import urlparse

import httpx
import pytest

from core.serve import clients, errors
from core.serve.pages import PageCache
from core.ui import gradio_seams as seams
from core.ui import server_seams

JUNK = [  # (method, path, body, headers, status): each once made a 500 with a traceback
    ("POST", "gradio_api/call/junkname", {"data": ["x"]}, {}, 404),
    ("GET", "gradio_api/file=x", None, {"Range": "bytes=0-1,3-4"}, 416),
    ("GET", "a" * 20000, None, {}, 414),  # (the attack script sends 64 KB: httpx refuses to)
    ("POST", "gradio_api/component_server", {"data": 1, "component_id": 99999, "session_hash": "x", "fn_name": "y"},
     {}, 404),
    ("POST", "gradio_api/run/cost", {"data": [1024, 8]}, {}, 404),  # the direct REST route: closed to queued events
]


def test_the_queue_is_bounded_and_the_only_way_in(demo, app_url):
    assert demo.api_open is False  # (the queue's own bound and seams: tests/test_gradio_seams.py)


@pytest.mark.parametrize(("method", "path", "body", "headers", "status"), JUNK, ids=lambda v: str(v)[:20])
def test_a_malformed_request_gets_a_4xx_sentence(app_url, method, path, body, headers, status):
    r = httpx.request(method, app_url + path, json=body, headers=headers, timeout=30)
    assert r.status_code == status, r.text[:200]
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and "Traceback" not in r.text and len(detail) < 220


def test_an_unknown_session_or_event_is_a_404_sentence_and_a_known_one_is_answered(app_url):
    for path in ("gradio_api/queue/data?session_hash=nobody", "gradio_api/call/attention/no-such-event"):
        r = httpx.get(app_url + path, timeout=30)
        assert r.status_code == 404 and r.json()["detail"] == seams.NO_ANSWER
    event = httpx.post(app_url + "gradio_api/call/attention", json={"data": ["x"]}, timeout=30).json()["event_id"]
    r = httpx.get(app_url + f"gradio_api/call/attention/{event}", timeout=30)
    assert r.status_code == 200 and "event: error" in r.text  # one sentence: the event takes 8 values


def test_headers_that_never_end_are_cut_off(app_url, monkeypatch):
    monkeypatch.setattr(server_seams, "HEADER_SECONDS", 0.5)  # (re-exported by the door, read where it lives)
    u = urlparse(app_url)
    with socket.create_connection((u.hostname, u.port), timeout=5) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        t0 = time.perf_counter()
        assert sock.recv(100) == b""  # closed by the server
        assert time.perf_counter() - t0 < 3


def test_a_body_that_never_ends_gets_a_408_sentence():
    async def app(scope, receive, send):
        while (await receive()).get("more_body"):
            pass
        await errors.answer(send, 200, "read")

    async def receive():
        await asyncio.sleep(0.05)
        return {"type": "http.request", "body": b"x", "more_body": True}

    sent = []

    async def send(message):
        sent.append(message)

    asyncio.run(errors.Sentences(app, body_seconds=0.3)({"type": "http", "path": "/x", "headers": []}, receive, send))
    assert sent[0]["status"] == 408 and json.loads(sent[1]["body"])["detail"] == errors.TOO_SLOW
    assert len(sent) == 2  # the app's own answer to the "disconnect" goes nowhere


def test_an_error_a_route_lets_out_is_one_sentence_and_one_log_line(caplog):
    async def app(scope, receive, send):
        raise KeyError("component 99999")

    sent = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    errors._FILTER._last.clear()
    errors.bound_logs()
    with caplog.at_level(logging.WARNING, logger="attention_lab.http"):
        for _ in range(5):
            asyncio.run(errors.Sentences(app)({"type": "http", "method": "POST", "path": "/x", "headers": []},
                                              receive, send))
    assert sent[0]["status"] == 404 and "Traceback" not in sent[1]["body"].decode()
    assert len([r for r in caplog.records if r.name == "attention_lab.http"]) == 1


def test_the_log_says_each_distinct_error_once_a_minute():
    f = errors.OncePerMinute(seconds=60)
    record = lambda msg, key="": logging.LogRecord("uvicorn.error", logging.ERROR, "x", 1, msg, (), None)  # noqa: E731
    assert f.filter(record("Exception in ASGI application")) is True
    assert f.filter(record("Exception in ASGI application")) is False
    assert f.filter(record("Invalid HTTP request received.")) is True
    again = record("Invalid HTTP request received.")
    assert f.filter(again) is False and f.filter(again) is False  # a record seen twice (logger + handler): one verdict


def test_the_page_and_its_config_are_built_once():
    built = []

    async def app(scope, receive, send):
        built.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/html")]})
        await send({"type": "http.response.body", "body": b"<html>" + scope["path"].encode()})

    cache, sent = PageCache(app), []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    async def load(path, host=b"a", query=b""):
        await cache({"type": "http", "method": "GET", "path": path, "query_string": query,
                     "headers": [(b"host", host)]}, receive, send)

    for _ in range(5):
        asyncio.run(load("/"))
        asyncio.run(load("/config"))
    asyncio.run(load("/", host=b"b"))  # another root URL: its own page
    asyncio.run(load("/", query=b"deep_link=x"))  # a deep link: never cached
    assert built == ["/", "/config", "/", "/"]
    assert sent[-3]["body"] == b"<html>/"


def test_the_direct_routes_give_one_client_its_share_only(monkeypatch):
    monkeypatch.delenv("SPACE_ID", raising=False)
    monkeypatch.delenv("ATTENTION_LAB_TRUSTED_PROXY", raising=False)

    async def scenario():
        release = asyncio.Event()

        async def app(scope, receive, send):
            await release.wait()
            await errors.answer(send, 200, "done")

        share, statuses = clients.DirectShare(app), []

        async def one(host):
            async def send(message):
                if message["type"] == "http.response.start":
                    statuses.append((host, message["status"]))
            scope = {"type": "http", "path": "/gradio_api/run/predict", "client": (host, 1), "headers": []}
            await share(scope, None, send)

        tasks = [asyncio.ensure_future(one("10.3.3.3")) for _ in range(clients.PER_CLIENT + 1)]
        await asyncio.sleep(0.05)
        assert statuses == [("10.3.3.3", 429)]
        other = asyncio.ensure_future(one("10.4.4.4"))
        release.set()
        await asyncio.gather(*tasks, other)
        assert statuses.count(("10.3.3.3", 200)) == clients.PER_CLIENT and ("10.4.4.4", 200) in statuses
        assert not share.in_flight

    asyncio.run(scenario())
