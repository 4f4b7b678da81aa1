"""pytest plugin for plugin authors: `pytest_plugins = ["core.testing"]` in a test module.

PYTEST_DONT_REWRITE: it asserts through pytest.fail, so authors may import it before pytest loads it.
"""

from __future__ import annotations

import importlib
import re
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from .config import AttentionConfig
from .kit.conformance import CheckReport, check_variant
from .plugin_collect import STRICT_ENV
from .registry import ALLOWLIST_ENV, Registry, load_registry
from .variant import Variant

InstallPlugin = Callable[..., Path]


def assert_variant_conforms(
    variant: Variant | str, config: AttentionConfig | None = None, registry: Registry | None = None
) -> CheckReport:
    """Fail the test with the kit's report unless the variant passes every conformance check."""
    if isinstance(variant, str):
        variant = (registry or load_registry()).get(variant)
    report = check_variant(variant, config)
    if not report.passed:
        pytest.fail(str(report), pytrace=False)
    return report


@pytest.fixture
def registry() -> Registry:
    """The built-in variants only: entry points off, so the test does not depend on what is installed."""
    return load_registry(entry_points=False)


@pytest.fixture
def plugin_registry() -> Callable[..., Registry]:
    """plugin_registry(*plugins) -> built-ins plus these plugin objects, for this test only."""

    def build(*plugins: Any) -> Registry:
        return load_registry(entry_points=False, plugins=plugins)

    return build


@pytest.fixture
def install_plugin(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[InstallPlugin]:
    """install_plugin(name, code) -> dir: a fake installed distribution, seen by load_registry until the test ends.

    It writes `code` as a module plus a `*.dist-info` (METADATA, entry_points.txt in the
    `attention_lab` group) into a temp dir on sys.path: no pip, no network. Put the returned dir
    on PYTHONPATH to let a subprocess see it too.
    """
    monkeypatch.delenv(ALLOWLIST_ENV, raising=False)
    monkeypatch.delenv(STRICT_ENV, raising=False)
    modules: list[str] = []

    def install(
        name: str,
        code: str,
        *,
        module: str | None = None,
        dist: str | None = None,
        version: str = "0.1.0",
        entry_points: Mapping[str, str] | None = None,
    ) -> Path:
        module = module or re.sub(r"\W", "_", f"fake_{name}_plugin")
        dist = dist or f"fake-{name}"
        root = tmp_path_factory.mktemp(f"dist-{module}")
        (root / f"{module}.py").write_text(textwrap.dedent(code))
        info = root / f"{re.sub(r'[-.]', '_', dist)}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        eps = entry_points or {name: module}
        (info / "entry_points.txt").write_text("[attention_lab]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()))
        sys.modules.pop(module, None)
        modules.append(module)
        monkeypatch.syspath_prepend(str(root))  # also invalidates importlib's caches
        return root

    yield install
    for module in modules:
        sys.modules.pop(module, None)
    importlib.invalidate_caches()
