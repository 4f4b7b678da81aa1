"""A bench result as a table on stdout and JSON on disk (the plot: core.render.bench_plot)."""

from __future__ import annotations

import json
from pathlib import Path

from .longseq import LABELS


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "ms":
        return f"{value * 1000:.1f}"
    return f"{value:.1f}" if unit == "MiB" else f"{value:.2f}x"


def format_table(result: dict) -> str:
    """Rows x T: milliseconds, the ratio to raw SDPA in the same rep, and peak MiB."""
    points = [p for p in result["points"] if "T" in p]
    Ts = sorted({p["T"] for p in points})
    rows = list(dict.fromkeys(p["row"] for p in result["points"]))
    lines = [result["meta"]["method"], ""]
    for title, key, unit in (("time (ms)", "time_s", "ms"), ("time / raw SDPA, same rep", "ratio_vs_sdpa", "x"),
                             ("peak memory growth (MiB)", "peak_mib", "MiB")):
        lines.append(f"{title:<44}" + "".join(f"{'T=' + str(T):>10}" for T in Ts))
        for row in rows:
            cells = {p["T"]: p.get(key) for p in points if p["row"] == row}
            lines.append(f"  {LABELS.get(row, row):<42}" + "".join(f"{_fmt(cells.get(T), unit):>10}" for T in Ts))
        lines.append("")
    for p in result["points"]:
        if "error" in p:
            lines.append(f"  {p['row']} failed: {p['error']}")
    lines.append(format_summary(result["summary"]))
    return "\n".join(lines)


def format_summary(summary: dict) -> str:
    """The ratios that matter, at the largest T, with the target next to each."""
    lines = [f"at T={summary['T']}:"]
    for name, s in summary["variants"].items():
        mark = "ok" if s["ok"] else "MISSED"
        lines.append(f"  {name:<20} {s['time_vs_sdpa']:.2f}x raw SDPA (target <= 1.5x), "
                     f"peak {_fmt(s['peak_mib'], 'MiB')} MiB (target <= 256)  {mark}")
    w = summary["window"]
    for key, value in w.items():
        if key.startswith("time_vs_"):
            lines.append(f"  sliding-window       {value:.3f}x {key[8:]}")
    if "ok" in w:
        lines.append(f"  sliding-window vs dense-mask target <= 0.25x: {'ok' if w['ok'] else 'MISSED'}")
    return "\n".join(lines)


def write_json(result: dict, out_dir: str | Path) -> Path:
    """bench.json in out_dir (created)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    json_path = out / "bench.json"
    json_path.write_text(json.dumps(result, indent=1))
    return json_path
