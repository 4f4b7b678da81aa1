"""`attention-lab train`: retrain the shipped tiny model from scratch, seeded, on CPU."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "train the tiny model on the synthetic corpus (seeded, CPU, a few minutes) and write it to core/assets/"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The defaults live in core.lab.train.TrainSettings (read when the command runs: --help imports no torch)."""
    parser.add_argument("--steps", type=int, help="optimizer steps (default: those the shipped model was trained with)")
    parser.add_argument("--seed", type=int, help="seed for weights, batches and training text (default: the shipped model's)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch CPU threads (default 1: the same numbers on every machine, and fair to shared cores)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "assets",
                        help="directory for tiny.pt and tiny.json (default: the package's core/assets/)")


def run(args: argparse.Namespace) -> int:
    import torch

    from core.lab.train import TrainSettings, train_tiny

    default = TrainSettings()
    steps = default.steps if args.steps is None else args.steps
    seed = default.seed if args.seed is None else args.seed
    if steps < 1:
        raise ValueError(f"--steps={steps} is too small; choose 1 or more")
    before = torch.get_num_threads()
    torch.set_num_threads(max(1, args.threads))
    try:
        _, r = train_tiny(TrainSettings(steps=steps, seed=seed), out_dir=args.out)
    finally:
        torch.set_num_threads(before)
    print(f"trained in {r.seconds:.0f} s; {r.n_params:,} parameters; written to {args.out}")
    print(f"fresh text (seed {TrainSettings().test_seed}): model loss {r.test_loss:.3f} bits/word, "
          f"unigram entropy {r.test_unigram_entropy:.3f} bits/word (ratio {r.test_loss / r.test_unigram_entropy:.2f}); "
          f"the grammar's own entropy is {r.grammar_entropy:.3f} bits/word")
    return 0
