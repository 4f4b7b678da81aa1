"""A Hugging Face Hub on 127.0.0.1 that serves some files of some repositories and writes down every request.

huggingface_hub is pointed at it (its URL template and endpoint) with downloads on, as a notebook runs: a test
then reads which files a loader asked for — a refusal must come after config.json alone, never the weights.
"""

from __future__ import annotations

import hashlib
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@contextmanager
def fake_hub(files: dict[str, bytes], monkeypatch, cache):
    """Serve {"owner/name/filename": bytes}; yields the list of request paths (method and path) as they come."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, body: bool) -> None:
            seen.append(f"{self.command} {self.path}")
            repo_file = self.path.split("?")[0].lstrip("/").replace("/resolve/main/", "/", 1)
            data = files.get(repo_file)
            if data is None:
                repo = "/".join(repo_file.split("/")[:2])
                known = any(name.startswith(repo + "/") for name in files)
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.send_header("X-Error-Code", "EntryNotFound" if known else "RepoNotFound")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("ETag", '"' + hashlib.sha1(data).hexdigest() + '"')
            self.send_header("X-Repo-Commit", COMMIT)
            self.end_headers()
            if body:
                self.wfile.write(data)

        def do_HEAD(self) -> None:  # noqa: N802 - the http.server names
            self._answer(False)

        def do_GET(self) -> None:  # noqa: N802
            self._answer(True)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "ENDPOINT", url)
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", url + "/{repo_id}/resolve/{revision}/{filename}")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    try:
        yield seen
    finally:
        server.shutdown()
        server.server_close()
