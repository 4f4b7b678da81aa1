"""The Step-through tab's numbers: each stage of one head as a labelled matrix, and the trace as JSON."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from dataclasses import dataclass
from typing import Any

from torch import Tensor

from ..config import ConfigError, whole
from .session import Run, rounded


@dataclass(frozen=True)
class Stage:
    """One matrix a student reads: its name, the formula that made it, its shape, and its rows."""

    name: str
    formula: str
    shape: tuple[int, ...]
    rows: list[list[float | str]]  # matrix values; -inf as the string "-inf"
    columns: list[str]  # column headers (tokens for (T, T) stages, dims otherwise)


def _tokens_header(tokens: tuple[str, ...]) -> list[str]:
    return [f"{i} {t}" for i, t in enumerate(tokens)]


def _dims_header(n: int, prefix: str) -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def stages(run: Run, head: int, digits: int = 3) -> list[Stage]:
    """Q, K, V, scores, scaled, masked, weights, context (for `head`) and the output (all heads merged)."""
    H = run.trace.weights.shape[1]
    if not 0 <= head < H:
        raise ConfigError(f"head={head} does not exist; choose 0 to {H - 1}")
    tr, tok = run.trace, run.tokens.tokens
    kv = kv_head(run, head)
    hd = tr.q.shape[-1]
    scale = "/ √d_head" if run.config.scaled else "(not scaled)"
    toks = _tokens_header(tok)

    def stage(name: str, formula: str, t: Tensor, columns: list[str]) -> Stage:
        return Stage(name, formula, tuple(t.shape), rounded(t, digits), columns)

    return [
        stage("Q", f"Q = x · W_q  (head {head})", tr.q[0, head], _dims_header(hd, "q")),  # (T, hd)
        stage("K", f"K = x · W_k  (K/V head {kv})", tr.k[0, kv], _dims_header(hd, "k")),  # (T, hd)
        stage("V", f"V = x · W_v  (K/V head {kv})", tr.v[0, kv], _dims_header(hd, "v")),  # (T, hd)
        stage("scores", "scores = Q · Kᵀ", tr.scores[0, head], toks),  # (T, T)
        stage("scaled", f"scaled = scores {scale}, d_head = {hd}", tr.scaled[0, head], toks),  # (T, T)
        stage("masked", "masked = scaled, with -inf where the mask says no", tr.masked[0, head], toks),  # (T, T)
        stage("weights", "weights = softmax(masked) over each row", tr.weights[0, head], toks),  # (T, T)
        stage("context", "context = weights · V", tr.context[0, head], _dims_header(hd, "c")),  # (T, hd)
        stage("output", "output = merge(all heads' context) · W_o", tr.output[0],
              _dims_header(tr.output.shape[-1], "o")),  # (T, d_out)
    ]


def n_heads(run: Run) -> int:
    """How many query heads the run has (single-head: 1, whatever the request said)."""
    return run.trace.q.shape[1]


def last_head(run: Run) -> int:
    """The largest head index a head slider offers (at least 1: a slider needs a range)."""
    return max(n_heads(run) - 1, 1)


def pick_head(run: Run, head: object) -> int:
    """The head a student asked for, held to the heads the run has (the slider may remember a larger model)."""
    return min(whole("head", head), n_heads(run) - 1)


def kv_head(run: Run, head: int) -> int:
    """The K/V head that query head `head` reads: h // (n_heads / n_kv_heads)."""
    H, Hkv = run.trace.q.shape[1], run.trace.k.shape[1]
    return head // (H // Hkv)


def sharing(run: Run) -> str:
    """Which K/V head each query head reads (GQA), or the band (sliding window); plain text."""
    H, Hkv = run.trace.q.shape[1], run.trace.k.shape[1]
    parts = []
    if Hkv != H:
        groups = "; ".join(
            f"K/V head {g} ← query heads {', '.join(str(h) for h in range(H) if kv_head(run, h) == g)}"
            for g in range(Hkv)
        )
        parts.append(f"{H} query heads share {Hkv} K/V heads: {groups}.")
    opts = run.config.options
    if "window" in opts:
        stride = int(opts.get("stride", 0))
        band = f"Each token sees itself and the {int(opts['window']) - 1} tokens before it"
        parts.append(band + (f", plus every token at a multiple of {stride}." if stride else "."))
    if not parts:
        mask = "causal (lower triangle)." if run.config.causal else "off (every token sees every token)."
        parts.append(f"{H} head(s), each with its own K and V; the mask is {mask}")
    return " ".join(parts)


def trace_payload(run: Run) -> dict[str, Any]:
    """Tokens, config and every stage in full, so a worksheet or another tool can recompute it."""
    c, tr = run.config, run.trace
    return {
        "tokens": list(run.tokens.tokens),
        "variant": run.request.variant,
        "seed": run.request.seed,
        "config": {"d_model": c.d_model, "n_heads": c.n_heads, "causal": c.causal, "scaled": c.scaled,
                   "options": dict(c.options)},
        "x": rounded(run.x[0], 7),
        "stages": {name: {"shape": list(getattr(tr, name).shape), "values": rounded(getattr(tr, name), 7)}
                   for name in ("q", "k", "v", "scores", "scaled", "mask", "masked", "weights", "context", "output")},
    }


def trace_folder() -> str:
    """Where the app keeps trace files: inside Gradio's upload folder (GRADIO_TEMP_DIR, else <tmp>/gradio), so
    the server hands out the file itself instead of copying it into that folder first (one write, not two)."""
    base = os.environ.get("GRADIO_TEMP_DIR") or os.path.join(tempfile.gettempdir(), "gradio")
    return os.path.join(os.path.realpath(base), "attention-lab-traces")


TRACE_FOLDER_BYTES = 64 * 2**20  # kept on disk at most; the least recently asked for go first


def trace_file(run: Run, folder: str | None = None, max_bytes: int = TRACE_FOLDER_BYTES) -> str:
    """Write the trace JSON once per request (named by its hash) and return the path to download.

    The folder is kept under max_bytes: asking for a trace again marks it recent, and the traces nobody
    asked for longest are deleted first (a class downloading a thousand traces fills no disk).
    """
    text = json.dumps(trace_payload(run), ensure_ascii=False)
    name = "attention-trace-" + hashlib.sha256(text.encode()).hexdigest()[:16] + ".json"
    folder = folder or trace_folder()
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    if os.path.exists(path):
        os.utime(path)  # recently asked for: deleted last
        return path
    tmp = path + f".{os.getpid()}.{threading.get_ident()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    _keep_under(folder, max_bytes, keep=path)
    return path


def _keep_under(folder: str, max_bytes: int, keep: str) -> None:
    """Delete the least recently used traces until the folder holds at most max_bytes (keep survives)."""
    files = []
    for entry in os.scandir(folder):
        if entry.name.endswith(".json") and entry.path != keep:
            try:
                st = entry.stat()
            except FileNotFoundError:
                continue  # another request deleted it meanwhile
            files.append((st.st_mtime, st.st_size, entry.path))
    total = sum(size for _, size, _ in files) + os.path.getsize(keep)
    for _, size, path in sorted(files):
        if total <= max_bytes:
            break
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
        total -= size
