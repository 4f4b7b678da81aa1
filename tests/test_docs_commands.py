"""The commands the docs tell a person to type exist in the pinned versions, and the offline ones run."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("examples/*/README.md"))]
BIN = Path(sys.executable).parent  # the venv that runs the tests is the one `make` built
SHELL = ("bash", "sh", "shell", "console")
ASSIGN = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")  # ATTENTION_LAB_GPT2=~/models/gpt2 make run
NOT_COMMANDS = ("attention-lab @", "attention-lab-", "my-attention @")  # requirement lines and folder names


def shell_blocks(text: str) -> list[str]:
    """The bodies of the ```bash (sh, shell, console) blocks of a Markdown text."""
    blocks, body, lang = [], None, ""
    for line in text.splitlines():
        if line.startswith("```"):
            if body is None:
                body, lang = [], line[3:].strip()
            else:
                if lang in SHELL:
                    blocks.append("\n".join(body))
                body = None
        elif body is not None:
            body.append(line)
    return blocks


def doc_commands() -> list[tuple[str, list[str]]]:
    """(where, argv) for each command line in the docs' shell blocks; continuations joined, comments dropped."""
    found = []
    for doc in DOCS:
        for block in shell_blocks(doc.read_text()):
            for line in block.replace("\\\n", " ").splitlines():
                line = line.split(" #")[0].strip().removeprefix("$ ")
                if not line or line.startswith(("#", *NOT_COMMANDS)) or "/" in line.split()[0] and "." in line.split()[0]:
                    continue
                try:
                    argv = shlex.split(line)
                except ValueError:
                    continue
                while argv and ASSIGN.match(argv[0]):
                    argv = argv[1:]
                if argv:
                    found.append((f"{doc.relative_to(ROOT)}: {line}", argv))
    return found


def make_targets() -> set[str]:
    return set(re.findall(r"^([a-z][a-z-]*):", (ROOT / "Makefile").read_text(), re.M))


def attention_lab_commands() -> set[str]:
    out = subprocess.run([BIN / "attention-lab", "--help"], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"^    ([a-z][a-z-]+)", out, re.M))


def test_the_docs_have_commands_to_check():
    names = {argv[0] for _, argv in doc_commands()}
    assert {"attention-lab", "make", "python", "hf"} <= names  # a parser that found none would pass anything


def test_every_command_the_docs_name_exists():
    targets, subcommands = make_targets(), attention_lab_commands()
    wrong = []
    for where, argv in doc_commands():
        name, rest = argv[0], argv[1:]
        if name == "make":
            wrong += [f"{where}: no make target {t!r}" for t in rest
                      if not t.startswith("-") and "=" not in t and t not in targets]
        elif name == "attention-lab":
            if rest and not rest[0].startswith("-") and rest[0] not in subcommands:
                wrong.append(f"{where}: attention-lab has no command {rest[0]!r}")
        elif name in {"python", "python3"}:
            script = next((a for a in rest if a.endswith(".py")), None)
            if script and not (ROOT / script).exists():
                wrong.append(f"{where}: no file {script}")
        elif name == "pip" and "-e" in rest:
            path = rest[rest.index("-e") + 1]
            if not (ROOT / path).exists():
                wrong.append(f"{where}: no folder {path}")
        elif name in {"cd", "export", "source", "git", "curl", "apt-get", "sudo"}:
            continue
        elif not (BIN / name).exists() and not any((Path(p) / name).exists() for p in os.environ["PATH"].split(":")):
            wrong.append(f"{where}: no executable {name!r} in the venv or on PATH")
    assert not wrong, "\n".join(wrong)


def test_hf_download_takes_the_options_the_docs_use():
    # huggingface_hub 2.x has `hf download`; `huggingface-cli` is gone
    lines = [argv for _, argv in doc_commands() if argv[:2] == ["hf", "download"]]
    out = subprocess.run([BIN / "hf", "download", "--help"], capture_output=True, text=True, check=True).stdout
    for argv in lines:
        for option in (a for a in argv if a.startswith("--")):
            assert option in out, f"hf download has no {option}"


@pytest.mark.parametrize("argv", [["--help"], ["plugins"], ["check", "--help"], ["bench", "--help"]])
def test_the_offline_commands_of_the_docs_run(argv):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    done = subprocess.run([BIN / "attention-lab", *argv], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip()
    if argv == ["plugins"]:
        assert "multi-head" in done.stdout and "Traceback" not in done.stdout + done.stderr
