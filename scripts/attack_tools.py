"""The plumbing of scripts/attack.py: the app on loopback behind a pretend proxy, raw HTTP calls, the student.

Every client is on 127.0.0.1, so the server is started with ATTENTION_LAB_TRUSTED_PROXY=127.0.0.1 and each
simulated visitor sends its own X-Forwarded-For address, as a Space's proxy would.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path

from loadtest_tools import free_port

ROOT = Path(__file__).resolve().parent.parent
STUDENT_IP = "10.0.0.1"


class Server:
    """`python app.py` on a free loopback port, its own Gradio folder and log; stopped by stop()."""

    def __init__(self, **env: str) -> None:
        port, self.folder = free_port(), Path(tempfile.mkdtemp(prefix="lab-attack-"))
        self.log = self.folder.with_suffix(".log")
        full = dict(os.environ, GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port),
                    GRADIO_TEMP_DIR=str(self.folder), ATTENTION_LAB_WARM="0", ATTENTION_LAB_TRUSTED_PROXY="127.0.0.1",
                    GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1", **env)
        out = open(self.log, "w")  # noqa: SIM115 - a file, not a pipe: a full pipe would block the app
        self.proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=full, stdout=out,
                                     stderr=subprocess.STDOUT, text=True)
        self.url, self.port, t0 = f"http://127.0.0.1:{port}/", port, time.perf_counter()
        while time.perf_counter() - t0 < 180:
            if self.proc.poll() is not None:
                raise SystemExit(f"the app exited during start-up:\n{self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url, timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise SystemExit("no HTTP 200 within 180 s")

    def status(self, field: str) -> float:
        """A number from /proc/<pid>/status: VmRSS in MiB, Threads as a count."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            value = next(int(line.split()[1]) for line in f if line.startswith(field + ":"))
        return value / 1024 if field == "VmRSS" else value

    def cpu_seconds(self) -> float:
        """CPU time of the server and its children (training worker, forkserver) so far."""
        total = 0.0
        for pid in [self.proc.pid, *_children(self.proc.pid)]:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            except (OSError, IndexError):
                pass
        return total

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.folder, ignore_errors=True)
        self.log.unlink(missing_ok=True)


def _children(pid: int) -> list[int]:
    found = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                found += [int(child), *_children(int(child))]
    except OSError:
        pass
    return found


class Sampler(threading.Thread):
    """The server's RSS (MiB) and thread count, every 0.5 s until stopped: their maxima."""

    def __init__(self, server: Server) -> None:
        super().__init__(daemon=True)
        self.server, self.rss, self.threads, self._halt = server, 0.0, 0, threading.Event()

    def run(self) -> None:
        while not self._halt.wait(0.5):
            try:
                self.rss = max(self.rss, self.server.status("VmRSS"))
                self.threads = max(self.threads, int(self.server.status("Threads")))
            except (OSError, StopIteration):
                return

    def stop(self) -> Sampler:
        self._halt.set()
        self.join()
        return self


def request(url: str, method: str, path: str, body: bytes | None = None, ip: str | None = None,
            headers: dict | None = None, timeout: float = 60.0) -> tuple[int, bytes, float]:
    """One HTTP request: (status, body, seconds); status 0 when the connection failed."""
    u = urllib.request.urlparse(url)
    conn, t0 = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout), time.perf_counter()
    hdrs = {"Content-Type": "application/json", **({"X-Forwarded-For": ip} if ip else {}), **(headers or {})}
    try:
        conn.request(method, path, body, hdrs)
        r = conn.getresponse()
        return r.status, r.read(), time.perf_counter() - t0
    except OSError:
        return 0, b"", time.perf_counter() - t0
    finally:
        conn.close()


def detail(raw: bytes) -> str:
    try:
        value = json.loads(raw).get("detail", "")
    except (ValueError, AttributeError):
        return raw[:120].decode("utf-8", "replace")
    return value if isinstance(value, str) else json.dumps(value)


def post_call(url: str, api: str, data: list, ip: str, session: str | None = None) -> tuple[int, str]:
    """POST /gradio_api/call/<api> without reading the answer: (status, event id or the refusal's sentence)."""
    body = {"data": data, **({"session_hash": session} if session else {})}
    status, raw, _ = request(url, "POST", f"/gradio_api/call/{api}", json.dumps(body).encode(), ip)
    return status, (json.loads(raw)["event_id"] if status == 200 else detail(raw))


def call(url: str, api: str, data: list, ip: str, session: str | None = None,
         timeout: float = 120.0) -> tuple[bool, float, str]:
    """A whole /call: (answered, seconds, the error or refusal sentence, "" if answered)."""
    t0 = time.perf_counter()
    status, event = post_call(url, api, data, ip, session)
    if status != 200:
        return False, time.perf_counter() - t0, f"{status} {event}"
    status, raw, _ = request(url, "GET", f"/gradio_api/call/{api}/{event}", ip=ip, timeout=timeout)
    seconds = time.perf_counter() - t0
    for kind, value in re.findall(r"event: (\w+)\ndata: (.*)\n", raw.decode("utf-8", "replace")):
        if kind == "complete":
            return True, seconds, ""
        if kind == "error":
            return False, seconds, value[:200]
    return False, seconds, f"no answer ({status})"


def fn_index(url: str, api: str) -> int:
    _, raw, _ = request(url, "GET", "/config")
    return next(d["id"] for d in json.loads(raw)["dependencies"] if d.get("api_name") == api)


def cancel(url: str, session: str, index: int, event: str, ip: str) -> int:
    body = json.dumps({"session_hash": session, "fn_index": index, "event_id": event}).encode()
    return request(url, "POST", "/gradio_api/cancel", body, ip)[0]


def attention_data(seed: int) -> list:
    """/attention's values: a new seed each time (computed, not cached)."""
    return ["the student keeps working on attention", "multi-head", True, True, 2, 16, seed, "{}"]


class Student(threading.Thread):
    """A student clicking /attention (a new seed each click, 50 ms between clicks) until stopped."""

    seed = 0

    def __init__(self, url: str, ip: str = STUDENT_IP) -> None:
        super().__init__(daemon=True)
        self.url, self.ip, self.session = url, ip, uuid.uuid4().hex[:10]
        self.seconds: list[float] = []
        self.errors: list[str] = []
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            Student.seed += 1
            ok, seconds, error = call(self.url, "attention", attention_data(Student.seed), self.ip, self.session)
            (self.seconds.append(seconds) if ok else self.errors.append(error))
            self._halt.wait(0.05)

    def stop(self) -> Student:
        self._halt.set()
        self.join(timeout=130)
        return self


def alone(url: str, seconds: float) -> Student:
    student = Student(url)
    student.start()
    time.sleep(seconds)
    return student.stop()


def pct(values: list[float], q: float) -> float:
    """The q-th percentile in ms (nan for no values)."""
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0] * 1000
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] * 1000
