"""Bounded load test of the app on loopback: start-up time, /attention latency, a classroom, a soak.

    python scripts/loadtest.py                    # start the app, wait for its warm-up, then: latency, class
    python scripts/loadtest.py --cold --together class   # the worst case: a class clicking "go" at start-up
    python scripts/loadtest.py --soak             # ... and a 5-minute classroom soak, RSS sampled
    python scripts/loadtest.py --url http://127.0.0.1:7860/ latency   # against a running app

Each simulated student is a thread with its own gradio_client.Client (as 30 browsers would be).
The app is started as `python app.py` in a child process, so its RSS is the server's alone.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from loadtest_tools import (  # noqa: E402  (scripts/ is on sys.path when this file is run)
    RssSampler,
    client,
    cpu_seconds,
    endpoint_defaults,
    raw_call,
    rss_mib,
    start_app,
    summary,
)

SENTENCES = [
    "The cat sat on the mat because it was tired",  # the first example: a class clicks it together
    "Attention lets every token look back at the tokens before it",
    "A small model learns which words matter for the next one",
    "我 爱 自 然 语 言 处 理",
    "Wait, what? It works: attention, masks and heads!",
    "Queries ask, keys answer and values carry the message",
    "The quick brown fox jumps over the lazy dog again today",
    "Students type sentences and watch the heads change colour",
]
TWELVE_TOKENS = "the students in room four watch every head of the model attend"  # 12 words


def interaction(rng: random.Random, defaults: dict[str, dict]) -> tuple[str, dict]:
    """One student click: mostly /attention with their own sentence, sometimes the shared example or another tab."""
    roll = rng.random()
    if "/attention" in defaults and roll < 0.6:
        kw = dict(defaults["/attention"], sentence=rng.choice(SENTENCES[1:]) + f" {rng.randint(0, 999)}",
                  n_heads=rng.choice([1, 2, 4]), seed=rng.randint(0, 3))
        return "/attention", kw
    if "/attention" in defaults and roll < 0.8:
        return "/attention", dict(defaults["/attention"], sentence=SENTENCES[0])  # the cached example
    others = [n for n in defaults if n not in ("/attention", "/cost")] or list(defaults)
    name = rng.choice(others)
    return name, defaults[name]


def latency(url: str, pid: int | None, n: int = 30) -> dict:
    """Item 3: /attention with 4 heads and 12 tokens, fresh each time (new seed); then one repeated request."""
    c = client(url)
    base = endpoint_defaults(c).get("/attention")
    if base is None:
        return {"error": "the app has no /attention endpoint yet"}
    fresh, repeated, cpu = [], [], [cpu_seconds(pid) if pid else 0.0]
    for i in range(n):
        t0 = time.perf_counter()
        c.predict(**dict(base, sentence=TWELVE_TOKENS, n_heads=4, d_model=16, seed=1000 + i), api_name="/attention")
        fresh.append(time.perf_counter() - t0)
    cpu.append(cpu_seconds(pid) if pid else 0.0)
    same = dict(base, sentence=TWELVE_TOKENS, n_heads=4, d_model=16, seed=1000)
    for _ in range(n):
        t0 = time.perf_counter()
        c.predict(**same, api_name="/attention")
        repeated.append(time.perf_counter() - t0)
    cpu.append(cpu_seconds(pid) if pid else 0.0)
    raw = [raw_call(url, "attention", list(same.values()), session="loadtest-raw") for _ in range(n)]
    cpu.append(cpu_seconds(pid) if pid else 0.0)
    per = {"fresh": (cpu[1] - cpu[0]) / n, "repeated": (cpu[2] - cpu[1]) / n,
           "repeated_raw_http": (cpu[3] - cpu[2]) / n}  # server CPU s per request
    return {k: dict(summary(v), server_cpu_ms=round(per[k] * 1000, 1) if pid else None)
            for k, v in (("fresh", fresh), ("repeated", repeated), ("repeated_raw_http", raw))}


def endpoints(url: str, pid: int | None) -> dict:
    """Each endpoint alone with its defaults: first call (computed) and second (cached), and server CPU."""
    c = client(url)
    out = {}
    for name, kw in endpoint_defaults(c).items():
        row = {}
        for label in ("first", "second"):
            cpu0, t0 = cpu_seconds(pid) if pid else 0.0, time.perf_counter()
            try:
                c.predict(**kw, api_name=name)
            except Exception as exc:
                row["error"] = f"{type(exc).__name__}: {str(exc)[:80]}"
                break
            row[f"{label}_ms"] = round((time.perf_counter() - t0) * 1000, 1)
            row[f"{label}_server_cpu_ms"] = round(((cpu_seconds(pid) if pid else 0.0) - cpu0) * 1000, 1)
        out[name] = row
    return out


def prepare(url: str) -> float:
    """Wait until the app's background warm-up is done, as a class arriving after the teacher started the
    Space would find it: the two default experiments, asked for, watch the warm-up's runs to their end."""
    c, t0 = client(url), time.perf_counter()
    for name in ("/mask_experiment", "/scale_experiment"):
        kw = endpoint_defaults(c).get(name)
        if kw is not None:
            c.predict(**kw, api_name=name)
    return round(time.perf_counter() - t0, 1)


def classroom(url: str, pid: int | None, students: int, clicks: int, think: float, seconds: float | None,
              together: bool = False) -> dict:
    """Students click in parallel (clicks each, or until `seconds` pass); errors, latency and server RSS.

    Each student thinks uniform(0, 2 * think) seconds before every click, the first included, unless
    `together`: then every first click leaves at the same instant."""
    defaults = endpoint_defaults(client(url))
    lat: dict[str, list[float]] = {}
    lat_first: dict[int, float] = {}
    errors: list[str] = []
    lock, start = threading.Lock(), threading.Barrier(students)
    sampler = RssSampler(pid, every=5.0 if seconds else 1.0) if pid else None

    def student(i: int) -> None:
        rng, c = random.Random(i), client(url, f"10.20.{i // 250}.{i % 250}")
        start.wait()
        if not together:
            time.sleep(rng.uniform(0, 2 * think))
        t_end = time.perf_counter() + seconds if seconds else None
        done = 0
        while (done < clicks) if t_end is None else (time.perf_counter() < t_end):
            name, kw = interaction(rng, defaults)
            t0 = time.perf_counter()
            try:
                c.predict(**kw, api_name=name)
                with lock:
                    lat.setdefault(name, []).append(time.perf_counter() - t0)
                    if done == 0:
                        lat_first[i] = time.perf_counter() - t0
            except Exception as exc:  # an error a student would see
                with lock:
                    errors.append(f"{name}: {type(exc).__name__}: {str(exc)[:120]}")
            done += 1
            time.sleep(rng.uniform(0, 2 * think))

    if sampler:
        sampler.start()
    cpu0 = cpu_seconds(pid) if pid else None
    own0 = time.process_time()  # this process: the 30 simulated browsers share the server's 2 cores
    t0 = time.perf_counter()
    threads = [threading.Thread(target=student, args=(i,)) for i in range(students)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    rss = sampler.stop() if sampler else []
    every = [x for xs in lat.values() for x in xs]
    server_cpu = cpu_seconds(pid) - cpu0 if pid else None
    client_cpu = time.process_time() - own0
    first = [lat_first[i] for i in sorted(lat_first)]
    return {
        "server_cpu_ms_per_request": round(server_cpu / max(1, len(every)) * 1000, 1) if pid else None,
        "client_cpu_ms_per_request": round(client_cpu / max(1, len(every)) * 1000, 1),
        "first_clicks": summary(first),  # each student's first click (all at the same instant with --together)
        "together": together,
        "throughput_per_s": round(len(every) / wall, 2),
        "students": students, "clicks_each": clicks if not seconds else None, "think_s": think, "wall_s": round(wall, 1),
        "errors": len(errors), "first_errors": errors[:5], "all": summary(every),
        "per_endpoint": {k: summary(v) for k, v in sorted(lat.items())},
        "rss_mib": {"start": rss[0][1], "peak": max(r for _, r in rss), "end": rss[-1][1],
                    "samples": rss} if rss else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modes", nargs="*", choices=["latency", "endpoints", "class"],
                        help="what to run (default: latency class)")
    parser.add_argument("--url", help="use a running app instead of starting one (no start-up or RSS numbers)")
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--clicks", type=int, default=10)
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds between a student's clicks")
    parser.add_argument("--together", action="store_true",
                        help="every student's first click at the same instant (a teacher's 'go'); by default "
                             "students think before their first click as before every other")
    parser.add_argument("--cold", action="store_true",
                        help="do not wait for the app's background warm-up (a class arriving seconds after start-up)")
    parser.add_argument("--soak", action="store_true", help="also run the class for --soak-seconds, RSS every 5 s")
    parser.add_argument("--soak-seconds", type=float, default=300.0)
    parser.add_argument("--json", help="also write the report here")
    args = parser.parse_args(argv)
    args.modes = args.modes or ["latency", "class"]
    report: dict = {"loadavg_before": os.getloadavg()}  # a shared machine: say how busy it was
    proc = None
    url = args.url
    if url is None:
        proc, url, report["startup_to_http_200_s"] = start_app()
        report["rss_after_start_mib"] = round(rss_mib(proc.pid), 1)
    pid = proc.pid if proc else None
    try:
        if not args.cold:
            report["warm_up_done_after_s"] = prepare(url)
        if "latency" in args.modes:
            report["latency"] = latency(url, pid)
        if "endpoints" in args.modes:
            report["endpoints"] = endpoints(url, pid)
        if "class" in args.modes:
            report["class"] = classroom(url, pid, args.students, args.clicks, args.think, None, args.together)
        if args.soak:
            report["soak"] = classroom(url, pid, args.students, args.clicks, args.think, args.soak_seconds,
                                       args.together)
    finally:
        if proc:
            proc.terminate()
            proc.wait(timeout=30)
    report["loadavg_after"] = os.getloadavg()
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text)
    return 1 if any(report.get(k, {}).get("errors") for k in ("class", "soak")) else 0


if __name__ == "__main__":
    sys.exit(main())
