"""`python -m core` is the `attention-lab` command."""

from .cli import console

console()
