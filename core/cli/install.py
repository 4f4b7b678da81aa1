"""`attention-lab install [-e] PATH`: pip install a plugin into the lab's own Python, whichever `pip` is on PATH."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HELP = "install a plugin package into the Python that runs the lab (pip install with this interpreter)"
GROUP = "attention_lab"  # the entry-point group the registry reads (core.hookspecs.PROJECT)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-e", "--editable", action="store_true", help="install a local folder in editable mode")
    parser.add_argument("specs", nargs="+", metavar="PATH",
                        help="a plugin folder, a wheel, a PyPI name or a git URL; anything after -- goes to pip")


def entry_point_problem(spec: str) -> str | None:
    """For a local folder: why the lab will not find the plugin it holds (None when it will, or cannot tell)."""
    import tomllib

    pyproject = Path(spec) / "pyproject.toml"
    if not pyproject.is_file():
        return None
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, ValueError):
        return None
    if project.get("entry-points", {}).get(GROUP):
        return None
    return (f"{pyproject} declares no [project.entry-points.{GROUP}] table, so the lab will not see this "
            f"plugin; add a line such as `my-plugin = \"my_module\"` under it")


def run(args: argparse.Namespace) -> int:
    for spec in args.specs:
        if problem := entry_point_problem(spec):
            raise ValueError(problem)
    command = [sys.executable, "-m", "pip", "install", *(["-e"] if args.editable else []), *args.specs]
    print("running: " + " ".join(command), flush=True)
    done = subprocess.run(command, check=False)
    if done.returncode:
        raise ValueError(f"pip could not install {' '.join(args.specs)} (exit code {done.returncode}); see its output above")
    print("installed: `attention-lab plugins` lists the new variants; a running app shows them after "
          "Reload on its Plugins tab")
    return 0
