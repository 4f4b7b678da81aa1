"""What one request can cost and what it hears back: bounded inputs, bounded disk, one sentence per mistake."""

from __future__ import annotations

import os
import threading
from types import SimpleNamespace

import gradio as gr
import pytest

from core.config import ConfigError
from core.lab import experiments as ex
from core.lab.model_stats import model_size
from core.lab.session import KEPT_CHARS, Lab, make_request
from core.lab.text import MAX_CHARS
from core.serve import runs
from core.serve.exports import trace_file
from core.serve.limits import BodyLimit
from core.ui.blocks_seams import check_inputs
from core.ui.common import one_sentence
from core.ui.inputs import check_value


@pytest.fixture(scope="module")
def lab():
    from core.registry import load_registry

    return Lab(load_registry(entry_points=False))


# ---- a control's value, checked before Gradio reads it ---------------------------------------


@pytest.mark.parametrize("block, value, message", [
    (gr.Slider(1, 8, step=1), 9, "n_heads=9 is out of range; choose 1 to 8"),
    (gr.Slider(1, 8, step=1), "4", "n_heads='4' must be a number"),
    (gr.Slider(1, 8, step=1), [4], "n_heads (a list of 1 item) must be a number"),
    (gr.Number(precision=0), float("nan"), "n_heads=nan must be a finite number"),
    (gr.Number(precision=0), float("inf"), "n_heads=inf must be a finite number"),
    (gr.Number(maximum=64), 10**400, "n_heads (a number with more than 19 digits) is out of range; choose 64 or less"),
    (gr.Number(minimum=1), 0, "n_heads=0 is out of range; choose 1 or more"),
    (gr.Checkbox(), "yes", "n_heads='yes' must be true or false"),
    (gr.Dropdown([4, 8, 16]), "16", "n_heads='16' is not one of the choices; choose 4, 8 or 16"),
    (gr.Radio(["none", "swap"]), "x" * 10**6, "n_heads='xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' is not one of the choices; "
                                                "choose 'none' or 'swap'"),
    (gr.Textbox(), {"a": 1}, "n_heads (a dict of 1 item) must be text"),
    (gr.Textbox(), "ok\ud800", "n_heads holds an invalid character (a lone surrogate, U+D800) at position 2; remove it"),
    (gr.Dropdown(["a"], allow_custom_value=True), ["a"], "n_heads (a list of 1 item) must be text"),
])
def test_a_bad_value_is_one_sentence_that_names_the_field(block, value, message):
    with pytest.raises(ConfigError) as err:
        check_value(block, "n_heads", value)
    assert str(err.value) == message and len(str(err.value)) <= 200


def test_good_values_pass_and_text_is_cut_to_the_lab_cap():
    assert check_value(gr.Slider(1, 8), "x", 4) == 4 and check_value(gr.Number(), "x", None) is None
    assert check_value(gr.Dropdown([4, 8]), "x", 8) == 8 and check_value(gr.Checkbox(), "x", False) is False
    long = "word " * 100_000
    assert check_value(gr.Textbox(), "sentence", long) == long[:KEPT_CHARS] and KEPT_CHARS == MAX_CHARS + 1


def test_too_few_values_name_what_the_event_takes():
    with gr.Blocks():
        a, b = gr.Textbox(label="Sentence (the one)"), gr.Slider(1, 8, label="heads (n_heads)")
        fn = SimpleNamespace(inputs=[a, b], input_parameter_names=[None, None], component_prop_inputs=[])
    with pytest.raises(ConfigError, match=r"^this request sends 1 value, but the event takes 2: Sentence, heads$"):
        check_inputs(fn, ["hi"])
    assert check_inputs(fn, ["hi", 3]) == ["hi", 3]


def test_one_sentence_cuts_lines_long_quotes_and_length():
    msg = one_sentence("variant='" + "v" * 5000 + "' is not registered;\n  choose one of: a, b")
    assert msg == "variant='" + "v" * 30 + "…' is not registered; choose one of: a, b"
    assert len(one_sentence("word " * 100)) == 200


# ---- the lab's own checks -------------------------------------------------------------------


def test_a_pasted_book_is_cut_before_it_keys_the_cache(lab):
    req = make_request("word " * 200_000)
    assert len(req.sentence) == KEPT_CHARS
    run = lab.run(req)
    assert len(run.tokens) == 64 and "cut" in run.tokens.note


@pytest.mark.parametrize("kwargs, message", [
    (dict(sentence=["a", "b"]), "sentence (a list of 2 items) must be text"),
    (dict(sentence="a\udfffb"), "sentence holds an invalid character (a lone surrogate, U+DFFF) at position 1"),
    (dict(sentence="a", seed=2**63), "seed=9223372036854775808 is out of range; choose 0 to 4294967295"),
    (dict(sentence="a", seed=-1), "seed=-1 is out of range; choose 0 to 4294967295"),
    (dict(sentence="a", seed=float("nan")), "seed=nan must be a whole number"),
    (dict(sentence="a", causal="false"), "causal='false' must be true or false"),
    (dict(sentence="a", options="{" * 5000), "options is longer than 1,000 characters"),
    (dict(sentence="a", variant="v" * 200), "variant is longer than 100 characters"),
])
def test_a_request_a_person_got_wrong_is_refused_in_one_sentence(kwargs, message):
    with pytest.raises(ConfigError) as err:
        make_request(**kwargs)
    assert str(err.value).startswith(message) and len(str(err.value)) <= 200


def test_the_model_tab_with_gpt2_xl_and_gqa_shows_the_nearest_k_v_heads_instead_of_an_error(lab):
    parts, compare, summary, payload = model_size(lab.registry, "gpt2-xl", "gqa", 4, 256)
    assert summary.startswith("n_kv_heads=4 does not divide the 25 heads of gpt2-xl, so this shows n_kv_heads=5 "
                              "(choose 1, 5 or 25).")
    assert payload["options"] == {"n_kv_heads": 5} and payload["n_kv_heads"] == 5
    *_, exact = model_size(lab.registry, "gpt2-small", "gqa", 4, 256)
    assert exact["n_kv_heads"] == 4  # one that divides is used as given


def test_after_stop_the_json_says_stopped():
    running = {"steps_done": 40, "done": False, "stopped": False}
    assert ex.stopped_summary(running) == {**running, "stopped": True}
    finished = {"steps_done": 400, "done": True, "stopped": False}
    assert ex.stopped_summary(finished) is finished and ex.stopped_summary(None) is None


def test_the_stop_buttons_update_the_json(demo):
    from core.ui import experiments_tab

    stops = [fn for fn in demo.fns.values() if fn.fn in (experiments_tab.stop_mask, experiments_tab.stop_scale)]
    assert len(stops) == 2
    for fn in stops:
        assert any(isinstance(o, gr.JSON) for o in fn.outputs)
    assert experiments_tab.stop_scale({"done": False, "stopped": False, "steps_done": 3, "seconds": 1.0,
                                       "max_weight": {}, "softmax_input_grad_norm": {}})[0]["stopped"] is True


# ---- disk: the Step-through trace --------------------------------------------------------------


def test_traces_are_written_once_and_the_folder_stays_under_its_budget(lab, tmp_path):
    budget = 200_000
    paths = [trace_file(lab.run(make_request(f"sentence number {i} of many", seed=i)), str(tmp_path), budget)
             for i in range(40)]
    on_disk = sum(f.stat().st_size for f in tmp_path.iterdir())
    assert on_disk <= budget and len(list(tmp_path.iterdir())) < 40  # the oldest were deleted
    assert os.path.exists(paths[-1]) and not os.path.exists(paths[0])
    again = trace_file(lab.run(make_request("sentence number 39 of many", seed=39)), str(tmp_path), budget)
    assert again == paths[-1]  # the same request: the same file, not a second one


# ---- the body cap --------------------------------------------------------------------------------


def _app_with_limit(max_bytes: int):
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def echo(request):
        return PlainTextResponse(str(len(await request.body())))

    return Starlette(routes=[Route("/", echo, methods=["POST"])], middleware=[Middleware(BodyLimit, max_bytes=max_bytes)])


def test_a_body_over_the_cap_is_refused_before_it_is_read():
    from starlette.testclient import TestClient

    client = TestClient(_app_with_limit(1000), raise_server_exceptions=False)  # the app sees a client that left
    assert client.post("/", content=b"x" * 1000).text == "1000"
    big = client.post("/", content=b"x" * 5000)
    assert big.status_code == 413 and big.json()["detail"].startswith("The request is larger than")
    chunked = client.post("/", content=iter([b"x" * 600, b"x" * 600]))  # no Content-Length: counted as it comes
    assert chunked.status_code == 413


# ---- training: one waiting or running per session; the cache never waits ---------------------


def _snapshots(n: int, gate: threading.Event | None = None):
    for i in range(n):
        if gate is not None:
            gate.wait(10)
        yield SimpleNamespace(done=i == n - 1, step=i)


def test_one_training_per_session_and_a_cached_run_does_not_wait_for_the_one_training():
    gate = threading.Event()
    runs.cached_run(("test", "cached"), lambda: _snapshots(1)).__next__()  # trained and cached
    training = runs.cached_run(("test", "slow"), lambda: _snapshots(3, gate), session="s1")
    got = []
    trainer = threading.Thread(target=lambda: got.extend(training))
    trainer.start()
    try:
        while runs.TURNS.waiting == 0:
            pass  # the slow run holds the one turn
        with pytest.raises(ConfigError, match="^You already have a training waiting or running"):
            next(runs.cached_run(("test", "other"), lambda: _snapshots(1), session="s1"))
        hit = next(runs.cached_run(("test", "cached"), lambda: _snapshots(1), session="s2"))
        assert hit.done  # answered while the turn is taken
    finally:
        gate.set()
        trainer.join(10)
    assert got[-1].done and runs.TURNS.waiting == 0
    assert next(runs.cached_run(("test", "other"), lambda: _snapshots(1), session="s1")).done  # its turn is free now
