"""Hostile visitors against one student, on loopback: does the queue hold, stay fair, and free what it cancels?

    python scripts/attack.py                    # every attack at the issue's sizes (~10-15 min on 2 busy cores)
    python scripts/attack.py --quick            # small sizes (~3 min)
    python scripts/attack.py flood cancel       # some attacks only; --json FILE also writes the rows

It starts `app.py` on a free 127.0.0.1 port (behind a pretend proxy: each visitor sends its own X-Forwarded-For),
and for each attack measures a student clicking /attention alone for a window, then during the attack: the
student's p50/p95 ratio, the server's RSS and threads, and afterwards that the student is answered and the
server is idle again (nothing left running). Every attack is bounded in requests and seconds. Issue #26.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from attack_tools import Sampler, Server, Student, alone, call, cancel, fn_index, pct, post_call, request  # noqa: E402

FULL = dict(window=10.0, flood=2600, cancels=200, costs=2000, trainings=12, loads=15.0, load_seconds=20.0, junk=20,
            slow=20)
QUICK = dict(window=4.0, flood=400, cancels=40, costs=200, trainings=4, loads=15.0, load_seconds=6.0, junk=3,
             slow=5)
ATTACKS = ["flood", "flood-many", "cancel", "costs", "trainings", "pages", "junk", "slow", "rest"]


def _many(fn, items, workers: int = 32) -> Counter:
    with ThreadPoolExecutor(workers) as pool:
        return Counter(pool.map(fn, items))


def flood(server: Server, s: dict) -> dict:
    """One visitor: cheap /call/attention posts (one wrong value), 32 at once, never reading the answers."""
    out = _many(lambda i: post_call(server.url, "attention", ["x"], "10.6.6.6")[0], range(s["flood"]))
    return {"sent": s["flood"], "answers": out}


def flood_many(server: Server, s: dict) -> dict:
    """The same from a new address (a new session) each time: more sessions than Gradio's 2,000-entry store."""
    out = _many(lambda i: post_call(server.url, "attention", ["x"], f"10.7.{i // 250}.{i % 250}")[0],
                range(s["flood"]))
    return {"sent": s["flood"], "answers": out}


def cancel_flood(server: Server, s: dict) -> dict:
    """`cancels` /cost calls at max_T=1024 (distinct windows, new addresses) queued, then cancelled in order."""
    index, codes, queued = fn_index(server.url, "cost"), Counter(), []
    for i in range(s["cancels"]):
        session, ip = uuid.uuid4().hex[:10], f"10.8.{i // 250}.{i % 250}"
        status, event = post_call(server.url, "cost", [1024, 8 + i], ip, session)
        codes[status] += 1
        if status == 200:
            queued.append((session, event, ip))
    for session, event, ip in queued:
        codes[f"cancel {cancel(server.url, session, index, event, ip)}"] += 1
    return {"sent": s["cancels"] * 2, "answers": codes}


def costs(server: Server, s: dict) -> dict:
    """One visitor asks /cost (max_T=1024, distinct windows) `costs` times, 32 at once, reading each answer and
    retrying 0.2 s after a refusal, for at most 3 windows."""
    deadline = time.perf_counter() + 3 * s["window"]

    def one(i: int) -> str:
        if time.perf_counter() > deadline:
            return "not sent (time)"
        ok, _, error = call(server.url, "cost", [1024, 8 + i % 248], "10.9.9.9")  # windows 4-256
        time.sleep(0 if ok else 0.2)
        return "answered" if ok else error[:3]
    return {"sent": s["costs"], "answers": _many(one, range(s["costs"]))}


def trainings(server: Server, s: dict) -> dict:
    """One visitor starts `trainings` 1,000-step /mask_experiment runs at once (one session each, as /call/ makes);
    meanwhile another student's 50-step run is timed against the same run alone. Left running: cancelled."""
    index, ip = fn_index(server.url, "mask_experiment"), "10.10.10.10"
    _, own_alone, _ = call(server.url, "mask_experiment", [50, 1], "10.0.0.3")
    posted = []
    for i in range(s["trainings"]):
        session = uuid.uuid4().hex[:10]
        posted.append((session, *post_call(server.url, "mask_experiment", [1000, 7 + i], ip, session)))
    time.sleep(0.5)
    ok, own_during, error = call(server.url, "mask_experiment", [50, 2], "10.0.0.3")
    answers = Counter()
    for session, status, event in posted:
        if status != 200:
            answers[status] += 1
            continue
        _, raw, _ = request(server.url, "GET", f"/gradio_api/call/mask_experiment/{event}", ip=ip, timeout=2)
        refused = b"event: error" in raw
        answers["refused (one sentence)" if refused else "trained or training"] += 1
        if not refused:
            cancel(server.url, session, index, event, ip)
    note = f"the other student's 50-step run: {own_alone:.1f} s alone, {own_during:.1f} s during" + (
        "" if ok else f" ({error})")
    return {"sent": s["trainings"], "answers": answers, "log": note}


def pages(server: Server, s: dict) -> dict:
    """Page loads (/ and /config) at `loads` a second for `load_seconds`, each from a new address."""
    n, t0, futures = int(s["loads"] * s["load_seconds"]), time.perf_counter(), []
    with ThreadPoolExecutor(16) as pool:
        for i in range(n):
            time.sleep(max(0.0, t0 + i / s["loads"] - time.perf_counter()))
            ip = f"10.11.{i // 250}.{i % 250}"
            futures.append(pool.submit(lambda ip=ip: (request(server.url, "GET", "/", ip=ip)[0],
                                                      request(server.url, "GET", "/config", ip=ip)[0])))
    return {"sent": n * 2, "answers": Counter(code for f in futures for code in f.result())}


JUNK = [
    ("POST", "/gradio_api/call/junkname", b'{"data": ["x"]}', {}),
    ("GET", "/gradio_api/file=" + "a" * 1000 + "/x", None, {"Range": "bytes=0-1,3-4"}),
    ("GET", "/" + "a" * 65536, None, {}),
    ("POST", "/gradio_api/component_server", b'{"data": 1, "component_id": 99999, "session_hash": "x", "fn_name": "y"}',
     {}),
    ("GET", "/gradio_api/queue/data?session_hash=nobody", None, {}),
    ("GET", "/gradio_api/call/attention/no-such-event", None, {}),
    ("POST", "/gradio_api/call/attention", b'{"data": [', {}),
    ("POST", "/gradio_api/queue/join", b'{"data": [], "fn_index": 99999, "session_hash": "x"}', {}),
    ("POST", "/gradio_api/run/cost", b'{"data": [1024, 8]}', {}),
]


def junk(server: Server, s: dict) -> dict:
    """Malformed requests, each `junk` times: statuses, and what the log grew by."""
    before = server.log_text()
    codes = Counter()
    for _ in range(s["junk"]):
        for method, path, body, headers in JUNK:
            status, raw, _ = request(server.url, method, path, body, "10.12.0.1", headers, timeout=15)
            if status == 0:  # refused mid-send (a 64 KB URL: the answer can race our last bytes): ask once more
                status, raw, _ = request(server.url, method, path, body, "10.12.0.1", headers, timeout=15)
            codes[f"{status}{' traceback!' if b'Traceback' in raw else ''}"] += 1
    grown = server.log_text()[len(before):]
    return {"sent": s["junk"] * len(JUNK), "answers": codes,
            "log": f"{len(grown.splitlines())} log lines, {grown.count('Traceback')} tracebacks"}


def slow(server: Server, s: dict) -> dict:
    """Slowloris (a header byte every 2 s) and never-ending chunked bodies: seconds until the server closes each."""
    def hold(i: int) -> float:
        sock, t0 = socket.create_connection(("127.0.0.1", server.port), timeout=5), time.perf_counter()
        chunked = i % 2
        try:
            sock.sendall(b"POST /gradio_api/call/attention HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                         b"Content-Type: application/json\r\n\r\n" if chunked else b"GET / HTTP/1.1\r\nHost: x\r\n")
            while time.perf_counter() - t0 < 60:
                sock.sendall(b"1\r\n \r\n" if chunked else b"X")
                time.sleep(2)
                sock.settimeout(0.01)
                try:
                    sock.recv(1024)  # an answer (a 408) or the end: either way the server let go
                    break
                except TimeoutError:
                    pass
                except OSError:
                    break
        except OSError:
            pass
        finally:
            sock.close()
        return time.perf_counter() - t0
    with ThreadPoolExecutor(s["slow"]) as pool:
        held = list(pool.map(hold, range(s["slow"])))
    return {"sent": s["slow"], "answers": Counter(f"{'body' if i % 2 else 'headers'}: let go after ≤{int(t) + 1} s"
                                                  for i, t in enumerate(held))}


def rest(server: Server, s: dict) -> dict:
    """Six direct REST calls of /cost at once (Gradio's /run/ routes skip the queue unless closed)."""
    out = _many(lambda i: request(server.url, "POST", "/gradio_api/run/cost",
                                  json.dumps({"data": [1024, 8 + i]}).encode(), f"10.13.0.{i}")[0], range(6))
    return {"sent": 6, "answers": out}


RUN = {"flood": flood, "flood-many": flood_many, "cancel": cancel_flood, "costs": costs, "trainings": trainings,
       "pages": pages, "junk": junk, "slow": slow, "rest": rest}


def settle(server: Server, limit: float = 180.0) -> float:
    """Seconds until the server (and its workers) compute nothing: under 15 % of a core over 1 s, at most `limit`."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        before = server.cpu_seconds()
        time.sleep(1.0)
        if server.cpu_seconds() - before < 0.15:  # (Gradio's idle queue polls every 1 ms: a few % of a core)
            break
    return time.perf_counter() - t0


def run(server: Server, name: str, s: dict) -> dict:
    settle(server)
    base = alone(server.url, s["window"])
    student, sampler = Student(server.url), Sampler(server)
    student.start()
    sampler.start()
    t0 = time.perf_counter()
    result = RUN[name](server, s)
    seconds = time.perf_counter() - t0
    if seconds < s["window"]:
        time.sleep(s["window"] - seconds)
    student.stop()
    sampler.stop()
    settled = settle(server)
    ok, after, error = call(server.url, "attention", ["the next call after the attack", "multi-head", True, True, 2,
                                                      16, 424242, "{}"], "10.0.0.2")
    row = {"attack": name, "seconds": round(seconds, 1), **result, "answers": {str(k): v for k, v in result["answers"].items()},
           "alone_p50": pct(base.seconds, 50), "alone_p95": pct(base.seconds, 95),
           "p50": pct(student.seconds, 50), "p95": pct(student.seconds, 95),
           "student_clicks": len(student.seconds), "student_errors": student.errors[:3] + [len(student.errors)],
           "rss_max": sampler.rss, "threads_max": sampler.threads, "settled_s": round(settled, 1),
           "after": "answered" if ok else f"NOT answered: {error}", "after_ms": round(after * 1000, 1)}
    row["p50_ratio"], row["p95_ratio"] = row["p50"] / row["alone_p50"], row["p95"] / row["alone_p95"]
    print(json.dumps(row), flush=True)
    return row


def table(rows: list[dict], idle_rss: float) -> str:
    lines = [f"Server idle: {idle_rss:.0f} MB RSS.", "",
             "| attack | sent | answers | student p50 alone → during (ms) | p50 ratio | p95 alone → during (ms) "
             "| p95 ratio | server RSS max (MB) | threads max | after |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        answers = ", ".join(f"{k}: {v}" for k, v in r["answers"].items()) + (f"; {r['log']}" if r.get("log") else "")
        lines.append(f"| {r['attack']} | {r['sent']} | {answers} | {r['alone_p50']:.0f} → {r['p50']:.0f} | "
                     f"**{r['p50_ratio']:.2f}** | {r['alone_p95']:.0f} → {r['p95']:.0f} | {r['p95_ratio']:.2f} | "
                     f"{r['rss_max']:.0f} (+{r['rss_max'] - idle_rss:.0f}) | {r['threads_max']} | {r['after']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("attacks", nargs="*", choices=[[], *ATTACKS], default=[])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    server = Server()
    rows: list[dict] = []
    try:
        alone(server.url, 2.0)  # first calls build caches: not part of any window
        idle_rss = server.status("VmRSS")
        for name in args.attacks or ATTACKS:
            rows.append(run(server, name, sizes))
        print(table(rows, idle_rss))
        log = server.log_text()
        print(f"\nServer log: {len(log.splitlines())} lines, {log.count('Traceback')} tracebacks.")
    finally:
        server.stop()
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return rows


if __name__ == "__main__":
    main()
