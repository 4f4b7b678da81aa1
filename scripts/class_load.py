"""A live class under load, over the protocol the page uses: how soon followers get each step, and what they cost.

    python scripts/class_load.py                 # start app.py, then: 30 joins at once, 1/60/200/500 followers, idle CPU
    python scripts/class_load.py --quick         # 10 followers only (what tests/test_class_routes.py runs)
    python scripts/class_load.py --url http://127.0.0.1:7860/ --followers 60   # against a running app

It starts `app.py` on a free loopback port behind a pretend proxy (each follower sends its own X-Forwarded-For, as
students on their own devices would be), opens a class as the teacher's page does (POST /class/new), and simulates
each follower as the page does: its event stream (GET /class/CODE/events), and for a join also the page and its
config and the event that draws the class's step (the panel's `submit`, an unqueued Gradio event). Followers are
asyncio connections in this one process (500 threads would cost the 2 cores more than the server does).
Printed: first-step latency of 30 joins at once (page + config + stream's first state + the step drawn), step
delivery p50/p95/max for each count of followers (the teacher's POST to each follower's frame), and until each
follower's event that draws the step was answered (drawn_p50/p95: what a page shows, before its browser paints), the teacher's
own POST time, the teacher's own page drawing each step before it tells the class, as its Next does (teacher_drawn: with
1 follower, its usual time), and the server's CPU with 60 idle followers (the share of one core over IDLE_SECONDS).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

STEPS = 8  # steps the teacher takes per measured count of followers
STEP_GAP = 1.5  # seconds between two steps
IDLE_SECONDS = 30.0
LESSON = "chapter"


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] if values else float("nan")


class Http:
    """Raw HTTP/1.0 over asyncio (no client library per follower): each call a fresh connection."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname, parts.port or 80

    async def open(self, method: str, path: str, body: dict | None = None, ip: str | None = None):
        reader, writer = await asyncio.open_connection(self.host, self.port, limit=1 << 22)
        data = json.dumps(body).encode() if body is not None else b""
        head = [f"{method} {path} HTTP/1.0", f"Host: {self.host}:{self.port}", "Accept-Language: en"]
        if ip:
            head.append(f"X-Forwarded-For: {ip}")
        if body is not None:
            head += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        await writer.drain()
        status = int((await reader.readline()).split()[1])
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass
        return status, reader, writer

    async def call(self, method: str, path: str, body: dict | None = None, ip: str | None = None) -> tuple[int, bytes]:
        status, reader, writer = await self.open(method, path, body, ip)
        payload = await reader.read()
        writer.close()
        return status, payload


class Follower:
    """One page following the class: its stream, and the time each step reached it."""

    def __init__(self, http: Http, code: str, ip: str | None, draw: int | None = None) -> None:
        self.http, self.code, self.ip, self.page = http, code, ip, uuid.uuid4().hex[:16]
        self.seen: dict[int, float] = {}  # step -> when its frame arrived
        self.drawn: dict[int, float] = {}  # step -> when the page's event that draws it was answered
        self.draw, self.session = draw, uuid.uuid4().hex[:11]  # draw: the panel's submit fn_index (None: only listen)
        self.errors: list[str] = []
        self.first = asyncio.get_running_loop().create_future()
        self.task: asyncio.Task | None = None

    async def follow(self) -> None:
        status, reader, writer = await self.http.open(
            "GET", f"/class/{self.code}/events?page={self.page}", ip=self.ip)
        try:
            if status != 200:
                raise RuntimeError(f"stream answered {status}")
            event = ""
            while True:
                line = await reader.readline()
                if not line:
                    break
                line = line.decode().rstrip("\r\n")
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    state = json.loads(line[5:])
                    if event == "refused":
                        raise RuntimeError(state["detail"])
                    if state["step"] not in self.seen and self.draw is not None and self.first.done():
                        asyncio.get_running_loop().create_task(self.drawing(state))
                    self.seen.setdefault(state["step"], time.perf_counter())
                    if not self.first.done():
                        self.first.set_result(state)
                elif not line:
                    event = ""
        except Exception as exc:
            if not self.first.done():
                self.first.set_exception(exc)
        finally:
            writer.close()

    async def drawing(self, state: dict) -> None:
        """What the page does with a new step: the panel's event that draws it (one unqueued Gradio event)."""
        try:
            status, body = await asyncio.wait_for(self.http.call("POST", "/gradio_api/run/predict", {
                "data": [], "fn_index": self.draw, "session_hash": self.session,
                "event_data": {"lesson": state["lesson"], "step": state["step"], "draw": True}}, ip=self.ip), 30)
        except TimeoutError:
            self.errors.append("no answer in 30 s")
            return
        if status == 200 and f"step {state['step']} of".encode() in body:
            self.drawn[state["step"]] = time.perf_counter()
        else:
            self.errors.append(f"{status} {body[:300]!r}")

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self.follow())

    def stop(self) -> None:
        if self.task:
            self.task.cancel()


class Teacher:
    def __init__(self, http: Http) -> None:
        self.http, self.step = http, 1

    async def start(self) -> str:
        status, body = await self.http.call("POST", "/class/new", {"lesson": LESSON, "step": 1,
                                                                    "base": "http://127.0.0.1/"}, ip="10.200.0.1")
        made = json.loads(body)
        if status != 200:
            raise SystemExit(f"could not start a class: {made}")
        self.code, self.secret = made["code"], made["secret"]
        return self.code

    async def move(self, step: int) -> tuple[float, float]:
        """(when the POST was sent, how long it took)."""
        t0 = time.perf_counter()
        status, body = await self.http.call("POST", f"/class/{self.code}/step",
                                            {"secret": self.secret, "lesson": LESSON, "step": step}, ip="10.200.0.1")
        if status != 200:
            raise RuntimeError(body.decode())
        return t0, time.perf_counter() - t0

    async def draw(self, step: int, fn: int) -> float:
        """The teacher's own page painting the step (the same server work as its Next press): seconds to answer."""
        t0 = time.perf_counter()
        status, body = await self.http.call("POST", "/gradio_api/run/predict", {
            "data": [], "fn_index": fn, "session_hash": "teacher0001",
            "event_data": {"lesson": LESSON, "step": step, "draw": True}}, ip="10.200.0.1")
        if status != 200 or f"step {step} of".encode() not in body:
            raise RuntimeError(f"the teacher's step {step} was not drawn: {status} {body[:200]!r}")
        return time.perf_counter() - t0

    async def end(self) -> None:
        await self.http.call("POST", f"/class/{self.code}/end", {"secret": self.secret}, ip="10.200.0.1")


def address(i: int, forwarded: bool) -> str | None:
    return f"10.{100 + i // 60000}.{i // 250 % 240}.{i % 250 + 1}" if forwarded else None


async def deliveries(url: str, n: int, forwarded: bool = True, steps: int = STEPS, gap: float = STEP_GAP,
                     draw: bool = True) -> dict:
    """n followers on one class; the teacher takes `steps` steps; each follower's delay for each step, and (draw)
    until the event that draws it on the follower's page was answered."""
    http = Http(url)
    teacher = Teacher(http)
    code = await teacher.start()
    fn = await _submit_index(http) if draw else None
    if draw:
        await teacher.draw(1, fn)  # (the teacher's page shows the first step before the class joins)
    followers = [Follower(http, code, address(i, forwarded), fn) for i in range(n)]
    for i, f in enumerate(followers):
        f.start()
        if i % 50 == 49:
            await asyncio.sleep(0.05)  # (the connections opened over a moment, as a class's would)
    await asyncio.wait_for(asyncio.gather(*(f.first for f in followers)), 120)
    await asyncio.sleep(1.0)
    delays, drawn, posts, own = [], [], [], []
    for k in range(2, 2 + steps):
        if draw:  # (as the teacher's page does: its Next paints the step, then tells the class)
            own.append(await teacher.draw(k, fn))
        sent, took = await teacher.move(k)
        posts.append(took)
        deadline = time.perf_counter() + 10
        while time.perf_counter() < deadline and not all(k in f.seen for f in followers):
            await asyncio.sleep(0.01)
        delays += [f.seen[k] - sent for f in followers if k in f.seen]
        while draw and time.perf_counter() < deadline + 20 and not all(k in f.drawn for f in followers):
            await asyncio.sleep(0.01)
        drawn += [f.drawn[k] - sent for f in followers if k in f.drawn]
        await asyncio.sleep(gap)
    missing = n * steps - len(delays)
    errors = [e for f in followers for e in f.errors]
    await teacher.end()
    await asyncio.sleep(0.2)
    for f in followers:
        f.stop()
    return {"followers": n, "steps": steps, "delivered": len(delays), "missing": missing,
            "p50_ms": 1000 * pct(delays, 0.5), "p95_ms": 1000 * pct(delays, 0.95), "max_ms": 1000 * max(delays),
            **({"drawn": len(drawn), "drawn_p50_ms": 1000 * pct(drawn, 0.5), "drawn_p95_ms": 1000 * pct(drawn, 0.95)}
               if draw else {}),
            "teacher_post_ms": 1000 * statistics.median(posts),
            **({"teacher_drawn_p50_ms": 1000 * pct(own, 0.5), "teacher_drawn_max_ms": 1000 * max(own)} if own else {}), **({"draw_errors": errors[:3]} if errors else {})}


async def joins(url: str, n: int = 30, forwarded: bool = True) -> dict:
    """n followers opening the class link at once: the page, its config, the stream's first state, the step drawn."""
    http = Http(url)
    teacher = Teacher(http)
    code = await teacher.start()
    await teacher.move(3)
    fn = await _submit_index(http)
    followers, phases = [], {"page": [], "config": [], "stream": [], "step": []}

    async def one(i: int) -> float:
        ip, t0 = address(i, forwarded), time.perf_counter()
        await http.call("GET", f"/?class={code}", ip=ip)
        phases["page"].append(time.perf_counter() - t0)
        await http.call("GET", "/config", ip=ip)
        phases["config"].append(time.perf_counter() - t0)
        f = Follower(http, code, ip)
        followers.append(f)
        f.start()
        state = await asyncio.wait_for(f.first, 60)
        phases["stream"].append(time.perf_counter() - t0)
        status, body = await http.call("POST", "/gradio_api/run/predict", {
            "data": [], "fn_index": fn, "session_hash": uuid.uuid4().hex[:11],
            "event_data": {"lesson": state["lesson"], "step": state["step"]}}, ip=ip)
        if status != 200 or b"step 3 of" not in body:
            raise RuntimeError(f"the step was not drawn: {status} {body[:200]!r}")
        phases["step"].append(time.perf_counter() - t0)
        return time.perf_counter() - t0

    times = await asyncio.gather(*(one(i) for i in range(n)))
    await teacher.end()
    for f in followers:
        f.stop()
    return {"joins": n, "p50_s": pct(times, 0.5), "p95_s": pct(times, 0.95), "max_s": max(times),
            **{f"{k}_done_p50_s": pct(v, 0.5) for k, v in phases.items()}}  # (from the start, when each phase ended)


async def _submit_index(http: Http) -> int:
    """The fn_index of the class panel's submit (the event a follower's page sends to draw the class's step)."""
    status, body = await http.call("GET", "/config")
    config = json.loads(body)
    ids = {c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == "class-panel"}
    for i, dep in enumerate(config["dependencies"]):
        if any(t[0] in ids and t[1] == "submit" for t in dep.get("targets", [])):
            return dep.get("id", i)
    raise SystemExit("the class panel's submit event is not in /config")


async def idle(url: str, server, n: int = 60, seconds: float = IDLE_SECONDS, forwarded: bool = True) -> dict:
    """The server's CPU with n followers connected and nothing happening, against none, as % of one core."""
    http = Http(url)
    teacher = Teacher(http)
    await asyncio.sleep(2)
    c0 = server.cpu_seconds()
    await asyncio.sleep(seconds)
    alone = 100 * (server.cpu_seconds() - c0) / seconds
    code = await teacher.start()
    followers = [Follower(http, code, address(i, forwarded)) for i in range(n)]
    for f in followers:
        f.start()
    await asyncio.gather(*(f.first for f in followers))
    await asyncio.sleep(2)
    c0 = server.cpu_seconds()
    await asyncio.sleep(seconds)
    held = 100 * (server.cpu_seconds() - c0) / seconds
    await teacher.end()
    for f in followers:
        f.stop()
    return {"followers": n, "seconds": seconds, "cpu_pct_idle_server": alone, "cpu_pct_with_followers": held}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", help="an app already running (started with ATTENTION_LAB_TRUSTED_PROXY=127.0.0.1)")
    ap.add_argument("--quick", action="store_true", help="10 followers only")
    ap.add_argument("--followers", type=int, nargs="*", default=[1, 60, 200, 500])
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    server = None
    if args.url is None:
        from attack_tools import Server

        server = Server()
        url = server.url
    else:
        url = args.url
    rows: list[dict] = []
    try:
        if args.quick:
            rows.append(asyncio.run(deliveries(url, 10, steps=3, gap=0.5)))
        else:
            rows.append(asyncio.run(joins(url, 30)))
            for n in args.followers:
                rows.append(asyncio.run(deliveries(url, n)))
            if server is not None:
                rows.append(asyncio.run(idle(url, server, 60)))
    finally:
        if server is not None:
            server.stop()
    for row in rows:
        print("  ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    raise SystemExit(main())
