"""`attention-lab install [-e] PATH`: pip install a plugin into the lab's own Python, whichever `pip` is on PATH."""

from __future__ import annotations

import argparse
import json
import os
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


def entry_point_names(specs: list[str]) -> list[str]:
    """The entry-point names the local folders among specs declare (what the registry will call their plugins)."""
    import tomllib

    names: list[str] = []
    for spec in specs:
        pyproject = Path(spec) / "pyproject.toml"
        try:
            project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        except (OSError, ValueError):
            continue
        names += list(project.get("entry-points", {}).get(GROUP, {}))
    return names


PROBE = ("import json, sys; from core.registry import load_registry; r = load_registry(); n = set(sys.argv[1:]); "
         "print(json.dumps({'variants': sorted(v.name for v in r.variants.values() if v.plugin in n), "
         "'errors': [str(e) for e in r.errors if e.plugin in n]}))")


def loaded(names: list[str], specs: list[str]) -> dict | None:
    """What a fresh process's registry makes of the plugins just installed (this one imported too early to know)."""
    root = str(Path(__file__).resolve().parents[2])  # the folder holding core/
    target = [specs[i + 1] for i, s in enumerate(specs[:-1]) if s == "--target"]
    path = os.pathsep.join([*target, root, *filter(None, [os.environ.get("PYTHONPATH")])])
    env = {**os.environ, "PYTHONPATH": path, "ATTENTION_LAB_PLUGINS": ",".join(names)}
    try:
        done = subprocess.run([sys.executable, "-c", PROBE, *names], env=env, capture_output=True, text=True,
                              timeout=120, check=False)
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return None


def run(args: argparse.Namespace) -> int:
    for spec in args.specs:
        if problem := entry_point_problem(spec):
            raise ValueError(problem)
    command = [sys.executable, "-m", "pip", "install", *(["-e"] if args.editable else []), *args.specs]
    print("running: " + " ".join(command), flush=True)
    done = subprocess.run(command, check=False)
    if done.returncode:
        raise ValueError(f"pip could not install {' '.join(args.specs)} (exit code {done.returncode}); see its output above")
    names = entry_point_names(args.specs)
    found = loaded(names, args.specs) if names else None
    if found and found["errors"]:
        raise ValueError(f"pip installed it, but the lab cannot load plugin {found['errors'][0]}; fix that and run "
                         "`attention-lab plugins` to see it load")
    listed = f" ({', '.join(found['variants'])})" if found and found["variants"] else ""
    print(f"installed: `attention-lab plugins` lists the new variants{listed}; a running app shows them after "
          "Reload on its Plugins tab")
    return 0
