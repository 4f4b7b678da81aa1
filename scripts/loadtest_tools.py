"""The plumbing of scripts/loadtest.py: the app in its own process, its RSS and CPU, clients, summaries."""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(root: Path = ROOT) -> tuple[subprocess.Popen, str, float]:
    """`python app.py` (in `root`: another checkout can be measured) on a free loopback port; seconds from
    spawn to the first HTTP 200 on /."""
    port = free_port()
    env = dict(os.environ, GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port),
               ATTENTION_LAB_TRUSTED_PROXY="127.0.0.1")  # each student its own visitor: client(url, address)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=root, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/"
    while time.perf_counter() - t0 < 120:
        if proc.poll() is not None:
            raise SystemExit(f"the app exited during start-up:\n{proc.stderr.read()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return proc, url, time.perf_counter() - t0
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("no HTTP 200 within 120 s")


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


class RssSampler(threading.Thread):
    """Samples the server's RSS every `every` seconds until stopped."""

    def __init__(self, pid: int, every: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.pid, self.every, self.samples, self._halt = pid, every, [], threading.Event()

    def run(self) -> None:
        t0 = time.perf_counter()
        while not self._halt.is_set():
            self.samples.append((round(time.perf_counter() - t0, 1), round(rss_mib(self.pid), 1)))
            self._halt.wait(self.every)

    def stop(self) -> list[tuple[float, float]]:
        self._halt.set()
        self.join()
        return self.samples


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far: the cost of the work, whatever the neighbours do."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def client(url: str, address: str | None = None):
    """A student's browser: no 5 s give-up on a queued event (httpx's default), and no TLS on loopback.

    ssl_verify=False matters here: otherwise gradio_client builds two SSL contexts per call, each
    loading the CA bundle (~120 ms CPU per call on this machine), on the same 2 cores as the server.
    """
    from gradio_client import Client

    headers = {"X-Forwarded-For": address} if address else None  # believed only from a trusted proxy
    return Client(url, verbose=False, analytics_enabled=False, download_files=False, ssl_verify=False,
                  httpx_kwargs={"timeout": 120}, headers=headers)


def endpoint_defaults(c) -> dict[str, dict]:
    """api_name -> keyword arguments from the app's own defaults (or examples): a click with no edits."""
    api = c.view_api(print_info=False, return_format="dict")["named_endpoints"]
    calls = {}
    for name, info in api.items():
        calls[name] = {p["parameter_name"]: p["parameter_default"] if p.get("parameter_has_default")
                       else p.get("example_input") for p in info["parameters"]}
    return calls


def summary(latencies: list[float]) -> dict:
    if not latencies:
        return {"n": 0}
    qs = statistics.quantiles(latencies, n=20) if len(latencies) > 1 else [latencies[0]] * 19
    return {"n": len(latencies), "p50_ms": round(statistics.median(latencies) * 1000, 1),
            "p95_ms": round(qs[18] * 1000, 1), "max_ms": round(max(latencies) * 1000, 1)}


def raw_call(url: str, api_name: str, data: list, session: str) -> float:
    """Seconds for one call over plain HTTP (POST /gradio_api/call/<name>, then read its SSE answer), as
    curl would make it but with a session like a browser's. gradio_client cannot go below ~55 ms: its
    result loop sleeps 50 ms whenever no message is waiting (gradio_client/utils.py, stream_sse_v1plus)."""
    import http.client
    from urllib.parse import urlparse

    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    try:
        t0 = time.perf_counter()
        conn.request("POST", f"/gradio_api/call/{api_name}", json.dumps({"data": data, "session_hash": session}),
                     {"Content-Type": "application/json"})
        event_id = json.loads(conn.getresponse().read())["event_id"]
        conn.request("GET", f"/gradio_api/call/{api_name}/{event_id}")
        body = conn.getresponse().read().decode()
        elapsed = time.perf_counter() - t0
    finally:
        conn.close()
    if "event: complete" not in body:
        raise RuntimeError(f"/{api_name} over HTTP did not complete: {body[:200]}")
    return elapsed
