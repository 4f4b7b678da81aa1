"""`attention-lab bench`: time and peak memory of every fast path against T, as a table, JSON and a plot."""

from __future__ import annotations

import argparse
import sys

HELP = "time and peak memory against T for every variant's fast path and the references"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--T", type=int, nargs="+", metavar="T", help="sequence lengths (default 256 .. 8192)")
    parser.add_argument("--window", type=int, default=256, help="sliding-window width (default 256)")
    parser.add_argument("--reps", type=int, default=None, help="timed repetitions per point (default 5, quick 2)")
    parser.add_argument("--flex", action="store_true", help="also compiled FlexAttention (compiles for ~40 s per T)")
    parser.add_argument("--quick", action="store_true", help="small T, rows in this process: a smoke test")
    parser.add_argument("--out", default="bench-out", help="directory for bench.json and bench.png")


def run(args: argparse.Namespace) -> int:
    from core.bench.longseq import DEFAULT_T, QUICK_T, BenchSpec, run_bench
    from core.bench.report import format_table, write_json
    from core.render.bench_plot import write_png

    Ts = tuple(sorted(set(args.T or (QUICK_T if args.quick else DEFAULT_T))))
    if min(Ts) < 1 or args.window < 1:
        raise ValueError("T and --window must be 1 or more")
    reps = args.reps or (2 if args.quick else 5)
    spec = BenchSpec(Ts=Ts, window=args.window, reps=reps, flex=args.flex, quick=args.quick)
    result = run_bench(spec, log=lambda s: print(s, file=sys.stderr, flush=True))
    print(format_table(result))
    json_path, png_path = write_json(result, args.out), write_png(result, args.out)
    print(f"\nwrote {json_path} and {png_path}")
    return 0
