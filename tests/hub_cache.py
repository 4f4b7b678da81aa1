"""A Hugging Face cache made by hand, in the layout snapshot_download leaves (refs, snapshots -> blobs), offline."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path


def cache_repo(cache: Path, repo_id: str, folder: Path, skip: tuple[str, ...] = ()) -> Path:
    """Put a checkpoint folder's files into `cache` as the Hub repo `repo_id` at one commit; its snapshot folder."""
    storage = cache / ("models--" + repo_id.replace("/", "--"))
    commit = hashlib.sha1(repo_id.encode()).hexdigest()  # 40 hex digits, like a git commit
    snapshot = storage / "snapshots" / commit
    (storage / "blobs").mkdir(parents=True, exist_ok=True)
    snapshot.mkdir(parents=True, exist_ok=True)
    for file in sorted(folder.iterdir()):
        if file.name in skip or not file.is_file():
            continue
        digest = hashlib.sha256(file.read_bytes()).hexdigest()
        blob = storage / "blobs" / digest
        if not blob.exists():
            shutil.copyfile(file, blob)
        link = snapshot / file.name
        link.unlink(missing_ok=True)
        link.symlink_to(Path("../../blobs") / digest)
    (storage / "refs").mkdir(exist_ok=True)
    (storage / "refs" / "main").write_text(commit)
    return snapshot
