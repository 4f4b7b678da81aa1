"""A GPT-2 named by a person: a checkpoint folder, or a Hub id read from the Hugging Face cache (fetched only then).

A Hub id downloads only the files a GPT-2 needs (config, safetensors weights, tokenizer files), through
huggingface_hub, and only when HF_HUB_OFFLINE is not set: the app sets it, so a Space takes the files that
`preload_from_hub` cached at build time and a laptop those that `hf download` fetched. pytorch_model.bin is
fetched only for a repository without safetensors weights.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..config import ConfigError

HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")  # "gpt2", "openai-community/gpt2"
TOKENIZER_FILES = ["tokenizer.json", "vocab.json", "merges.txt", "vocab.txt"]
SAFETENSORS = ["config.json", "model.safetensors", "model.safetensors.index.json", "model-*.safetensors",
               *TOKENIZER_FILES]
BIN = ["config.json", "pytorch_model.bin", *TOKENIZER_FILES]
FETCH = "hf download {id} " + " ".join(["config.json", "model.safetensors", "tokenizer.json", "vocab.json",
                                         "merges.txt"])
MESSAGES = {
    "not_id": "'{name}' is neither a folder nor a Hugging Face model id (like openai-community/gpt2)",
    "offline": "'{id}' is not in the local Hugging Face cache and downloads are off (HF_HUB_OFFLINE=1): fetch it "
               "once with `{command}` (on a Space: list it under preload_from_hub in README.md), or unset "
               "HF_HUB_OFFLINE",
    "missing": "'{id}' could not be fetched from the Hugging Face Hub; check the id and the network",
}


def offline() -> bool:
    """Whether downloads are off right now (huggingface_hub's own variable, read at each call)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def checkpoint_path(name_or_path: str | Path) -> Path:
    """A folder as it is; a Hub id -> its snapshot folder in the Hugging Face cache (downloaded if allowed)."""
    path = Path(name_or_path).expanduser()
    if path.is_dir() or isinstance(name_or_path, Path):
        return path
    name = str(name_or_path).strip()
    if not HUB_ID.match(name) or name.startswith((".", "/", "~")):
        raise ConfigError(MESSAGES["not_id"].format(name=name))
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    local = offline()
    try:
        folder = Path(snapshot_download(name, allow_patterns=SAFETENSORS, local_files_only=local))
        if not any(folder.glob("*.safetensors")):  # an older repository: its weights as pytorch_model.bin
            folder = Path(snapshot_download(name, allow_patterns=BIN, local_files_only=local))
    except LocalEntryNotFoundError:
        key = "offline" if local else "missing"
        raise ConfigError(MESSAGES[key].format(id=name, command=FETCH.format(id=name))) from None
    except (HfHubHTTPError, OSError, ValueError):
        raise ConfigError(MESSAGES["missing"].format(id=name)) from None
    return folder
