"""A model named by a person: a checkpoint folder, or a Hub id read from the Hugging Face cache (fetched only then).

A Hub id downloads only the files a model needs (config, safetensors weights, tokenizer files), through
huggingface_hub, and only when HF_HUB_OFFLINE is not set: the app sets it, so a Space takes the files that
`preload_from_hub` cached at build time and a laptop those that `hf download` fetched. pytorch_model.bin is
fetched only for a repository without safetensors weights. config.json alone can be read first
(`config_of`), so a model the lab cannot run is refused before any weights are fetched. A sentence names the
id a person gave (or a folder's own name), never a path on the server.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ..config import ConfigError
from ..i18n import mark, t

HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")  # "gpt2", "openai-community/gpt2"
TOKENIZER_FILES = ["tokenizer.json", "vocab.json", "merges.txt", "vocab.txt"]
MODEL_TOKENIZER_FILES = [*TOKENIZER_FILES, "tokenizer_config.json", "special_tokens_map.json", "tokenizer.model",
                         "added_tokens.json"]
WEIGHTS = ["model.safetensors", "model.safetensors.index.json", "model-*.safetensors"]
SAFETENSORS = ["config.json", *WEIGHTS, *TOKENIZER_FILES]
BIN = ["config.json", "pytorch_model.bin", *TOKENIZER_FILES]
FETCH = "hf download {id} " + " ".join(["config.json", "model.safetensors", "tokenizer.json", "vocab.json",
                                         "merges.txt"])
FETCH_ANY = 'hf download {id} --include "*.json" "model*.safetensors" "tokenizer.model" "merges.txt"'
MESSAGES = {
    "not_id": mark("'{name}' is neither a folder nor a Hugging Face model id (like openai-community/gpt2)"),
    "offline": mark("'{id}' is not in the local Hugging Face cache and downloads are off (HF_HUB_OFFLINE=1): fetch "
                    "it once with `{command}` (on a Space: list it under preload_from_hub in README.md), or unset "
                    "HF_HUB_OFFLINE"),
    "missing": mark("'{id}' could not be fetched from the Hugging Face Hub; check the id and the network"),
    "no_config": mark("'{id}' has no config.json, so it is no Hugging Face model; name a model repository or a "
                      "folder holding config.json, its weights and its tokenizer"),
    "bad_config": mark("'{id}' has a config.json that is not a JSON object; fetch the model again"),
}


def offline() -> bool:
    """Whether downloads are off right now (huggingface_hub's own variable, read at each call)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def label(name_or_path: str | Path) -> str:
    """How a sentence names the model: a Hub id as given, a folder by its own name (never the server's path)."""
    path = Path(name_or_path).expanduser()
    text = str(name_or_path).strip()
    if isinstance(name_or_path, Path) or path.is_dir() or text.startswith((".", "/", "~")):
        return path.name or text  # a folder (or what was meant as one): its own name
    return text


def _hub_id(name_or_path: str | Path) -> str:
    name = str(name_or_path).strip()
    if not HUB_ID.match(name) or name.startswith((".", "/", "~")):
        raise ConfigError(t(MESSAGES["not_id"], name=label(name)[:60]))
    return name


def config_of(name_or_path: str | Path) -> dict[str, Any]:
    """config.json alone, as a dict: from the folder, or from the cache (fetched if allowed) — never the weights."""
    path = Path(name_or_path).expanduser()
    if isinstance(name_or_path, Path) or path.is_dir():
        file = path / "config.json"
        if not file.is_file():
            raise ConfigError(t(MESSAGES["no_config"], id=label(name_or_path)))
    else:
        name = _hub_id(name_or_path)
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError, LocalEntryNotFoundError

        local = offline()
        try:
            file = Path(hf_hub_download(name, "config.json", local_files_only=local))
        except LocalEntryNotFoundError:
            key = "offline" if local else "missing"
            raise ConfigError(t(MESSAGES[key], id=name, command=FETCH_ANY.format(id=name))) from None
        except EntryNotFoundError:
            raise ConfigError(t(MESSAGES["no_config"], id=name)) from None
        except (HfHubHTTPError, OSError, ValueError):
            raise ConfigError(t(MESSAGES["missing"], id=name)) from None
    try:
        config = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = None
    if not isinstance(config, dict):
        raise ConfigError(t(MESSAGES["bad_config"], id=label(name_or_path)))
    return config


def checkpoint_path(name_or_path: str | Path, files: list[str] | None = None,
                    fetch: str = FETCH) -> Path:
    """A folder as it is; a Hub id -> its snapshot folder in the Hugging Face cache holding `files` (patterns;
    GPT-2's by default), downloaded if allowed."""
    path = Path(name_or_path).expanduser()
    if path.is_dir() or isinstance(name_or_path, Path):
        return path
    name = _hub_id(name_or_path)
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    wanted = SAFETENSORS if files is None else ["config.json", *WEIGHTS, *files]
    local = offline()
    try:
        folder = Path(snapshot_download(name, allow_patterns=wanted, local_files_only=local))
        if not any(folder.glob("*.safetensors")):  # an older repository: its weights as pytorch_model.bin
            old = [p for p in wanted if p not in WEIGHTS] + ["pytorch_model.bin"]
            folder = Path(snapshot_download(name, allow_patterns=old, local_files_only=local))
    except LocalEntryNotFoundError:
        key = "offline" if local else "missing"
        raise ConfigError(t(MESSAGES[key], id=name, command=fetch.format(id=name))) from None
    except (HfHubHTTPError, OSError, ValueError):
        raise ConfigError(t(MESSAGES["missing"], id=name)) from None
    return folder
