"""Each plugin fault is recorded with a one-line reason and skipped; every good variant still loads."""

from __future__ import annotations

import pytest

from core import AttentionConfig, AttentionModule, ConfigError, Variant, hookimpl, load_registry
from core.registry import BUILTINS

pytest_plugins = ["core.testing"]

BUILTIN_VARIANTS = {"single-head", "multi-head", "multi-head-stacked", "gqa", "sliding-window"}

GOOD = """
from core import AttentionModule, Variant, hookimpl

@hookimpl
def register_attention_variants(register):
    register(Variant(name="good-attn", title="Good", summary="plain multi-head", build=AttentionModule))
"""
IMPORT_ERROR = "import attention_lab_no_such_dependency\n"
HOOK_RAISES = """
from core import hookimpl

@hookimpl
def register_attention_variants(register):
    raise RuntimeError("boom while registering")
"""
DUPLICATE = """
from core import AttentionModule, Variant, hookimpl

@hookimpl
def register_attention_variants(register):
    register(Variant(name="dupe-ok", title="Fine", summary="unique", build=AttentionModule))
    register(Variant(name="multi-head", title="Impostor", summary="takes a built-in name", build=AttentionModule))
"""
MISSPELLED = """
from core import AttentionModule, Variant, hookimpl

@hookimpl
def register_attention_variant(register):
    register(Variant(name="never-seen", title="x", summary="x", build=AttentionModule))
"""
BUILD_RAISES = """
from core import Variant, hookimpl

def build(config):
    raise RuntimeError("this variant needs a GPU")

@hookimpl
def register_attention_variants(register):
    register(Variant(name="gpu-only", title="GPU only", summary="fails to build", build=build))
"""
NO_MARKER = """
def register_attention_variants(register):
    pass
"""
WRONG_ARGUMENT = """
from core import hookimpl

@hookimpl
def register_attention_variants(add):
    pass
"""
EXITS = "import sys\nsys.exit('no thanks')\n"
NOT_A_VARIANT = """
from core import hookimpl

@hookimpl
def register_attention_variants(register):
    register({"name": "dict-variant"})
"""

BAD_OPTIONS = """
from core import AttentionModule, Option, Variant, hookimpl

@hookimpl
def register_attention_variants(register):
    register(Variant(name="fine-too", title="Fine", summary="kept", build=AttentionModule))
    register(Variant(name="bad-default", title="x", summary="x", build=AttentionModule,
                     options=(Option("window", 0, minimum=1),)))
    register(Variant(name="bad-range", title="x", summary="x", build=AttentionModule,
                     options=(Option("window", 3, minimum=5, maximum=2),)))
"""

FAULTS = {  # entry-point name -> (code, stage, words the reason must contain)
    "importerr": (IMPORT_ERROR, "import", "No module named 'attention_lab_no_such_dependency'"),
    "hookraises": (HOOK_RAISES, "hook", "RuntimeError: boom while registering"),
    "duplicate": (DUPLICATE, "duplicate", "'multi-head' is already registered by attention_plugins.multi_head"),
    "misspelled": (MISSPELLED, "unknown hook", "unknown hook 'register_attention_variant'; did you mean 'register_attention_variants'?"),
    "nomarker": (NO_MARKER, "no hook", "@hookimpl"),
    "wrongarg": (WRONG_ARGUMENT, "register", "add"),
    "exits": (EXITS, "import", "SystemExit: no thanks"),
    "notavariant": (NOT_A_VARIANT, "hook", "registered a dict, not a Variant"),
    "badoptions": (BAD_OPTIONS, "variant", "'bad-default' has a default its own option refuses: option window=0 is too small"),
}


def errors_by_plugin(registry):
    first = {}
    for e in registry.errors:
        first.setdefault(e.plugin, e)
    return first


def test_builtins_load_without_entry_points(registry):
    assert set(registry.variants) == BUILTIN_VARIANTS
    assert registry.errors == []
    assert all(registry.plugins[v.plugin].builtin for v in registry.variants.values())
    assert {info.distribution for info in registry.plugins.values()} == {"attention-lab"}


def test_hook_register_attention_variants(plugin_registry):
    calls = []

    class TwoVariants:
        @hookimpl
        def register_attention_variants(self, register):
            calls.append(register)
            register(Variant(name="first", title="First", summary="one", build=AttentionModule))
            register(Variant(name="second", title="Second", summary="two", build=AttentionModule, plugin="forged"))

    registry = plugin_registry(TwoVariants())
    assert len(calls) == 1  # called once per plugin
    assert list(registry.variants)[-2:] == ["first", "second"]  # after the built-ins, in registration order
    assert {registry.variants[n].plugin for n in ("first", "second")} == {"TwoVariants"}  # the registry says who
    assert registry.build("second").config == AttentionConfig()


def test_a_good_entry_point_plugin_loads_with_its_distribution(install_plugin, monkeypatch):
    install_plugin("good", GOOD, dist="lab-good", version="1.2.3")
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "good")
    registry = load_registry()
    assert registry.errors == []
    assert registry.variants["good-attn"].plugin == "good"
    info = registry.plugins["good"]
    assert (info.distribution, info.version, info.builtin, info.source) == ("lab-good", "1.2.3", False, "fake_good_plugin")
    assert registry.build("good-attn", AttentionConfig()).config.d_model == 16


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_each_fault_is_recorded_and_everything_else_loads(install_plugin, monkeypatch, name):
    code, stage, words = FAULTS[name]
    install_plugin("good", GOOD)
    install_plugin(name, code)
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", f"good,{name}")
    registry = load_registry()
    error = errors_by_plugin(registry)[name]
    assert error.stage == stage
    assert words in error.reason
    assert "\n" not in error.reason
    assert {"good-attn"} | BUILTIN_VARIANTS <= set(registry.variants)
    assert registry.variants["multi-head"].plugin == "attention_plugins.multi_head"


def test_all_faults_at_once_leave_every_good_variant(install_plugin, monkeypatch):
    install_plugin("good", GOOD)
    for name, (code, _, _) in FAULTS.items():
        install_plugin(name, code)
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", ",".join(["good", *FAULTS]))
    registry = load_registry()
    assert set(errors_by_plugin(registry)) == set(FAULTS)
    assert set(registry.variants) == BUILTIN_VARIANTS | {"good-attn", "dupe-ok", "fine-too"}
    for name in registry.variants:
        registry.build(name, AttentionConfig())


def test_malformed_variants_are_refused_one_by_one(install_plugin, monkeypatch):
    install_plugin("badoptions", BAD_OPTIONS)
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "badoptions")
    registry = load_registry()
    assert [e.reason for e in registry.errors] == [
        "variant 'bad-default' has a default its own option refuses: option window=0 is too small; choose 1 or more",
        "variant 'bad-range' has option window with minimum 5 above maximum 2",
    ]
    assert "fine-too" in registry.variants and "bad-default" not in registry.variants


def test_a_misspelled_hook_leaves_no_trace_in_later_loads(install_plugin, monkeypatch):
    install_plugin("misspelled", MISSPELLED)
    install_plugin("zgood", GOOD)  # sorted after: check_pending must not blame it
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "misspelled,zgood")
    registry = load_registry()
    assert [e.plugin for e in registry.errors] == ["misspelled"]
    assert "good-attn" in registry.variants


def test_a_build_that_raises_becomes_one_sentence(install_plugin, monkeypatch):
    install_plugin("gpuonly", BUILD_RAISES)
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "gpuonly")
    registry = load_registry()
    assert "gpu-only" in registry.variants and registry.errors == []
    with pytest.raises(ConfigError, match=r"^variant 'gpu-only' failed to build: RuntimeError: this variant needs a GPU "
                                          r"\(plugin gpuonly, at fake_gpuonly_plugin.py:5\)$"):
        registry.build("gpu-only", AttentionConfig())


def test_two_distributions_with_one_entry_point_name(install_plugin, monkeypatch):
    install_plugin("same", GOOD, module="same_a", dist="dist-a")
    install_plugin("same", GOOD, module="same_b", dist="dist-b")
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "same")
    registry = load_registry()
    assert [(e.plugin, e.stage) for e in registry.errors] == [("same", "duplicate")]
    assert registry.variants["good-attn"].plugin == "same"


def test_allowlist_empty_string_loads_no_third_party_plugin(install_plugin, monkeypatch):
    install_plugin("good", GOOD)
    install_plugin("importerr", IMPORT_ERROR)
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "")
    registry = load_registry()
    assert set(registry.variants) == BUILTIN_VARIANTS
    assert registry.errors == []
    assert set(registry.plugins) == set(BUILTINS)


def test_allowlist_names_the_plugins_to_load(install_plugin, monkeypatch):
    install_plugin("good", GOOD)
    install_plugin("importerr", IMPORT_ERROR)
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", " good , ")
    assert load_registry().errors == [] and "good-attn" in load_registry().variants
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "importerr")
    registry = load_registry()
    assert "good-attn" not in registry.variants
    assert [e.plugin for e in registry.errors] == ["importerr"]


def test_allowlist_reports_a_name_nothing_provides(install_plugin, monkeypatch):
    install_plugin("good", GOOD)
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "good,goood")
    registry = load_registry()
    assert "good-attn" in registry.variants
    assert [str(e) for e in registry.errors] == [
        "goood (import): is listed in ATTENTION_LAB_PLUGINS but no installed package provides it"]
    with pytest.raises(ConfigError, match=r"\(1 plugin failed to load: see `attention-lab plugins`\); plugins are"):
        registry.build("goood-attn")


def test_without_allowlist_every_installed_plugin_is_tried(install_plugin, monkeypatch):
    install_plugin("good", GOOD)
    install_plugin("importerr", IMPORT_ERROR)
    registry = load_registry()
    assert "good-attn" in registry.variants
    assert "importerr" in errors_by_plugin(registry)


def test_entry_points_off_ignores_installed_plugins(install_plugin):
    install_plugin("importerr", IMPORT_ERROR)
    assert load_registry(entry_points=False).errors == []


@pytest.mark.parametrize(
    ("name", "raised", "match"),
    [
        ("importerr", ModuleNotFoundError, "attention_lab_no_such_dependency"),
        ("hookraises", RuntimeError, "boom while registering"),
        ("duplicate", ConfigError, "plugin duplicate \\(duplicate\\): variant 'multi-head' is already registered"),
        ("misspelled", Exception, "register_attention_variant"),
    ],
)
def test_strict_mode_reraises(install_plugin, monkeypatch, name, raised, match):
    install_plugin(name, FAULTS[name][0])
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", name)
    monkeypatch.setenv("ATTENTION_LAB_STRICT", "1")
    with pytest.raises(raised, match=match) as info:
        load_registry()
    if raised is not ConfigError:
        assert any(f"plugin {name} (" in note for note in getattr(info.value, "__notes__", []))


def test_strict_mode_is_quiet_when_every_plugin_is_fine(install_plugin, monkeypatch):
    install_plugin("good", GOOD)
    monkeypatch.setenv("ATTENTION_LAB_PLUGINS", "good")
    monkeypatch.setenv("ATTENTION_LAB_STRICT", "1")
    assert "good-attn" in load_registry().variants


def test_plugin_registry_fixture_registers_a_plugin_for_one_test(plugin_registry, registry):
    class Extra:
        @hookimpl
        def register_attention_variants(self, register):
            register(Variant(name="extra", title="Extra", summary="one test only", build=AttentionModule))

    with_extra = plugin_registry(Extra())
    assert with_extra.variants["extra"].plugin == "Extra"
    assert "extra" not in registry.variants and "extra" not in load_registry(entry_points=False).variants


def test_install_plugin_fixture_removes_the_plugin_after_the_test():
    import sys

    assert "fake_good_plugin" not in sys.modules
    assert not any("dist-fake_good_plugin" in p for p in sys.path)


def test_unknown_variant_name_lists_the_known_ones(registry):
    with pytest.raises(ConfigError, match="variant='nope' is not registered; choose one of: gqa, multi-head"):
        registry.build("nope")
