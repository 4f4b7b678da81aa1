"""What a Linux x86_64 Space downloads to install requirements.txt: every wheel and its size, from PyPI's own index.

    python scripts/space_download.py                       # CPU torch (requirements.txt as it is)
    python scripts/space_download.py --cpu-wheel PATH      # ... sized from a local copy of the +cpu wheel

pip resolves the requirements for CPython 3.11 on manylinux x86_64 without installing anything (`--dry-run
--report`, pip's own configuration ignored); each wheel's size comes from PyPI's JSON simple API. torch is
resolved twice: as requirements.txt asks (2.13.0+cpu from PyTorch's CPU index) and as PyPI alone would give it
(2.13.0 with its CUDA packages). Where PyTorch's index cannot be reached, pass the +cpu wheel to size it.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import urllib.request
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLATFORMS = ["manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64",
             "manylinux_2_5_x86_64", "manylinux1_x86_64", "linux_x86_64"]
SIMPLE = "https://pypi.org/simple/{}/"


def resolve(requirements: list[str]) -> list[tuple[str, str]]:
    """(name, version) of everything pip would install for these requirement lines on a Linux x86_64 Space."""
    with tempfile.TemporaryDirectory() as tmp:
        req, report = Path(tmp, "r.txt"), Path(tmp, "report.json")
        req.write_text("\n".join(requirements) + "\n")
        platforms = [a for p in PLATFORMS for a in ("--platform", p)]
        subprocess.run([sys.executable, "-m", "pip", "--isolated", "install", "--dry-run", "--ignore-installed", "-q",
                        "--only-binary=:all:", *platforms, "--python-version", "3.11", "--report", str(report),
                        "-r", str(req)], check=True)
        return [(i["metadata"]["name"], i["metadata"]["version"]) for i in json.loads(report.read_text())["install"]]


def wheel_size(name: str, version: str) -> int | None:
    """Bytes of the wheel a cp311 manylinux x86_64 install takes (PyPI's JSON simple API); None if not listed."""
    request = urllib.request.Request(SIMPLE.format(name.lower()), headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        files = json.load(response)["files"]
    norm = re.sub(r"[-_.]+", "_", name).lower()
    ok = [f for f in files if f["filename"].lower().startswith(f"{norm}-{version}-") and f["filename"].endswith(".whl")
          and ("x86_64" in f["filename"] or "none-any" in f["filename"]) and ("cp311" in f["filename"] or "py3" in
          f["filename"] or "abi3" in f["filename"])]
    return max((f["size"] for f in ok), default=None)


def torch_dependencies(version: str) -> list[str] | None:
    """The CUDA packages PyPI's Linux torch wheel requires (its metadata file on PyPI); None where not served."""
    request = urllib.request.Request(SIMPLE.format("torch"), headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        files = json.load(response)["files"]
    wheel = next(f for f in files if f["filename"].startswith(f"torch-{version}-cp311-cp311-manylinux"))
    try:
        with urllib.request.urlopen(wheel["url"] + ".metadata", timeout=30) as response:
            lines = response.read().decode().splitlines()
    except OSError:
        return None
    return [line.split(": ", 1)[1] for line in lines if line.startswith("Requires-Dist: ")
            and 'platform_system == "Linux"' in line and re.match(r"Requires-Dist: (nvidia|cuda|triton)", line)]


def wheel_requirements(wheel: Path) -> list[str]:
    """A local wheel's own requirements (no extras): what installing it pulls in besides itself."""
    with zipfile.ZipFile(wheel) as whl:
        meta = next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))
        lines = whl.read(meta).decode().splitlines()
    return [line.split(": ", 1)[1] for line in lines if line.startswith("Requires-Dist: ") and "extra ==" not in line]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu-wheel", type=Path, help="a local copy of torch's +cpu wheel, to size it offline")
    args = parser.parse_args()
    lines = [line.split(" #")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    others = [line for line in lines if line and not line.startswith(("#", "-", "torch"))]
    others += wheel_requirements(args.cpu_wheel) if args.cpu_wheel else []  # sympy, networkx, jinja2, ...
    rest = [(n, v, wheel_size(n, v)) for n, v in resolve(others)]
    torch_version = "2.13.0"
    cpu = args.cpu_wheel.stat().st_size if args.cpu_wheel else None
    needs = torch_dependencies(torch_version)
    cuda = [(n.split(";")[0].split("==")[0].strip(), n.split("==")[1].split(";")[0].strip())
            for n in needs or [] if "==" in n]
    cuda_sizes = [(n, v, wheel_size(n, v)) for n, v in cuda]
    mb = lambda b: f"{b / 1e6:,.1f} MB" if b is not None else "not listed"  # noqa: E731
    for n, v, size in sorted(rest, key=lambda r: -(r[2] or 0)):
        print(f"{n}=={v}: {mb(size)}")
    others_total = sum(s or 0 for *_, s in rest)
    torch_cuda = wheel_size("torch", torch_version)
    cuda_total = sum(s or 0 for *_, s in cuda_sizes)
    print(f"\n{len(rest)} packages besides torch{' (its own dependencies included)' if args.cpu_wheel else ''}: "
          f"{mb(others_total)}")
    print(f"torch {torch_version}+cpu (PyTorch's CPU index): {mb(cpu)}")
    print(f"torch {torch_version} (PyPI, CUDA build): {mb(torch_cuda)}", end="")
    print(f" + {len(cuda)} CUDA packages {mb(cuda_total)}" if needs is not None else
          " + its CUDA packages (their list, the wheel's metadata file, is not served here)")
    for n, v, size in cuda_sizes:
        print(f"  {n}=={v}: {mb(size)}")
    if cpu is not None and needs is not None:
        print(f"\nA Space downloads {mb(others_total + cpu)} with the CPU index, "
              f"{mb(others_total + (torch_cuda or 0) + cuda_total)} without it.")
    elif cpu is not None:
        print(f"\nA Space downloads {mb(others_total + cpu)} with the CPU index.")


if __name__ == "__main__":
    main()
