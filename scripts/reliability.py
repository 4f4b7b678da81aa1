"""The reliability suite: the app on loopback against a hostile class and hostile plugins, bounded in time.

    python scripts/reliability.py                  # everything, the issue's sizes (~15-25 min on 2 busy cores)
    python scripts/reliability.py --quick          # the smoke version (~2 min): small sizes, 1 s plugin limit
    python scripts/reliability.py plugins fuzz     # some parts only; --json FILE also writes the report

Parts: `plugins` (each hostile plugin of hostile_plugins.py: what its user saw, and the other students'
/attention latency meanwhile, as a ratio to just before, in one run), `fuzz` (seeded calls of every event
with hostile values: errors by kind), `bodies` (50 MB requests: the server's RSS), `sessions` (new
sessions: RSS), `traces` (distinct Step-through downloads: disk), `class` (concurrent students with
unique inputs, each answer checked against its own input). Every part ends by checking the server lives.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz_values  # noqa: E402
import hostile_plugins  # noqa: E402
from loadtest_tools import RssSampler  # noqa: E402
from reliability_probes import attention_data, bodies, classroom, sessions, traces  # noqa: E402
from reliability_tools import (  # noqa: E402
    Answer,
    call,
    children_rss_mib,
    disk_mib,
    get,
    join,
    kind_of,
    raw_post,
    server_log,
    start_app,
    stop_app,
)

PARTS = ["plugins", "fuzz", "bodies", "sessions", "traces", "class"]
FULL = dict(plugin_seconds=5.0, window=10.0, fuzz=2000, bodies=20, body_mb=50, sessions=10_000, traces=1000, students=40, clicks=10)
QUICK = dict(plugin_seconds=1.0, window=2.5, fuzz=150, bodies=4, body_mb=50, sessions=300, traces=60, students=8, clicks=4)


class Student:
    """Another student clicking /attention with a fresh request each time (a new seed: computed, not cached)."""

    def __init__(self, url: str) -> None:
        self.url, self.session, self.n = url, f"other-{uuid.uuid4().hex[:8]}", 0

    def click(self) -> Answer:
        self.n += 1
        return call(self.url, "attention", attention_data("the other students keep working", seed=10_000 + self.n),
                    session=self.session)

    def while_(self, busy) -> tuple[list[float], int]:
        """Click until busy() is False; (seconds of each answered click, errors)."""
        seconds, errors = [], 0
        while busy():
            a = self.click()
            if a.ok:
                seconds.append(a.seconds)
            else:
                errors += 1
        return seconds, errors


def plugins(url: str, window: float, names: list[str] | None = None) -> dict:
    """Per hostile plugin: two students keep calling it (a pause between tries) while another clicks /attention.
    Baselines, just before, in the same run: the other student alone, and beside the same two students calling a
    healthy variant (the ratio to that one is what the plugin costs, over what two busy students cost anyway)."""
    other, report = Student(url), {}
    for name in names or hostile_plugins.BEHAVIOURS:
        report[name] = one_plugin(url, other, name, window)
        row = report[name]
        print(f"  {name:9s} others' p50 x{row['others_ratio_p50']} (x{row['others_ratio_p50_vs_alone']} of alone) | "
              f"{row['user_saw'][:90]}", flush=True)
    return report


def one_plugin(url: str, other: Student, name: str, window: float) -> dict:
    end = time.monotonic() + window
    alone, _ = other.while_(lambda: time.monotonic() < end)  # the other student by itself
    _, base, _ = two_students(url, other, "multi-head", window)  # ... with two students on a healthy variant
    answers, during, other_errors = two_students(url, other, f"hostile-{name}", window)  # ... on this plugin
    first = answers[0][1]  # the first student's first try
    answers = [a for _, a in answers]
    return {
        "does": hostile_plugins.BEHAVIOURS[name][1],
        "user_saw": first.error if first.error else "an answer (" + _note(first) + ")",
        "kind": kind_of(first.error) if first.error else "answer",
        "user_waited_s": round(first.seconds, 2),
        "calls": len(answers), "kinds": dict(Counter(kind_of(a.error) if a.error else "answer" for a in answers)),
        "last_saw": answers[-1].error or "an answer",
        # the other student's latency [alone, beside a healthy variant's two students, beside this plugin's]
        "others_p50_ms": [_ms(alone, 50), _ms(base, 50), _ms(during, 50)],
        "others_p95_ms": [_ms(alone, 95), _ms(base, 95), _ms(during, 95)],
        "others_ratio_p50": _ratio(during, base, 50), "others_ratio_p95": _ratio(during, base, 95),
        "others_ratio_p50_vs_alone": _ratio(during, alone, 50), "others_ratio_p95_vs_alone": _ratio(during, alone, 95),
        "others_clicks": [len(alone), len(base), len(during)], "others_errors": other_errors,
    }


def two_students(url: str, other: Student, variant: str, window: float, pause: float = 0.5):
    """Two students call `variant` (a new sentence each try, `pause` s between tries) for `window` s while
    `other` clicks: (their answers, other's latencies, other's errors)."""
    answers: list[tuple[int, Answer]] = []
    lock, stop = threading.Lock(), time.monotonic() + window

    def student(i: int) -> None:
        k = 0
        while time.monotonic() < stop:
            k += 1
            a = call(url, "attention", attention_data(f"student {i} tries {variant} {k} {uuid.uuid4().hex[:6]}",
                                                      variant))
            with lock:
                answers.append((i, a))
            time.sleep(pause)

    pool = [threading.Thread(target=student, args=(i,)) for i in range(2)]
    for t in pool:
        t.start()
    seconds, errors = other.while_(lambda: any(t.is_alive() for t in pool))
    for t in pool:
        t.join()
    return sorted(answers, key=lambda ia: ia[0]), seconds, errors  # stable: each student's tries in order


def _note(a: Answer) -> str:
    data = a.data or []
    return str(data[3])[:120] if len(data) > 3 and data[3] else "no note"


def _ms(xs: list[float], q: int) -> float | None:
    if not xs:
        return None
    return round((statistics.quantiles(xs, n=20)[18] if q == 95 and len(xs) > 1 else statistics.median(xs)) * 1000, 1)


def _ratio(during: list[float], base: list[float], q: int) -> float | None:
    a, b = _ms(during, q), _ms(base, q)
    return round(a / b, 2) if a and b else None


def fuzz(url: str, n: int, seed: int) -> dict:
    """Seeded calls of every event (named endpoints by /call, the page's own by /queue/join), hostile values."""
    status, raw = get(url, "/config")
    config = json.loads(raw)
    targets = fuzz_values.targets(config)
    rng, kinds, examples, sentences, t0 = random.Random(seed), Counter(), {}, set(), time.perf_counter()
    for _ in range(n):
        target = rng.choice(targets)
        data = fuzz_values.values(rng, target)
        named = target["api_name"] and rng.random() < 0.5
        a = call(url, target["api_name"], data, timeout=180) if named else join(url, target["id"], data, timeout=180)
        kind = "answer" if a.ok else (f"HTTP {a.status}: " if a.status != 200 else "") + kind_of(a.error, data)
        kinds[kind] += 1
        if kind not in ("answer", "sentence"):
            examples.setdefault(kind, []).append(f"{target['name']}: {str(a.error)[:160]!r}")
        elif kind == "sentence":
            sentences.add(a.error)
    for _, body in fuzz_values.raw_bodies():
        a = raw_post(url, "/gradio_api/call/attention", body)
        kinds[f"raw body, HTTP {a.status}: " + kind_of(a.error)] += 1
    bad = sum(v for k, v in kinds.items() if not k.endswith(("answer", "sentence")))
    return {"calls": sum(kinds.values()), "seed": seed, "seconds": round(time.perf_counter() - t0, 1),
            "by_kind": dict(kinds.most_common()), "non_sentence_errors": bad,
            "examples": {k: v[:3] for k, v in examples.items()}, "distinct_sentences": len(sentences),
            "some_sentences": random.Random(seed).sample(sorted(sentences), min(12, len(sentences)))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", help=f"what to run, of {', '.join(PARTS)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="the smoke version: small sizes, 1 s plugin limit")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--plugins", help=f"comma-separated, of {', '.join(hostile_plugins.BEHAVIOURS)} (default: all)")
    parser.add_argument("--json", help="also write the report here")
    for key, value in FULL.items():
        parser.add_argument("--" + key.replace("_", "-"), type=type(value), default=None)
    args = parser.parse_args(argv)
    size = {k: getattr(args, k) if getattr(args, k) is not None else v for k, v in (QUICK if args.quick else FULL).items()}
    parts = args.parts or PARTS
    if set(parts) - set(PARTS):
        parser.error(f"unknown part(s) {', '.join(sorted(set(parts) - set(PARTS)))}; choose from {', '.join(PARTS)}")
    report: dict = {"sizes": size, "loadavg_before": os.getloadavg()}
    t0 = time.perf_counter()
    proc, url, folder = start_app(size["plugin_seconds"])
    report["started_after_s"] = round(time.perf_counter() - t0, 1)
    sampler, crashes = RssSampler(proc.pid, every=2.0), []
    sampler.start()
    try:
        if not args.quick:
            _settle(url)
        steps = {
            "plugins": lambda: plugins(url, size["window"], args.plugins.split(",") if args.plugins else None),
            "fuzz": lambda: fuzz(url, size["fuzz"], args.seed),
            "bodies": lambda: bodies(url, proc.pid, size["bodies"], size["body_mb"]),
            "sessions": lambda: sessions(url, proc.pid, size["sessions"]),
            "traces": lambda: traces(url, folder, size["traces"]),
            "class": lambda: classroom(url, size["students"], size["clicks"]),
        }
        for part in parts:
            print(f"{part} ...", flush=True)
            started = time.perf_counter()
            report[part] = steps[part]()
            report[part]["part_seconds"] = round(time.perf_counter() - started, 1)
            if proc.poll() is not None or get(url, "/")[0] != 200:
                crashes.append(part)
                break
    finally:
        rss = sampler.stop()
        report["server_alive"] = proc.poll() is None
        report["crashes"] = crashes
        report["max_rss_mib"] = max(r for _, r in rss)
        report["workers_rss_mib"] = round(children_rss_mib(proc.pid), 1) if proc.poll() is None else None
        report["disk_mib"] = round(disk_mib(folder), 1)
        logged = server_log(folder).read_text(errors="replace")
        report["server_log"] = {"tracebacks": logged.count("Traceback (most recent call last)"),
                                "last_lines": logged.strip().splitlines()[-5:]}
        report["seconds"] = round(time.perf_counter() - t0, 1)
        report["loadavg_after"] = os.getloadavg()
        stop_app(proc, folder)
    text = json.dumps(report, indent=1, ensure_ascii=False)
    print(text)
    if args.json:
        Path(args.json).write_text(text)
    return 1 if crashes or not report["server_alive"] else 0


def _settle(url: str) -> None:
    """Wait for the app's warm-up (plugin workers started, the default experiments trained), as a class would."""
    for name in ("mask_experiment", "scale_experiment"):
        call(url, name, [400 if name == "mask_experiment" else 50, 0], timeout=300)


if __name__ == "__main__":
    sys.exit(main())
