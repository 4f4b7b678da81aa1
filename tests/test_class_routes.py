"""The live class's protocol against the running app: start, follow by server-sent events, teacher-only moves, one
sentence for every refusal in the page's language, a dropped stream landing on the current step, the per-client
share, and the load script's small case (10 followers)."""

from __future__ import annotations

import asyncio
import json
import queue
import socket
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from core.serve import clients

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))


class Stream:
    """A follower's event stream on a plain socket, read in a thread: each message as (event, data); close() drops it
    as a network would."""

    def __init__(self, url: str, code: str, page: str = "pytest-page-0001", lang: str = "en", role: str = "") -> None:
        self.messages: queue.Queue = queue.Queue()
        self.closed = threading.Event()
        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
        target = f"/class/{code}/events?page={page}" + (f"&role={role}" if role else "")
        self.sock.sendall(f"GET {target} HTTP/1.0\r\nHost: {parts.netloc}\r\nCookie: lab_lang={lang}\r\n\r\n".encode())
        self.sock.settimeout(None)
        self.file = self.sock.makefile("rb")
        self.status = int(self.file.readline().split()[1])
        self.headers = {}
        while (line := self.file.readline().decode().strip()):
            name, _, value = line.partition(":")
            self.headers[name.lower()] = value.strip()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        event = "message"
        try:
            for raw in self.file:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    self.messages.put((event, json.loads(line[5:])))
                elif not line:
                    event = "message"
        except (OSError, ValueError):
            pass
        finally:
            self.closed.set()

    def next(self, timeout: float = 10.0) -> tuple[str, dict]:
        return self.messages.get(timeout=timeout)

    def until(self, test, timeout: float = 10.0) -> dict:
        while True:
            event, data = self.next(timeout)
            if event == "message" and test(data):
                return data

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self._thread.join(5)


def post(url: str, path: str, body: dict, lang: str = "en") -> httpx.Response:
    return httpx.post(f"{url}{path}", json=body, cookies={"lab_lang": lang}, timeout=30)


@pytest.fixture
def klass(app_url):
    r = post(app_url, "class/new", {"lesson": "chapter", "step": 2, "base": app_url})
    assert r.status_code == 200, r.text
    made = r.json()
    yield made
    post(app_url, f"class/{made['code']}/end", {"secret": made["secret"]})


def test_a_class_starts_with_a_code_a_link_and_a_qr_code_and_followers_get_each_step_at_once(app_url, klass):
    code = klass["code"]
    assert klass["link"] == f"{app_url.split('?')[0]}?class={code}" and (klass["lesson"], klass["step"]) == ("chapter", 2)
    assert len(klass["qr"]) == len(klass["qr"][0]) >= 21 and set("".join(klass["qr"])) == {"0", "1"}
    streams = [Stream(app_url, code, page=f"pytest-page-{i:04d}") for i in range(3)]
    try:
        for s in streams:
            assert s.next()[1]["step"] == 2
        assert "text/event-stream" in streams[0].headers["content-type"]
        teacher = Stream(app_url, code, role="teacher")
        assert teacher.until(lambda d: d["followers"] == 3)["followers"] == 3  # the teacher's own is not counted
        r = post(app_url, f"class/{code}/step", {"secret": klass["secret"], "lesson": "chapter", "step": 5})
        assert r.status_code == 200 and r.json()["step"] == 5
        for s in streams:
            assert s.until(lambda d: d["step"] == 5)["lesson"] == "chapter"
        streams[0].close()
        assert teacher.until(lambda d: d["followers"] == 2)["step"] == 5
        assert klass["secret"] not in json.dumps(list(teacher.messages.queue))  # the secret is the teacher's alone
        teacher.close()
    finally:
        for s in streams:
            s.close()


def test_only_the_page_holding_the_secret_moves_reveals_or_ends_and_is_told_so_in_its_language(app_url, klass):
    code = klass["code"]
    for action in ("step", "reveal", "end"):
        r = post(app_url, f"class/{code}/{action}", {"secret": "guess", "lesson": "chapter", "step": 9}, lang="zh-CN")
        assert r.status_code == 403 and r.json()["detail"] == "只有开始这个课堂的页面才能翻页、揭晓答案或结束课堂。"
    assert httpx.get(f"{app_url}class/{code}").json()["step"] == 2


def test_a_guessed_or_ended_code_is_one_sentence_on_the_stream_and_on_the_page(app_url, klass):
    guessed = Stream(app_url, "ZZZZ99", lang="es")
    event, data = guessed.next()
    assert event == "refused" and data["status"] == 404
    assert data["detail"] == ("No hay ninguna clase con el código ZZZZ99: revisa el código; puede que la clase haya "
                              "terminado.")
    assert guessed.closed.wait(5)
    follower = Stream(app_url, klass["code"])
    assert follower.next()[1]["ended"] == ""
    assert post(app_url, f"class/{klass['code']}/end", {"secret": klass["secret"]}).status_code == 200
    assert follower.until(lambda d: d["ended"])["ended"] == "ended"
    assert follower.closed.wait(5)  # the stream ends with the class
    r = httpx.get(f"{app_url}class/{klass['code']}", cookies={"lab_lang": "zh-CN"})
    assert r.status_code == 404 and r.json()["detail"].startswith("没有代码为") and r.json()["detail"].count("。") == 1
    for s in (guessed, follower):
        s.close()


def test_a_dropped_stream_opened_again_starts_on_the_current_step(app_url, klass):
    s = Stream(app_url, klass["code"])
    assert s.next()[1]["step"] == 2
    s.close()  # the connection drops; the class moves meanwhile
    post(app_url, f"class/{klass['code']}/step", {"secret": klass["secret"], "lesson": "chapter", "step": 7})
    again = Stream(app_url, klass["code"])
    assert again.next()[1]["step"] == 7
    again.close()


def test_an_open_stream_counts_once_against_the_clients_share(app_url, klass, monkeypatch):
    monkeypatch.setattr(clients, "PER_CLIENT", 3)
    streams = [Stream(app_url, klass["code"], page=f"pytest-share-{i:04d}") for i in range(3)]
    try:
        for s in streams:
            s.next()
        r = httpx.get(f"{app_url}class/{klass['code']}")
        assert r.status_code == 429 and "3" in r.json()["detail"]
        streams[0].close()
        for _ in range(50):
            r = httpx.get(f"{app_url}class/{klass['code']}")
            if r.status_code == 200:
                break
            threading.Event().wait(0.1)
        assert r.status_code == 200
    finally:
        for s in streams:
            s.close()


def test_a_request_the_class_does_not_take_is_one_sentence(app_url, klass):
    for path, body in [("class/new", {"lesson": "chapter", "step": 0, "base": app_url}),
                       ("class/new", {"lesson": "chapter", "step": 1, "base": "javascript:alert(1)"}),
                       (f"class/{klass['code']}/answer", {"page": "x", "step": 2, "value": 1}),
                       (f"class/{klass['code']}/nothing", {})]:
        r = post(app_url, path, body)
        assert 400 <= r.status_code < 500 and r.json()["detail"].endswith("."), (path, r.text)
    r = httpx.post(f"{app_url}class/new", content=b"[" * 5000, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["detail"]


def test_the_load_scripts_small_case_delivers_every_step_to_ten_followers(app_url):
    import class_load

    row = asyncio.run(class_load.deliveries(app_url, 10, forwarded=False, steps=3, gap=0.3))
    print("class_load, 10 followers:", row)
    assert row["delivered"] == 30 and row["missing"] == 0
    assert row["drawn"] == 30 and "draw_errors" not in row  # each follower's page drew each step


def test_thirty_students_opening_a_class_link_cost_one_page_build():
    """The lab's own links (?class=, ?lesson=, ?step=) are the same page byte for byte (measured on the app: 762 KB,
    equal), so the page cache answers them; a Gradio deep link is still built for itself."""
    import asyncio as aio

    from core.serve.pages import PageCache

    built = []

    async def app(scope, receive, send):
        built.append(scope.get("query_string"))
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/html")]})
        await send({"type": "http.response.body", "body": b"<html>"})

    cache = PageCache(app)

    async def load(query: bytes) -> None:
        async def receive():
            return {"type": "http.request", "body": b""}

        async def send(message):
            pass

        await cache({"type": "http", "method": "GET", "path": "/", "query_string": query,
                     "headers": [(b"host", b"a")]}, receive, send)

    for query in [b"class=K7PQ4M"] * 30 + [b"lesson=chapter&class=new", b"lesson=v1-v2&step=3", b""]:
        aio.run(load(query))
    aio.run(load(b"class=K7PQ4M&deep_link=x"))
    assert built == [b"class=K7PQ4M", b"class=K7PQ4M&deep_link=x"]

