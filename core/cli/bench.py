"""`attention-lab bench`: time and peak memory of every fast path against T, as a table, JSON and a plot."""

from __future__ import annotations

import argparse
import sys

HELP = "time and peak memory against T for every variant's fast path and the references"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--T", type=int, nargs="+", metavar="T", help="sequence lengths (default 256 .. 8192)")
    parser.add_argument("--window", type=int, default=256, help="sliding-window width (default 256)")
    parser.add_argument("--reps", type=int, default=None, help="timed repetitions per point (default 5, quick 2)")
    parser.add_argument("--flex", action="store_true", help="also compiled FlexAttention (slow: it compiles once per T)")
    parser.add_argument("--quick", action="store_true", help="small T, rows in this process: a smoke test")
    parser.add_argument("--out", default="bench-out", help="directory for bench.json and bench.png")
    parser.add_argument("--decode", action="store_true",
                        help="instead: time per generated token with and without the KV cache (T default 256 1024 4096)")


def run(args: argparse.Namespace) -> int:
    if args.decode:
        return run_decode(args)
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


def run_decode(args: argparse.Namespace) -> int:
    from core.bench.decode import DECODE_T, QUICK_T, DecodeSpec, format_table, run_decode_bench, write_json

    Ts = tuple(sorted(set(args.T or (QUICK_T if args.quick else DECODE_T))))
    if min(Ts) < 1 or len(Ts) < 2:
        raise ValueError("--decode needs two or more T, each 1 or more")
    if args.reps is not None and args.reps < 1:
        raise ValueError("--reps must be 1 or more")
    steps = {"cached_steps": 3, "uncached_steps": 2} if args.quick else {}  # --reps: timed tokens per T, both paths
    steps |= {} if args.reps is None else {"cached_steps": args.reps, "uncached_steps": args.reps}
    spec = DecodeSpec(Ts=Ts, quick=args.quick, **steps)
    result = run_decode_bench(spec, log=lambda s: print(s, file=sys.stderr, flush=True))
    print(format_table(result))
    print(f"\nwrote {write_json(result, args.out)}")
    return 0
