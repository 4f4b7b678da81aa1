"""core.model.load_pretrained by Hub id: config.json is judged before any weights are fetched (a fake hub counts the
requests, downloads on as in a notebook), a refusal names the id and the next step, never a server path; from a
local cache offline it loads what the folder loads; the app refuses a misnamed model at start-up in one line."""

from __future__ import annotations

import json
import logging

import huggingface_hub
import pytest
import torch

from core.config import ConfigError
from core.model import lab_forward, load_gpt2, load_pretrained
from tests.fake_hub import fake_hub
from tests.hub_cache import cache_repo
from tests.real_families import save


def _config(kind: str, **extra) -> bytes:
    return json.dumps({"model_type": kind, "architectures": ["Whatever"], **extra}).encode()


@pytest.mark.parametrize("kind, words", [
    ("bert", "'someone/not-a-decoder' is a 'bert' model; the lab runs GPT-2, Llama, Qwen2, Qwen3, Mistral, Gemma 2, "
             "Gemma 3 decoders"),
    ("gemma3", "vision tower"),
])
def test_an_unsupported_config_is_one_sentence_before_any_weights_are_fetched(tmp_path, monkeypatch, kind, words):
    files = {"someone/not-a-decoder/config.json": _config(kind),
             "someone/not-a-decoder/model.safetensors": b"x" * 1000}
    with fake_hub(files, monkeypatch, tmp_path / "hub") as seen:
        with pytest.raises(ConfigError) as err:
            load_pretrained("someone/not-a-decoder")
    message = str(err.value)
    assert words in message and "\n" not in message and str(tmp_path) not in message
    asked = [r for r in seen if "/someone/" in r]  # (huggingface_hub also asks /api/ about itself)
    assert asked and all(r.endswith("/config.json") for r in asked), seen  # config.json alone, never the weights


def test_load_gpt2_refuses_another_family_from_its_config_alone_and_names_the_way(tmp_path, monkeypatch):
    files = {"someone/a-llama/config.json": _config("llama"), "someone/a-llama/model.safetensors": b"x" * 1000}
    with fake_hub(files, monkeypatch, tmp_path / "hub") as seen:
        with pytest.raises(ConfigError) as err:
            load_gpt2("someone/a-llama")
    assert "'someone/a-llama' holds a 'llama' model, not GPT-2" in str(err.value)
    assert "load_pretrained" in str(err.value) and str(tmp_path) not in str(err.value)
    asked = [r for r in seen if "/someone/" in r]
    assert asked and all(r.endswith("/config.json") for r in asked), seen


def test_a_missing_id_is_one_sentence_that_names_it_and_the_download(tmp_path, monkeypatch):
    with fake_hub({}, monkeypatch, tmp_path / "hub"):
        with pytest.raises(ConfigError, match="'nobody/nothing' could not be fetched"):
            load_pretrained("nobody/nothing")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "empty"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConfigError) as err:
        load_pretrained("Qwen/Qwen2.5-0.5B")
    assert "hf download Qwen/Qwen2.5-0.5B" in str(err.value) and "HF_HUB_OFFLINE" in str(err.value)


@pytest.mark.floats
def test_a_hub_id_in_the_local_cache_loads_offline_as_its_folder_does(tmp_path, monkeypatch):
    folder = tmp_path / "qwen"
    save("qwen2", folder)
    cache_repo(tmp_path / "hub", "Qwen/Qwen2.5-tiny-test", folder)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    by_id, tokenizer = load_pretrained("Qwen/Qwen2.5-tiny-test")
    by_folder, _ = load_pretrained(folder)
    ids = tokenizer.encode("the fox that the child saw")
    assert torch.equal(lab_forward(by_id, ids).weights, lab_forward(by_folder, ids).weights)
    cache_repo(tmp_path / "hub", "someone/no-tokenizer", folder, skip=("tokenizer.json", "tokenizer_config.json"))
    with pytest.raises(ConfigError) as err:
        load_pretrained("someone/no-tokenizer")
    assert "'someone/no-tokenizer'" in str(err.value) and "snapshots" not in str(err.value)


def test_the_app_refuses_a_misnamed_model_at_start_up_in_one_log_line_and_in_the_tab(tmp_path, monkeypatch, caplog):
    from core.i18n import speaking
    from core.serve import real_models

    bert = tmp_path / "a-bert"
    bert.mkdir()
    (bert / "config.json").write_bytes(_config("bert"))
    good = tmp_path / "a-mistral"
    save("mistral", good)
    monkeypatch.setenv("ATTENTION_LAB_MODELS", f"{bert}, {good}")
    monkeypatch.delenv("ATTENTION_LAB_GPT2", raising=False)
    with caplog.at_level(logging.WARNING, logger="attention_lab.real_models"):
        assert real_models.names() == ["tiny", "a-mistral"]
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "a-bert is not offered: 'a-bert' is a 'bert' model" in lines[0]
    assert str(tmp_path) not in lines[0] and len(lines[0]) < 300
    with speaking("zh-CN"):
        notes = real_models.refusal_notes()
    assert len(notes) == 1 and "a-bert" in notes[0] and "bert" in notes[0] and "model;" not in notes[0]
    with pytest.raises(ConfigError, match="choose 'tiny' or 'a-mistral'"):
        real_models.loaded("a-bert")
