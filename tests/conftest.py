"""Shared fixtures: the app launched ONCE per test session (per worker under xdist), and a gradio_client on it.

Under pytest-xdist (`make test`: -n auto --dist loadfile) every worker is a session of its own: it launches its
own app on a free port and hands out files from a folder of its own; a test module runs whole on one worker, so
its module-scoped fixtures (its Chromium, a trained run) are made once (docs/setup.md).
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # before gradio is imported anywhere
os.environ.setdefault("HF_HUB_OFFLINE", "1")
if os.environ.get("PYTEST_XDIST_WORKER") and "GRADIO_TEMP_DIR" not in os.environ:
    # each worker's app writes and serves its files (traces, PNGs) in a folder no other app prunes
    os.environ["GRADIO_TEMP_DIR"] = tempfile.mkdtemp(prefix=f"attention-lab-{os.environ['PYTEST_XDIST_WORKER']}-")
    _OWN_TEMP_DIR = os.environ["GRADIO_TEMP_DIR"]

import pytest  # noqa: E402


def pytest_sessionfinish(session):
    """A worker's own file folder goes with it (an xdist worker ends after its session, never unconfigured)."""
    if "_OWN_TEMP_DIR" in globals():
        shutil.rmtree(_OWN_TEMP_DIR, ignore_errors=True)


def pytest_terminal_summary(terminalreporter):
    """Say which of torch's CPU kernels computed the floats (ATEN_CPU_CAPABILITY, else the CPU's best)."""
    import torch

    terminalreporter.write_line(f"torch CPU kernels: {torch.backends.cpu.get_cpu_capability()}")


def free_port() -> int:
    """A port the OS says is free right now (bound to port 0, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def demo():
    """The whole app as one gr.Blocks, built once (the same build app.py does)."""
    from core.ui.app import build_demo

    return build_demo()


@pytest.fixture(scope="session")
def app_url(demo) -> str:
    """URL of the app, launched once on loopback for every test that needs a live server."""
    from core.ui.app import launch_options

    for attempt in range(3):  # a port free when asked may be taken before the server binds it (another app, worker)
        try:
            demo.launch(
                prevent_thread_lock=True,
                server_name="127.0.0.1",
                server_port=free_port(),
                quiet=True,
                **launch_options(demo),
            )
            break
        except OSError:
            if attempt == 2:
                raise
    yield demo.local_url.rstrip("/") + "/"
    demo.close()


@pytest.fixture(scope="session")
def client(app_url):
    """A gradio_client.Client on the launched app, as a teacher's script would use it."""
    from gradio_client import Client

    # ssl_verify=False: plain-http loopback; with it on, gradio_client builds an SSL context per call (~100 ms)
    return Client(app_url, verbose=False, analytics_enabled=False, download_files=False, ssl_verify=False)


CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")  # Debian's, never a downloaded one
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]


@pytest.fixture(scope="module")
def browser():
    """One Chromium per test module, for every browser test."""
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.fail(f"Chromium not found at {CHROMIUM}; install it with `apt-get install -y chromium`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, app_url):
    """A new page on the app's Attention tab, its first view drawn (a test module may define its own)."""
    from tests.pages import open_page

    page = open_page(browser, app_url)
    yield page
    page.close()
