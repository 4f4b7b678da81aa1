"""`python -m core` is the `attention-lab` command."""

from .cli import main

raise SystemExit(main())
