"""The commands the docs tell a person to type exist in the pinned versions, and the offline ones run."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("examples/*/README.md"))]
BIN = Path(sys.executable).parent  # the venv that runs the tests is the one `make` built
SHELL = ("bash", "sh", "shell", "console")
WINDOWS = ("powershell", "ps1", "bat", "cmd")  # read with Windows' quoting: a backslash is a path separator
ASSIGN = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")  # ATTENTION_LAB_GPT2=~/models/gpt2 make run
NOT_COMMANDS = ("attention-lab @", "attention-lab-", "my-attention @")  # requirement lines and folder names


def shell_blocks(text: str, languages: tuple[str, ...] = SHELL) -> list[str]:
    """The bodies of the ```bash (sh, shell, console) blocks of a Markdown text, or of the languages given."""
    blocks, body, lang = [], None, ""
    for line in text.splitlines():
        if line.startswith("```"):
            if body is None:
                body, lang = [], line[3:].strip()
            else:
                if lang in languages:
                    blocks.append("\n".join(body))
                body = None
        elif body is not None:
            body.append(line)
    return blocks


def doc_commands() -> list[tuple[str, list[str]]]:
    """(where, argv) for each command line in the docs' shell blocks; continuations joined, comments dropped."""
    found = []
    for doc in DOCS:
        blocks = [(b, True) for b in shell_blocks(doc.read_text())]
        blocks += [(b, False) for b in shell_blocks(doc.read_text(), WINDOWS)]
        for block, posix in blocks:
            for line in block.replace("\\\n", " ").splitlines():
                line = line.split(" #")[0].strip().removeprefix("$ ")
                if not line or line.startswith(("#", *NOT_COMMANDS)) or "/" in line.split()[0] and "." in line.split()[0]:
                    continue
                try:
                    argv = shlex.split(line, posix=posix)
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
            if rest[:1] == ["-m"] and importlib.util.find_spec(rest[1].split(".")[0]) is None:
                wrong.append(f"{where}: no module {rest[1]} in the venv")
        elif name == "pip" and "-e" in rest:
            path = rest[rest.index("-e") + 1]
            if not (ROOT / path).exists():
                wrong.append(f"{where}: no folder {path}")
        elif name == "pip" and "-r" in rest:
            wrong += [f"{where}: {problem}" for problem in requirements_problems(rest[rest.index("-r") + 1])]
        elif name == "source" or "\\" in name:
            continue  # a venv's activate script: test_the_commands_without_make_build_the_venv_they_activate
        elif name in {"cd", "export", "git", "curl", "apt-get", "sudo"}:
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


def requirements_problems(name: str) -> list[str]:
    """What a `pip install -r name` from the repository's folder would not find: the file, or a folder it installs."""
    path = ROOT / name
    if not path.is_file():
        return [f"no file {name}"]
    lines = (line.split(" #")[0].strip() for line in path.read_text().splitlines())
    folders = [line.split(None, 1)[1] for line in lines if line.startswith("-e ")]
    return [f"{name} installs {folder}, which has no pyproject.toml" for folder in folders
            if not (ROOT / folder / "pyproject.toml").is_file()]


def without_make(languages: tuple[str, ...]) -> list[list[str]]:
    """The README's command lines without make in the blocks of these languages, comments dropped."""
    blocks = [b for b in shell_blocks((ROOT / "README.md").read_text(), languages) if "python -m venv" in b]
    return [[line.split(" #")[0].strip() for line in b.splitlines() if line.strip()] for b in blocks]


def test_the_readme_says_the_commands_without_make_for_posix_and_windows():
    """A student without make (Windows) has the six commands: venv, activate, runtime, app, dev tools, tests."""
    common = ["python -m venv .venv", "pip install -r requirements.txt", "python app.py",
              "pip install -r requirements-dev.txt", "python -m pytest"]
    (posix,), (windows,) = without_make(SHELL), without_make(WINDOWS)
    assert [line for line in posix if not line.startswith("source ")] == common
    assert [line for line in windows if "activate" not in line] == common
    assert posix[1] == "source .venv/bin/activate" and windows[1] == ".venv\\Scripts\\activate"


def test_the_commands_without_make_build_the_venv_they_activate(tmp_path):
    """`python -m venv .venv` makes the activate script the next line runs: .venv/bin/activate here, and on
    Windows .venv\\Scripts\\activate (activate.bat in cmd, Activate.ps1 in PowerShell)."""
    (posix,), (windows,) = without_make(SHELL), without_make(WINDOWS)
    folder = posix[0].split()[-1]
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / folder)], check=True, timeout=120)
    assert (tmp_path / posix[1].split()[1]).is_file()  # source .venv/bin/activate
    scripts = Path(sysconfig.get_path("scripts", scheme="nt_venv", vars={"base": folder}))
    assert windows[1].split("\\")[:-1] == list(scripts.parts) and windows[1].split("\\")[-1] == "activate"
    assert (Path(venv.__file__).parent / "scripts" / "common" / "Activate.ps1").is_file()  # copied to Scripts everywhere


def test_the_dev_requirements_install_what_the_tests_run():
    """`pip install -r requirements-dev.txt` then `python -m pytest`: the attention-lab command and the example
    plugins' entry points, as make installs them."""
    assert requirements_problems("requirements-dev.txt") == []
    text = (ROOT / "requirements-dev.txt").read_text().splitlines()
    assert {"-e .", "-e examples/alibi_plugin", "-e examples/linear_plugin"} <= {line.split(" #")[0].strip() for line in text}
    assert (BIN / "attention-lab").exists() and importlib.util.find_spec("xdist") is not None
