"""The plumbing of scripts/reliability.py: the app with hostile plugins, plain-HTTP calls, and what an error is.

Every call goes over plain HTTP on loopback, the way a browser or gradio_client makes it: named
endpoints through POST /gradio_api/call/<name>, the page's own events through /gradio_api/queue/join.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urlparse

from loadtest_tools import free_port

ROOT = Path(__file__).resolve().parent.parent
APOLOGY = "Something went wrong computing this view; try other settings."  # core.ui.common.APOLOGY, as the page says it
RAW = ("Traceback", "Could not preprocess", "Original error", "  File \"")


def start_app(plugin_seconds: float) -> tuple[subprocess.Popen, str, Path]:
    """The app with the hostile plugins, on a free loopback port, with its own Gradio folder (to measure disk)."""
    port, folder = free_port(), Path(tempfile.mkdtemp(prefix="lab-reliability-"))
    env = dict(os.environ, GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port), GRADIO_TEMP_DIR=str(folder),
               ATTENTION_LAB_PLUGIN_SECONDS=str(plugin_seconds), ATTENTION_LAB_WARM="0",
               ATTENTION_LAB_TRUSTED_PROXY="127.0.0.1",  # each simulated student is its own visitor (visitor())
               GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1")
    log = open(server_log(folder), "w")  # noqa: SIM115 - a file, not a pipe: a full pipe would block the app
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("reliability_app.py"))], cwd=ROOT,
                            env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    url, t0 = f"http://127.0.0.1:{port}/", time.perf_counter()
    while time.perf_counter() - t0 < 180:
        if proc.poll() is not None:
            raise SystemExit(f"the app exited during start-up:\n{server_log(folder).read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return proc, url, folder
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("no HTTP 200 within 180 s")


def server_log(folder: Path) -> Path:
    """The app's stdout and stderr, beside its Gradio folder (not in it: the disk probe measures that)."""
    return folder.with_suffix(".log")


def stop_app(proc: subprocess.Popen, folder: Path) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
    shutil.rmtree(folder, ignore_errors=True)
    server_log(folder).unlink(missing_ok=True)


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def children_rss_mib(pid: int) -> float:
    """RSS of the server's child processes (plugin workers, training), which are not the server's own."""
    total = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                total += rss_mib(int(child)) + children_rss_mib(int(child))
            except (OSError, StopIteration):
                pass
    return total


def disk_mib(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20


class Answer:
    """One call's outcome: the HTTP status, the output data or the error message, and its seconds."""

    def __init__(self, status: int, data: list | None = None, error: str | None = None, seconds: float = 0.0):
        self.status, self.data, self.error, self.seconds = status, data, error, seconds

    @property
    def ok(self) -> bool:
        return self.status == 200 and self.error is None and self.data is not None


def visitor(session: str | None) -> dict:
    """The X-Forwarded-For a session's student sends: one address per session, as if each had its own machine
    behind the Space's proxy (the app counts its per-visitor limits by address, core.serve.clients)."""
    if session is None:
        return {}
    h = hashlib.sha1(session.encode()).digest()
    return {"X-Forwarded-For": f"10.{h[0]}.{h[1]}.{h[2]}"}


def _conn(url: str, timeout: float) -> http.client.HTTPConnection:
    u = urlparse(url)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)


def call(url: str, api_name: str, data: list | None = None, body: bytes | None = None, session: str | None = None,
         timeout: float = 120.0) -> Answer:
    """POST /gradio_api/call/<api_name>, then read its answer (as curl or gradio_client would)."""
    if body is None:
        payload = {"data": data} if session is None else {"data": data, "session_hash": session}
        body = json.dumps(payload).encode("utf-8", "surrogatepass")  # NaN, inf and lone surrogates go as sent
    conn, t0 = _conn(url, timeout), time.perf_counter()
    try:
        conn.request("POST", f"/gradio_api/call/{api_name}", body,
                     {"Content-Type": "application/json", **visitor(session)})
        r = conn.getresponse()
        text = r.read().decode("utf-8", "replace")
        if r.status != 200:
            return Answer(r.status, error=_detail(text), seconds=time.perf_counter() - t0)
        conn.request("GET", f"/gradio_api/call/{api_name}/{json.loads(text)['event_id']}", headers=visitor(session))
        stream = conn.getresponse().read().decode("utf-8", "replace")
    finally:
        conn.close()
    seconds = time.perf_counter() - t0
    events = re.findall(r"event: (\w+)\ndata: (.*)\n", stream)
    for event, raw in events:
        if event == "complete":
            return Answer(200, data=json.loads(raw), seconds=seconds)
        if event == "error":
            value = json.loads(raw) if raw.strip() not in ("", "null") else None
            return Answer(200, error=value.get("error") if isinstance(value, dict) else value, seconds=seconds)
    return Answer(200, error=f"<no answer: {stream[-200:]!r}>", seconds=seconds)


def join(url: str, fn_index: int, data: list, session: str | None = None, timeout: float = 120.0) -> Answer:
    """One of the page's own events (private ones too), as the browser sends it: /queue/join, then /queue/data."""
    session = session or uuid.uuid4().hex[:12]
    body = json.dumps({"data": data, "fn_index": fn_index, "session_hash": session, "event_data": None,
                       "trigger_id": None}).encode("utf-8", "surrogatepass")
    conn, t0 = _conn(url, timeout), time.perf_counter()
    try:
        conn.request("POST", "/gradio_api/queue/join", body, {"Content-Type": "application/json", **visitor(session)})
        r = conn.getresponse()
        text = r.read().decode("utf-8", "replace")
        if r.status != 200:
            return Answer(r.status, error=_detail(text), seconds=time.perf_counter() - t0)
        event_id = json.loads(text)["event_id"]
        conn.request("GET", f"/gradio_api/queue/data?session_hash={session}", headers=visitor(session))
        stream = conn.getresponse()
        while True:
            line = stream.readline()
            if not line:
                return Answer(200, error="<stream ended without an answer>", seconds=time.perf_counter() - t0)
            if not line.startswith(b"data:"):
                continue
            msg = json.loads(line[5:])
            if msg.get("event_id") == event_id and msg.get("msg") == "process_completed":
                out = msg.get("output") or {}
                seconds = time.perf_counter() - t0
                if msg.get("success"):
                    return Answer(200, data=out.get("data"), seconds=seconds)
                return Answer(200, error=out.get("error"), seconds=seconds)
    finally:
        conn.close()


def raw_post(url: str, path: str, body, headers: dict | None = None, timeout: float = 120.0) -> Answer:
    """A POST with any body (bytes, or an iterator of chunks: sent without a Content-Length)."""
    conn, t0 = _conn(url, timeout), time.perf_counter()
    try:
        conn.request("POST", path, body, {"Content-Type": "application/json", **(headers or {})},
                     encode_chunked=not isinstance(body, (bytes, str)))
        r = conn.getresponse()
        text = r.read().decode("utf-8", "replace")
        return Answer(r.status, error=None if r.status == 200 else _detail(text), seconds=time.perf_counter() - t0)
    except (ConnectionResetError, BrokenPipeError):  # refused before the whole body was sent
        return Answer(413, error="<connection closed while sending>", seconds=time.perf_counter() - t0)
    finally:
        conn.close()


def get(url: str, path: str, timeout: float = 60.0) -> tuple[int, bytes]:
    conn = _conn(url, timeout)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def _detail(text: str) -> str:
    try:
        detail = json.loads(text).get("detail", text)
    except (ValueError, AttributeError):
        detail = text
    return detail if isinstance(detail, str) else json.dumps(detail)


def kind_of(message: object, sent: list | None = None) -> str:
    """What kind of error message a person got: "sentence" is the only good kind."""
    if not isinstance(message, str) or not message.strip():
        return "no message"
    if message == APOLOGY:
        return "apology (a bug)"
    if "\n" in message:
        return "several lines"
    if any(marker in message for marker in RAW):
        return "raw internals"
    if len(message) > 220:
        return "too long"
    if re.search(r"[.!?] [A-Z]", message):
        return "several sentences"
    for value in sent or []:
        if isinstance(value, str) and len(value) > 60 and value[:60] in message:
            return "echoes the input"
    return "sentence"
