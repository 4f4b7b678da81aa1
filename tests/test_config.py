"""Config errors read as one sentence that names the field and the allowed values."""

import json

import pytest

from core import AttentionConfig, ConfigError, Option, load_registry
from core.config import parse_options
from core.mistakes import whole
from core.ui.inputs import options_json


def test_defaults_and_head_dim():
    c = AttentionConfig()
    assert (c.d_model, c.n_heads, c.causal, c.scaled, c.dropout, c.bias) == (16, 2, True, True, 0.0, True)
    assert c.head_dim == 8
    assert AttentionConfig(d_model=64, n_heads=8).head_dim == 8


def test_config_is_frozen_and_hashable():
    c = AttentionConfig(options={"window": 3})
    with pytest.raises(AttributeError):
        c.n_heads = 4
    with pytest.raises(TypeError):
        c.options["window"] = 5
    assert hash(c) == hash(AttentionConfig(options={"window": 3}))
    assert {c: 1}[AttentionConfig(options={"window": 3})] == 1
    assert c != AttentionConfig(options={"window": 4})


def test_heads_must_divide_d_model_and_the_message_lists_choices():
    with pytest.raises(ConfigError) as err:
        AttentionConfig(d_model=16, n_heads=3)
    assert str(err.value) == "n_heads=3 does not divide d_model=16; choose 1, 2, 4, 8 or 16"
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"d_model": 0}, "d_model"),
        ({"n_heads": 0}, "n_heads"),
        ({"dropout": 1.0}, "dropout"),
        ({"dropout": -0.1}, "dropout"),
        ({"d_model": 16.5}, "d_model"),
        ({"causal": "yes"}, "causal"),
        ({"options": [1, 2]}, "options"),
    ],
)
def test_each_invalid_field_is_named(kwargs, field):
    with pytest.raises(ConfigError, match=rf"^{field}="):
        AttentionConfig(**kwargs)


def test_dropout_just_below_one_is_allowed():
    assert AttentionConfig(dropout=0.99).dropout == 0.99


def test_option_validation_names_the_option_and_its_range():
    window = Option("window", 4, minimum=1, maximum=64)
    assert window.validate(7) == 7
    assert window.validate(7.0) == 7  # JSON may send 7.0
    with pytest.raises(ConfigError, match=r"window=0 is too small; choose a value from 1 to 64"):
        window.validate(0)
    with pytest.raises(ConfigError, match=r"window=65 is too large"):
        window.validate(65)
    with pytest.raises(ConfigError, match=r"window='4' has the wrong type; it takes a whole number"):
        window.validate("4")
    with pytest.raises(ConfigError, match="wrong type"):
        window.validate(True)
    assert Option("slope", 0.5).validate(1) == 1.0


def test_registry_checks_options_against_the_variant():
    reg = load_registry(entry_points=False)
    with pytest.raises(ConfigError, match=r"unknown option 'windw'; this variant takes stride or window"):
        reg.build("sliding-window", AttentionConfig(options={"windw": 3}))
    with pytest.raises(ConfigError, match=r"this variant takes none"):
        reg.build("multi-head", AttentionConfig(options={"window": 3}))
    with pytest.raises(ConfigError, match=r"^option stride=-1 is too small"):
        reg.build("sliding-window", AttentionConfig(options={"stride": -1}))
    layer = reg.build("sliding-window", AttentionConfig(options={"window": 2}))
    assert dict(layer.config.options) == {"window": 2, "stride": 0}  # defaults filled in


def test_gqa_kv_heads_must_divide_heads():
    reg = load_registry(entry_points=False)
    with pytest.raises(ConfigError, match=r"^n_kv_heads=3 does not divide n_heads=4; choose 1, 2 or 4$"):
        reg.build("gqa", AttentionConfig(d_model=16, n_heads=4, options={"n_kv_heads": 3}))


def test_unknown_variant_lists_the_known_ones():
    with pytest.raises(ConfigError, match=r"variant='nope' is not registered; choose one of: gqa, multi-head"):
        load_registry(entry_points=False).build("nope")


# ---- one option parser for the API (JSON) and the CLI (KEY=VALUE); whole numbers from controls ----


def test_parse_options():
    assert parse_options("") == {} and parse_options(None) == {}
    assert parse_options('{"window": 3}') == {"window": 3}
    for bad in ("[1]", "{window: 3}", "3"):
        with pytest.raises(ConfigError, match="JSON object"):
            parse_options(bad)


def test_whole_numbers_from_sliders_and_dropdowns():
    assert whole("n_heads", 4.0) == 4 and whole("d_model", "16") == 16
    for bad in (2.5, True, "two", None):
        with pytest.raises(ConfigError, match="n_heads"):
            whole("n_heads", bad)


def test_cli_key_value_options_are_typed():
    assert parse_options(["window=3", "slope=0.5", "flag=true", "name=x"]) == {
        "window": 3, "slope": 0.5, "flag": True, "name": "x"}

    with pytest.raises(ConfigError, match="KEY=VALUE"):
        parse_options(["window"])


def test_options_json_gives_the_options_own_types():
    spec = (Option("window", 4, minimum=1, maximum=64), Option("slope", 0.5), Option("flag", False))
    assert json.loads(options_json(spec, [3.0, 1, True])) == {"window": 3, "slope": 1.0, "flag": True}
    with pytest.raises(ConfigError, match="window=0 is too small"):
        options_json(spec, [0, 1, True])


def test_an_option_fits_a_slider_when_it_is_a_bounded_number_with_few_steps():
    assert Option("window", 4, minimum=1, maximum=64).fits_a_slider
    assert not Option("window", 4, minimum=1, maximum=65536).fits_a_slider
    assert not Option("slope", 0.5, minimum=0.0).fits_a_slider
    assert not Option("flag", True).fits_a_slider and not Option("name", "x").fits_a_slider
