"""What the reliability suite's fuzz sends: every event of the page, and hostile values for each kind of control."""

from __future__ import annotations

import json
import random

TEXTS = [
    "", " ", "\t\n", "a", "The cat sat on the mat", "我 爱 自 然 语 言 处 理", "👩‍👩‍👧‍👦 🇫🇷 👍🏽 1️⃣",
    "<img src=x onerror=alert(1)>", "<script>alert('x')</script> **bold** [link](javascript:alert(1))",
    "{{7*7}} ${7*7} %s %n", "../../../../etc/passwd", "\u202eevil\u202c text", "zero\u200bwidth\u200d",
    "\x00\x07\x1b[31m control", "\ud800 lone surrogate", "pair \udc00\ud800 reversed", "word " * 20_000,
    "x" * 900_000, '{"window": 3}', '{"nope": 1}', '{"window": -1}', '{"window": 1e309}', "null", "[]", "{",
    '{"n_kv_heads": 3}', '{"window": "3"}', '{"window": [1]}', '{"slope": NaN}', "multi-head", "gqa", "hostile-hang",
]
NUMBERS = [0, -1, 1, 2, 3, 7, 8, 9, 63, 64, 65, 1024, 2**31, 2**32, 2**63, 10**30, 10**400, 0.5, -0.0, 1e308,
           float("nan"), float("inf"), float("-inf"), "3", "abc", "", True, False, [], {}, [1], {"a": 1}]
OTHERS = [None, True, False, 0, "", [], {}, ["a", "b"], {"value": 1}, "x" * 100_000, "\ud800"]
SLOW = {"mask_experiment", "scale_experiment"}  # training: only cached runs (a valid value is replaced)


def targets(config: dict) -> list[dict]:
    """Every event with a Python function: its id (fn_index), api name, and input components."""
    components = {c["id"]: c for c in config["components"]}
    out = []
    for dep in config["dependencies"]:
        if not dep.get("backend_fn"):
            continue
        inputs = [components[i] for i in dep["inputs"]]
        name = dep.get("api_name") if dep.get("api_visibility", "public") == "public" else None
        out.append({"id": dep["id"], "api_name": name, "name": name or f"event {dep['id']}", "inputs": inputs})
    return out


def values(rng: random.Random, target: dict) -> list:
    """One call's values: each input valid (its default) 55% of the time, else hostile; sometimes the wrong count.

    The conformance kit is not run on the hostile plugins: a hanging one holds its caller for the kit's whole
    time limit (tests/test_plugin_isolation.py checks that it ends there)."""
    data = [value(rng, c) for c in target["inputs"]]
    if target["api_name"] == "check_variant":
        data = [v if not (isinstance(v, str) and v.startswith("hostile-")) else "multi-head" for v in data]
    if target["api_name"] in SLOW and all(_valid_number(v) for v in data):
        data = [c["props"].get("value") for c in target["inputs"]]  # the default: served from the cache
    roll = rng.random()
    if roll < 0.03 and data:
        data = data[: rng.randrange(len(data))]  # too few
    elif roll < 0.05:
        data = data + [rng.choice(OTHERS)]  # one too many
    return data


def value(rng: random.Random, component: dict):
    props, kind = component.get("props", {}), component["type"]
    if rng.random() < 0.55:
        return props.get("value")
    if kind in ("slider", "number"):
        return rng.choice(NUMBERS + [props.get("minimum"), props.get("maximum")])
    if kind in ("dropdown", "radio"):
        choices = [c[1] if isinstance(c, (list, tuple)) else c for c in props.get("choices") or []]
        return rng.choice(choices + NUMBERS[:12] + TEXTS[:12] + OTHERS) if choices else rng.choice(TEXTS)
    if kind == "checkbox":
        return rng.choice([True, False, "true", "false", 0, 1, None, "yes", [], 2.5])
    if kind == "textbox":
        return rng.choice(TEXTS + OTHERS)
    return rng.choice(OTHERS + NUMBERS[:8])


def _valid_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) < 1e6


def raw_bodies() -> list[tuple[str, bytes]]:
    """Bodies no client library would send."""
    return [
        ("not JSON", b"{not json"),
        ("data not a list", json.dumps({"data": 5}).encode()),
        ("no data", b"{}"),
        ("nested deep", ("[" * 10_000 + "]" * 10_000).encode()),
        ("utf-8 broken", b'{"data": ["\xff\xfe"]}'),
        ("huge number", b'{"data": ["a", "multi-head", true, true, 2, 16, 1' + b"0" * 5000 + b', "{}"]}'),
    ]


def download_event(config: dict) -> tuple[dict, list]:
    """The event that hands out the Step-through trace file, and its inputs' default values."""
    components = {c["id"]: c for c in config["components"]}
    for dep in config["dependencies"]:  # the trace's own button (the PNG exports hand out files too)
        kinds = [components[o]["type"] for o in dep["outputs"]]
        if dep.get("backend_fn") and "downloadbutton" in kinds:
            return dep, [components[i]["props"].get("value") for i in dep["inputs"]]
    raise SystemExit("no event hands out a file: nothing to download")
