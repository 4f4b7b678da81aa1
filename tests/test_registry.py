"""Built-ins register like plugins; a third-party entry point is found; a taken name is never replaced."""

import sys
import textwrap

import pytest

from attention_plugins.multi_head import CausalSelfAttention
from core import AttentionConfig, ConfigError, Variant, hookimpl, load_registry
from core.registry import BUILTINS


def write_fake_distribution(root, module: str, body: str, ep_name: str = "fake") -> None:
    """A module plus a *.dist-info with an attention_lab entry point: what `pip install` leaves behind."""
    (root / f"{module}.py").write_text(textwrap.dedent(body))
    info = root / f"{module.replace('_', '-')}-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 1.2.3\n")
    (info / "entry_points.txt").write_text(f"[attention_lab]\n{ep_name} = {module}\n")


@pytest.fixture
def fake_plugin(tmp_path, monkeypatch):
    write_fake_distribution(
        tmp_path,
        "lab_fake_plugin",
        """
        from core import Variant, hookimpl
        from attention_plugins.multi_head import CausalSelfAttention

        @hookimpl
        def register_attention_variants(register):
            register(Variant("fake-mha", "Fake", "A copy of multi-head.", CausalSelfAttention.from_config))
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("ATTENTION_LAB_PLUGINS", raising=False)
    yield
    sys.modules.pop("lab_fake_plugin", None)


def test_builtins_are_pluggy_plugins_like_any_other():
    reg = load_registry(entry_points=False)
    assert {v.plugin for v in reg.variants.values()} == set(BUILTINS)
    assert reg.errors == []


def test_a_third_party_entry_point_is_found(fake_plugin):
    reg = load_registry()
    assert "fake-mha" in reg.variants
    assert reg.variants["fake-mha"].plugin == "fake"
    assert (reg.plugins["fake"].distribution, reg.plugins["fake"].version) == ("lab-fake-plugin", "1.2.3")
    assert isinstance(reg.build("fake-mha", AttentionConfig()), CausalSelfAttention)
    assert "fake-mha" not in load_registry(entry_points=False).variants


def test_an_existing_name_is_never_silently_replaced():
    class Impostor:
        @hookimpl
        def register_attention_variants(self, register):
            register(Variant("multi-head", "Impostor", "Takes the name.", lambda c: None))

    reg = load_registry(entry_points=False, plugins=[Impostor()])
    assert reg.variants["multi-head"].title.startswith("Multi-head")
    assert [(e.stage, "already registered" in e.reason) for e in reg.errors] == [("duplicate", True)]


def test_build_failures_become_one_sentence():
    class Broken:
        @hookimpl
        def register_attention_variants(self, register):
            register(Variant("broken", "Broken", "Raises.", lambda c: 1 / 0))
            register(Variant("not-a-module", "Wrong type", "Returns a string.", lambda c: "oops"))

    reg = load_registry(entry_points=False, plugins=[Broken()])
    with pytest.raises(ConfigError, match=r"^variant 'broken' failed to build: ZeroDivisionError: division by zero "
                       r"\(plugin Broken, at test_registry.py:\d+\)$"):
        reg.build("broken")
    with pytest.raises(ConfigError, match="built a str, not an AttentionModule"):
        reg.build("not-a-module")
