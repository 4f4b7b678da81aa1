"""`attention-lab check NAME | --all`: the conformance kit from a terminal; exit 1 if a variant fails.

Each check runs in a child process with a time limit: a plugin that hangs or starts threads cannot
keep this command from answering and exiting. ATTENTION_LAB_STRICT=1 re-raises a plugin's exception.
"""

from __future__ import annotations

import argparse

HELP = "run the conformance kit on variants (exit 1 if any fails)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME", help="variant names (see `attention-lab plugins`)")
    parser.add_argument("--all", action="store_true", help="check every registered variant")
    parser.add_argument("--d-model", type=int, default=16, help="model width (default 16)")
    parser.add_argument("--n-heads", type=int, default=2, help="attention heads (default 2)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a variant option, e.g. window=3")
    parser.add_argument("-v", "--verbose", action="store_true", help="show every check with its time")
    parser.add_argument("--no-entry-points", action="store_true", help="built-in variants only")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="time one check may take before the plugin is reported as not answering (default 20)")


def run(args: argparse.Namespace) -> int:
    from core.config import AttentionConfig, parse_options
    from core.kit.report import REPORT_HEADERS, format_table, report_rows
    from core.probes import check_variant
    from core.registry import load_registry

    if bool(args.names) == args.all:
        raise ValueError("name the variants to check, or pass --all (not both)")
    registry = load_registry(entry_points=not args.no_entry_points)
    variants = list(registry.variants.values()) if args.all else [registry.get(n) for n in args.names]
    options = parse_options(args.option)
    if options and args.all:
        raise ValueError("--option applies to one variant; name it instead of using --all")
    config = AttentionConfig(d_model=args.d_model, n_heads=args.n_heads, options=options)
    failed = 0
    for variant in variants:
        variant.resolve(config)  # an unknown or out-of-range option is the user's mistake: one sentence, exit 2
    timeout = {} if args.timeout is None else {"timeout": args.timeout}
    if args.timeout is not None and args.timeout <= 0:
        raise ValueError(f"--timeout={args.timeout:g} is too small; choose a positive number of seconds")
    for variant in variants:
        report = check_variant(variant, config, **timeout)  # ATTENTION_LAB_STRICT=1 re-raises the plugin's exception
        failed += not report.passed
        print(report, flush=True)
        if args.verbose:
            print(format_table(REPORT_HEADERS, report_rows(report)))
    if len(variants) > 1:
        print(f"\n{len(variants) - failed} of {len(variants)} variants passed")
    return 1 if failed else 0
