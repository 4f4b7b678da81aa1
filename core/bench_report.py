"""A bench result as a table on stdout, JSON and a PNG on disk (Figure + Agg, never pyplot)."""

from __future__ import annotations

import json
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .bench import LABELS


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
    """The ratios the issue asks for, at the largest T, with the target next to each."""
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


def figure(result: dict, title: str = "Attention cost against sequence length") -> Figure:
    """Two log-log panels: time and peak memory growth against T, one line per row."""
    fig = Figure(figsize=(10, 4.2), dpi=100)
    FigureCanvasAgg(fig)
    ax_t, ax_m = fig.subplots(1, 2)
    rows = list(dict.fromkeys(p["row"] for p in result["points"] if "T" in p))
    for row in rows:
        pts = sorted((p for p in result["points"] if p.get("row") == row and "T" in p), key=lambda p: p["T"])
        Ts = [p["T"] for p in pts]
        style = "--" if row in ("sdpa", "dense-mask-sdpa", "flex", "window-before", "trace") else "-"
        ax_t.plot(Ts, [p["time_s"] * 1000 for p in pts], style, marker="o", ms=3, label=LABELS.get(row, row))
        mem = [(T, p["peak_mib"]) for T, p in zip(Ts, pts, strict=True) if p["peak_mib"]]
        if mem:
            ax_m.plot(*zip(*mem, strict=True), style, marker="o", ms=3)
    for ax, ylabel in ((ax_t, "time per call (ms)"), (ax_m, "peak memory growth (MiB)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("sequence length T")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    fig.legend(loc="lower center", ncol=3, fontsize=7, frameon=False)
    fig.suptitle(title, fontsize=10)
    fig.subplots_adjust(bottom=0.33, wspace=0.25, top=0.9)
    return fig


def write_outputs(result: dict, out_dir: str | Path) -> tuple[Path, Path]:
    """bench.json and bench.png in out_dir (created)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    json_path, png_path = out / "bench.json", out / "bench.png"
    json_path.write_text(json.dumps(result, indent=1))
    figure(result).savefig(png_path)
    return json_path, png_path
