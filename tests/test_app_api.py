"""The app's public API, as a teacher's gradio_client script sees it: names, parameters, JSON, how it serves.

Its mistakes (one sentence each, hostile text, raw requests) are in test_app_errors.py.
"""

import pytest

ATTENTION_PARAMS = ["sentence", "variant", "causal", "scaled", "n_heads", "d_model", "seed", "options"]


def attention(client, sentence, **kw):
    return client.predict(sentence, **kw, api_name="/attention")[-1]  # the JSON output is the last


def test_named_endpoints_and_parameter_names(client):
    api = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    names = {ep: [p["parameter_name"] for p in api[ep]["parameters"]] for ep in ("/attention", "/causality", "/transfer")}
    assert names["/attention"] == ATTENTION_PARAMS
    assert names["/causality"] == ["sentence", "position", "replacement", "causal", "variant"]
    assert names["/transfer"] == ["seed", "d_in", "d_out", "mistake"]
    defaults = {p["parameter_name"]: p["parameter_default"] for p in api["/attention"]["parameters"]}
    assert defaults["variant"] == "multi-head" and defaults["causal"] is True and defaults["options"] == "{}"
    assert defaults["n_heads"] == 2 and defaults["d_model"] == 16 and defaults["seed"] == 0
    t = {p["parameter_name"]: p["parameter_default"] for p in api["/transfer"]["parameters"]}
    assert t == {"seed": 123, "d_in": 3, "d_out": 2, "mistake": "none"}


@pytest.mark.floats
def test_attention_json(client):
    out = attention(client, "The cat sat on the mat", n_heads=4)
    assert out["tokens"] == ["The", "cat", "sat", "on", "the", "mat"]
    w = out["weights"]
    assert len(w) == 4 and all(len(head) == 6 and all(len(row) == 6 for row in head) for head in w)
    for head in w:
        for i, row in enumerate(head):
            assert sum(row) == pytest.approx(1, abs=1e-5)
            assert all(v == 0 for v in row[i + 1:])  # causal: nothing above the diagonal


def test_attention_outputs_check_line_and_mask_toggle(client):
    plots_on = client.predict("a b c d", api_name="/attention")
    plots_off = client.predict("a b c d", causal=False, api_name="/attention")
    assert plots_on[2] == "every row sums to 1; weight above the diagonal: 0 in every row"
    assert "leaks" in plots_off[2]
    assert plots_on[0]["kind"] == "heatmaps" and plots_on[0]["stamp"] != plots_off[0]["stamp"]  # numbers to draw
    assert "blocked" in plots_on[0]["heads"][0] and "blocked" not in plots_off[0]["heads"][0]
    from core.render.scales import unpacked

    assert unpacked(plots_off[0]["heads"][0]["values"])[0][3] > 0  # the view draws the API's numbers
    w = plots_off[-1]["weights"][0]
    assert w[0][3] > 0  # without the mask the first token sees the last


def test_variant_options_through_the_api(client):
    out = attention(client, "a b c d e", variant="sliding-window", options='{"window": 2}')
    row = out["weights"][0][4]
    assert row[:3] == [0, 0, 0] and row[3] > 0 and row[4] > 0
    gqa = attention(client, "a b", variant="gqa", n_heads=4, options='{"n_kv_heads": 2}')
    assert len(gqa["weights"]) == 4
    single = client.predict("a b", variant="single-head", n_heads=4, api_name="/attention")
    assert len(single[-1]["weights"]) == 1 and "n_heads is not used" in single[3]


@pytest.mark.floats
def test_causality_json(client):
    out = client.predict("The cat sat on the mat", 3, "dog", api_name="/causality")
    diffs = out[-1]["row_max_abs_diff"]
    assert len(diffs) == 6 and diffs[:3] == [0, 0, 0] and all(d > 0 for d in diffs[3:])
    assert "byte-identical" in out[2]
    leak = client.predict("The cat sat on the mat", 3, "dog", causal=False, api_name="/causality")[-1]
    assert all(d > 0 for d in leak["row_max_abs_diff"])


@pytest.mark.floats
def test_transfer_json(client):
    ok = client.predict(api_name="/transfer")[-1]
    assert ok["equal"] is True and ok["max_abs_diff"] <= ok["atol"] and ok["error"] is None  # float rounding at most
    assert ok["exact"] is (ok["max_abs_diff"] == 0) and ("bit-for-bit" in ok["verdict"]) is ok["exact"]
    shape = client.predict(123, 3, 2, "no-transpose", api_name="/transfer")[-1]
    assert shape["equal"] is False and shape["max_abs_diff"] is None and "weight.T" in shape["error"]
    silent = client.predict(123, 3, 3, "no-transpose", api_name="/transfer")
    assert silent[-1]["error"] is None and silent[-1]["max_abs_diff"] > 0 and "silently wrong" in silent[3]


@pytest.mark.floats
def test_dropout_endpoint_is_torchs_dropout_of_the_heads_weights(client):
    """/dropout (the Masking tab's pair): the weights beside one training step's nn.Dropout under the seed, and a
    check line that counts what the view shows; a rate the tab does not offer is one sentence."""
    import numpy as np
    import torch
    from gradio_client.exceptions import AppError

    from core.render.scales import unpacked

    view, check = client.predict("The cat sat on the mat", 3, 0.3, api_name="/dropout")
    before, after = (unpacked(h["values"]).astype(np.float32) for h in view["heads"])  # (T, T) each
    torch.manual_seed(3)
    expected = torch.nn.Dropout(0.3).train()(torch.from_numpy(before)).numpy()  # (T, T)
    assert np.allclose(after, expected, atol=1e-5) and (after == 0).any()
    had = before > 0
    assert check.startswith(f"p = 0.3: {int((had & (after == 0)).sum())} of {int(had.sum())} links dropped")
    same = client.predict("The cat sat on the mat", 3, 0.3, api_name="/dropout")
    assert same[0]["heads"][1]["values"] == view["heads"][1]["values"]  # seeded: a press in class draws the same map
    with pytest.raises(AppError, match="^p=0.7 is not one of the choices"):
        client.predict("The cat sat on the mat", 3, 0.7, api_name="/dropout")


def test_app_py_has_a_module_level_demo():
    import ast
    from pathlib import Path

    tree = ast.parse((Path(__file__).resolve().parents[1] / "app.py").read_text())
    assigned = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    assert "demo" in assigned  # Spaces and `gradio app.py` look for it at module level


def test_launch_reads_the_environment_stays_offline_and_warms_after_serving(monkeypatch):
    from core.ui import app

    events = []

    class Fake:
        def launch(self, **kwargs):
            self.kwargs = kwargs
            events.append("serving")

        def block_thread(self):
            events.append("blocked")

    monkeypatch.setattr(app, "warm", lambda jobs: events.append("warm"))
    monkeypatch.setenv("GRADIO_SERVER_NAME", "0.0.0.0")
    monkeypatch.setenv("GRADIO_SERVER_PORT", "7999")
    fake = Fake()
    app.launch(fake)
    kw = fake.kwargs
    assert kw["server_name"] == "0.0.0.0" and kw["server_port"] == 7999
    assert kw["ssr_mode"] is False and not isinstance(kw["theme"], str)  # no Hub theme by name
    assert kw["run_history"] is False  # no copy of every call in the browser's localStorage
    assert events == ["serving", "warm", "blocked"]  # warming never delays the first page
    events.clear()
    monkeypatch.setenv("ATTENTION_LAB_WARM", "0")
    app.launch(fake)
    assert events == ["serving", "blocked"]
    # (no CDN fonts: the browser test checks that the page requests nothing but the app's own host)


def test_trained_attention_endpoint_names_heads_from_measurements(client):
    from core.lab.trained_view import EXAMPLES

    view, selected, roles, note, model_json, payload = client.predict(EXAMPLES[0], 1, 2, api_name="/trained_attention")
    assert selected.startswith("Layer 1 head 2:") and "held-out" in selected
    assert len(roles.splitlines()) == 4 and note == ""
    assert view["kind"] == "modelview" and view["selected"] == [1, 2] and len(payload["weights"]) == 4
    assert payload["tokens"] == view["rows"] == model_json["tokens"] and payload["layer"] == 1 and payload["head"] == 2
    *_, note, _, _ = client.predict("the zebra slept .", 0, 0, api_name="/trained_attention")
    assert "zebra" in note


def test_the_tabs_warm_their_defaults_after_start_up_cheapest_first(demo):
    from core.serve import views
    from core.ui import experiments_tab

    jobs = demo.lab_warm
    assert jobs[-1] is experiments_tab.warm  # the long one (training) last
    views._causality_view.cache_clear()
    views._masking_view.cache_clear()
    for job in jobs[:-1]:
        job()
    warmed = [views._causality_view.cache_info(), views._masking_view.cache_info()]
    assert all(info.currsize >= 1 for info in warmed)  # the Causality and Masking tabs' (and the lessons') views
    for job in jobs[:-1]:  # what a tab (or a lesson step) computes on opening is now a cache hit
        job()
    again = [views._causality_view.cache_info(), views._masking_view.cache_info()]
    assert [i.misses for i in again] == [i.misses for i in warmed]
    from core.serve import trained

    assert trained._trained.cache_info().currsize >= 1  # the trained model's opening view


def test_the_model_tab_answers_gpt2_xl_with_gqa(client):
    *_, summary, payload = client.predict("gpt2-xl", "gqa", 4, 256, api_name="/model_size")
    assert payload["n_kv_heads"] == 5 and summary.startswith("n_kv_heads=4 does not divide the 25 heads of gpt2-xl")


def test_the_app_keeps_little_per_session_and_no_file_it_does_not_need(demo):
    from core.ui.app import launch_options

    options = launch_options()
    assert options["state_session_capacity"] <= 256 and options["max_file_size"] <= 16_384
    assert demo.delete_cache is not None and demo.state_session_capacity <= 256


def test_every_tab_shows_its_events_progress_on_one_component(demo):
    """Gradio's page walks the loading status of every component an event showed progress on, at every
    event: one per tab keeps a click on the Attention tab fast after a student has used every tab."""
    config = demo.get_config_file()
    shown_on = {tuple(d["show_progress_on"] or d["outputs"]) for d in config["dependencies"] if d.get("backend_fn")}
    tabs = [c for c in config["components"] if c["type"] == "tabitem"]
    assert all(len(ids) == 1 for ids in shown_on) and len(shown_on) <= len(tabs), shown_on
