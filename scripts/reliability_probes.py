"""The reliability suite's probes of what a class can make the server keep: memory, sessions, disk, mix-ups."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import fuzz_values
from loadtest_tools import RssSampler, summary
from reliability_tools import call, disk_mib, get, join, kind_of, raw_post, rss_mib


def attention_data(sentence: str, variant: str = "multi-head", seed: int = 0) -> list:
    """/attention's values: the sentence and variant given, the rest the app's defaults."""
    return [sentence, variant, True, True, 2, 16, seed, "{}"]


def bodies(url: str, pid: int, n: int, mb: int) -> dict:
    """n requests with an mb-MB body (half with a Content-Length, half chunked); then n of ~1 MB, under the cap.

    A 64-token view is drawn once first: its frame and sprites are memory the app keeps by design."""
    call(url, "attention", attention_data("word " * 200_000))
    time.sleep(1)
    before, statuses = rss_mib(pid), Counter()
    big = b'{"data": ["' + b"word " * (mb * 2**20 // 5) + b'"]}'
    for i in range(n):
        body = big if i % 2 == 0 else (big[j:j + 2**20] for j in range(0, len(big), 2**20))
        statuses[raw_post(url, "/gradio_api/call/attention", body).status] += 1
    time.sleep(1)
    after_big = rss_mib(pid)
    under = [call(url, "attention", attention_data(f"{i} " + "word " * 200_000)) for i in range(n)]
    time.sleep(1)
    return {"requests": n, "body_mb": mb, "statuses": dict(statuses), "rss_before_mib": round(before, 1),
            "rss_after_mib": round(after_big, 1), "growth_mib": round(after_big - before, 1),
            "under_cap_requests_1mb": n, "under_cap_answered": sum(a.ok for a in under),
            "growth_after_under_cap_mib": round(rss_mib(pid) - after_big, 1)}


def sessions(url: str, pid: int, n: int, threads: int = 4, max_seconds: float = 1200) -> dict:
    """n calls, each from a new session (plain /call makes one per call), of a cached request."""
    before, count, errors, lock = rss_mib(pid), [0], [0], threading.Lock()
    stop = time.monotonic() + max_seconds
    data = attention_data("The cat sat on the mat because it was tired")

    def worker() -> None:
        while time.monotonic() < stop:
            with lock:
                if count[0] >= n:
                    return
                count[0] += 1
            if not call(url, "attention", data).ok:
                with lock:
                    errors[0] += 1

    sampler = RssSampler(pid, every=2.0)
    sampler.start()
    t0 = time.perf_counter()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    rss = sampler.stop()
    return {"sessions": count[0], "errors": errors[0], "seconds": round(time.perf_counter() - t0, 1),
            "rss_before_mib": round(before, 1), "rss_after_mib": round(rss_mib(pid), 1),
            "rss_max_mib": max(r for _, r in rss)}


def traces(url: str, folder: Path, n: int) -> dict:
    """n distinct Step-through traces asked for and downloaded; the disk the app's folder gains."""
    status, raw = get(url, "/config")
    config = json.loads(raw)
    dep, data = fuzz_values.download_event(config)
    before, downloaded, t0 = disk_mib(folder), 0, time.perf_counter()
    sentence = next(i for i, v in enumerate(data) if isinstance(v, str))  # the first text: the sentence
    for i in range(n):
        data[sentence] = f"trace number {i} for a worksheet about attention heads and masks"
        a = join(url, dep["id"], list(data))
        files = [v for v in (a.data or []) if isinstance(v, dict) and v.get("url")]
        if files and get(url, "/" + files[0]["url"].split("/", 3)[-1])[0] == 200:
            downloaded += 1
    return {"traces": n, "downloaded": downloaded, "seconds": round(time.perf_counter() - t0, 1),
            "disk_before_mib": round(before, 1), "disk_after_mib": round(disk_mib(folder), 1),
            "growth_mib": round(disk_mib(folder) - before, 1)}


def classroom(url: str, students: int, clicks: int) -> dict:
    """Students at once, each with inputs of its own; every answer checked against the input that asked for it."""
    lat, kinds, mixups, lock = [], Counter(), [], threading.Lock()
    barrier = threading.Barrier(students)

    def student(i: int) -> None:
        session = f"student-{i}-{uuid.uuid4().hex[:6]}"
        barrier.wait()
        for k in range(clicks):
            words = f"student {i} writes sentence {k} about word{i}x{k}"
            if k % 3 == 2:
                a = call(url, "causality", [words, 2, f"swap{i}x{k}", True, "multi-head"], session=session)
                ok = a.ok and a.data[-1]["tokens"] == words.split() and a.data[-1]["replacement"] == f"swap{i}x{k}"
            else:
                a = call(url, "attention", attention_data(words, seed=k), session=session)
                ok = a.ok and a.data[-1]["tokens"] == words.split() and len(a.data[-1]["weights"]) == 2
            with lock:
                kinds["answer" if a.ok else kind_of(a.error)] += 1
                if a.ok:
                    lat.append(a.seconds)
                    if not ok:
                        mixups.append(f"student {i} click {k}")

    pool = [threading.Thread(target=student, args=(i,)) for i in range(students)]
    t0 = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return {"students": students, "clicks": students * clicks, "seconds": round(time.perf_counter() - t0, 1),
            "by_kind": dict(kinds), "mixups": len(mixups), "first_mixups": mixups[:5], "latency": summary(lat)}
