"""The app's mistakes, as a script or a hostile page sees them: one sentence naming the field, never a traceback.

Every mistake is one sentence, even where Gradio would answer itself (a raw request with a body the client
would never send), and text a user types is data: never echoed back whole, never HTML.
"""

import pytest
from gradio_client.exceptions import AppError


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(sentence=""), "sentence is empty"),
        (dict(sentence="   "), "sentence is empty"),
        (dict(sentence="a b", n_heads=3), "n_heads=3 does not divide d_model=16"),
        (dict(sentence="a b", options='{"nope": 1}'), "unknown option"),
        (dict(sentence="a b", variant="sliding-window", options='{"window": 0}'), "window=0 is too small"),
        (dict(sentence="a b", variant="gqa", n_heads=4, options='{"n_kv_heads": 3}'), "n_kv_heads=3"),
        (dict(sentence="a b", options="not json"), "JSON object"),
        (dict(sentence="a b", variant="nope"), "variant"),
    ],
)
def test_bad_input_is_one_sentence(client, kwargs, words):
    with pytest.raises(AppError) as err:
        client.predict(**kwargs, api_name="/attention")
    msg = str(err.value)
    assert words in msg and "Traceback" not in msg and msg.count("\n") == 0


def test_bad_causality_and_transfer_inputs(client):
    with pytest.raises(AppError, match="position=9 is outside"):
        client.predict("a b c", 9, "x", api_name="/causality")
    with pytest.raises(AppError, match="^mistake='oops' is not one of the choices; choose 'none', "):
        client.predict(123, 3, 2, "oops", api_name="/transfer")  # answered before Gradio's own check


def test_hostile_text_is_data_and_the_app_keeps_serving(client):
    with pytest.raises(AppError) as err:
        client.predict("a", options='{"<img src=x onerror=alert(1)>": 1}', api_name="/attention")
    assert "<img" not in str(err.value)  # escaped before it can reach the page as HTML
    out = client.predict("<img src=x onerror=alert(1)> hi", api_name="/attention")[-1]
    assert out["tokens"][:3] == ["<", "img", "src"]
    huge = client.predict("word " * 5000, api_name="/attention")
    assert len(huge[-1]["tokens"]) == 64 and "cut" in huge[3]
    assert client.predict("still here", api_name="/attention")[-1]["tokens"] == ["still", "here"]


# ---- every mistake is one sentence naming the field, even where Gradio would answer itself -------------


def raw_call(app_url: str, api_name: str, body: str) -> tuple[int, str]:
    """POST /gradio_api/call/<name> with this exact body, then read the answer: (HTTP status, text)."""
    import http.client
    import json
    from urllib.parse import urlparse

    u = urlparse(app_url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    try:
        conn.request("POST", f"/gradio_api/call/{api_name}", body.encode("utf-8", "surrogatepass"),
                     {"Content-Type": "application/json"})
        r = conn.getresponse()
        text = r.read().decode()
        if r.status != 200:
            return r.status, text
        conn.request("GET", f"/gradio_api/call/{api_name}/{json.loads(text)['event_id']}")
        return 200, conn.getresponse().read().decode()
    finally:
        conn.close()


def error_of(answer: str) -> str:
    """The sentence of an `event: error` answer; fails, showing the answer's end, when the event did not fail."""
    import json

    assert "event: error" in answer, answer[-300:]
    return json.loads(answer.split("data: ", 1)[1].strip())["error"]


@pytest.mark.parametrize("data, message", [
    ('["a b", "multi-head", true, true, 9, 16, 0, "{}"]', "n_heads=9 is out of range; choose 1 to 8"),
    ('["a b", "multi-head", true, true, 2, 16, NaN, "{}"]', "seed=nan must be a finite number"),
    ('["a b", "multi-head", true, true, 2, 16, 9223372036854775808, "{}"]',
     "seed=9223372036854775808 is out of range; choose 0 to 4294967295"),
    ('["a b", "multi-head", true, true, 2, "16", 0, "{}"]',
     "d_model='16' is not one of the choices; choose 4, 8, 16, 32 or 64"),
    ('["\\ud800 b", "multi-head", true, true, 2, 16, 0, "{}"]',
     "sentence holds an invalid character (a lone surrogate, U+D800) at position 0; remove it"),
    ('[["a", "b"], "multi-head", true, true, 2, 16, 0, "{}"]', "sentence (a list of 2 items) must be text"),
    ('["a b", "multi-head", "yes", true, 2, 16, 0, "{}"]', "causal='yes' must be true or false"),
    ('["a"]', "this request sends 1 value, but the event takes 8: sentence, variant, causal, scaled, n_heads, "
              "d_model, seed, options"),
])
def test_gradios_own_checks_are_answered_first_in_one_sentence(app_url, data, message):
    status, answer = raw_call(app_url, "attention", '{"data": ' + data + '}')
    assert status == 200 and error_of(answer) == message


def test_a_huge_input_is_never_echoed_back(app_url):
    import json

    for data in (["a", "x" * 500_000, True, True, 2, 16, 0, "{}"], ["a", "multi-head", True, True, 2, 16, 0, "{" * 500_000]):
        status, answer = raw_call(app_url, "attention", json.dumps({"data": data}))
        message = error_of(answer)
        assert status == 200 and len(message) <= 200 and "\n" not in message


def test_a_body_over_a_mebibyte_and_any_upload_are_refused_in_one_sentence(app_url):
    import json

    status, answer = raw_call(app_url, "attention", json.dumps({"data": ["x" * (2 << 20)]}))
    assert status == 413 and json.loads(answer)["detail"].startswith("The request is larger than 1 MiB")
    status, answer = raw_call(app_url, "attention", '{"data": 5}')
    assert status == 422 and json.loads(answer)["detail"] == ("The request is not what this endpoint takes: "
                                                             "data: Input should be a valid list.")
    import httpx

    upload = httpx.post(app_url + "gradio_api/upload", files={"files": ("big.bin", b"x" * 100_000)})
    assert upload.status_code == 413


def test_no_event_can_answer_with_an_http_500(demo):
    # an unqueued event that raises is an HTTP 500 the page never shows; queued, its error is a toast.
    # Only handlers that answer every value (a pinned sentence) skip the queue, and none of them is public.
    unqueued = [fn for fn in demo.fns.values() if fn.fn is not None and not fn.queue]
    assert unqueued and all(getattr(fn.fn, "never_raises", False) for fn in unqueued)
    assert all(fn.api_visibility == "private" for fn in unqueued)


def test_an_unqueued_event_answers_a_value_it_cannot_use_with_its_sentence(app_url, demo):
    import httpx

    draw, fn = next((i, fn) for i, fn in demo.fns.items() if not fn.queue and getattr(fn.fn, "__name__", "") == "draw"
                    and fn.inputs[0].elem_id == "sentence")  # (the Attention tab's: its inputs, then the variants' own)
    data = ["a b", "multi-head", True, True, 3, 16, 0, "{}"]  # n_heads=3 does not divide d_model=16
    data += [block.value for block in fn.inputs[len(data):]]  # (the variants' own controls: as the page holds them)
    r = httpx.post(app_url + "gradio_api/run/predict", json={"data": data, "fn_index": draw, "session_hash": "t500"},
                   timeout=60)
    assert r.status_code == 200, r.text[:300]
    problem = r.json()["data"][-1]  # the problem box's value (shown while it holds a sentence)
    assert problem.startswith("n_heads=3 does not divide d_model=16")


def test_values_no_page_sends_are_still_one_sentence_on_the_unqueued_and_trained_events(app_url, demo):
    import httpx

    from core.config import ConfigError
    from core.serve import views
    from core.serve.trained import trained

    assert views.position_range(["not", "text"], "x") == (1, 0)  # a slider keeps a range: no Gradio error
    with pytest.raises(ConfigError, match="type a sentence first"):
        trained(None, 0, 0)
    positions = next(i for i, fn in demo.fns.items() if fn.name == "positions")
    r = httpx.post(app_url + "gradio_api/run/predict",
                   json={"data": [["a"], {"x": 1}], "fn_index": positions, "session_hash": "refused"}, timeout=60)
    assert r.status_code == 200, r.text[:300]


# ---- a malformed argument's shape (nesting, size) is bounded where every input is checked, for every endpoint ----


def test_an_argument_nested_1100_deep_is_one_sentence_naming_it_not_the_apology(client):
    """/model_attention's ablate is text a handler reads as JSON: 1,100 nested lists would recurse past Python's
    limit (a RecursionError, then the apology); the check every input passes refuses it first, naming the field."""
    from core.ui.common import APOLOGY

    for ablate, depth in (("[" * 1100 + "]" * 1100, "1,100"), ('{"a": ' * 40 + "1" + "}" * 40, "40")):
        with pytest.raises(AppError) as err:
            client.predict("the fox that the child saw was", "tiny", True, True, ablate, api_name="/model_attention")
        message = str(err.value)
        assert message == f"ablate nests {depth} levels deep; the lab reads at most 32, so send it as the page does"
        assert APOLOGY not in message
    with pytest.raises(AppError, match="^sentence nests 33 levels deep"):  # any endpoint, any text field
        client.predict("[" * 33 + " a b", api_name="/attention")
    summary, _ = client.predict("the fox that the child saw was", "tiny", True, True, "[[0, 1]]",
                                api_name="/model_attention")
    assert "1 head zeroed" in summary  # and the app keeps serving


def test_the_bound_on_any_value_is_generic():
    from core.config import ConfigError
    from core.serve.limits import MAX_ITEMS, MAX_NESTING, bounded

    deep: list = []  # one level
    for _ in range(MAX_NESTING - 1):
        deep = [deep]
    bounded("x", deep)  # 32 levels (and 32 brackets in a text) are fine
    bounded("x", "[" * MAX_NESTING + "]" * MAX_NESTING + " and ] stray } closers")
    with pytest.raises(ConfigError, match="^x nests lists or objects more than 32 levels deep"):
        bounded("x", [deep])
    with pytest.raises(ConfigError, match="^x nests lists or objects more than 32 levels deep"):
        bounded("x", {"a": [deep]})
    with pytest.raises(ConfigError, match=f"^x holds more than {MAX_ITEMS:,} values"):
        bounded("x", [[0] * 1000 for _ in range(101)])
