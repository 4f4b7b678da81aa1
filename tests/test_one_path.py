"""One path per view (issue 36): every public endpoint published one documented way (gr.api or a visible control's
event), its names, parameters and outputs kept; one handler per trigger; the lab free of caches (core/serve keeps
them); the Attention tab's toggles painted by the page alone when it holds the scores."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The public contract (docs/app.md#the-api): each endpoint's parameters, in order, and how many outputs it returns.
PUBLIC = {
    "/attention": (["sentence", "variant", "causal", "scaled", "n_heads", "d_model", "seed", "options"], 5),
    "/causality": (["sentence", "position", "replacement", "causal", "variant"], 4),
    "/transfer": (["seed", "d_in", "d_out", "mistake"], 6),
    "/masking": (["sentence", "seed"], 4),
    "/dropout": (["sentence", "seed", "p"], 2),
    "/failure_modes": ([], 1),
    "/interventions": (["sentence", "mode"], 7),
    "/model_size": (["preset", "variant", "n_kv_heads", "window"], 5),
    "/next_words": (["sentence", "position", "temperature", "top_k", "seed", "model"], 3),
    "/trained_attention": (["sentence", "layer", "head"], 6),
    "/check_variant": (["name"], 2),
    "/reload_plugins": ([], 6),
    "/cost": (["max_T", "window"], 2),
    "/generate": (["sentence", "n_words", "temperature", "top_k", "seed", "use_cache", "model"], 3),
    "/model_attention": (["sentence", "model", "causal", "scaled", "ablate", "variant", "options"], 1),
    "/mask_experiment": (["steps", "seed"], 5),
    "/scale_experiment": (["steps", "seed"], 3),
}
# Each endpoint's defaults as a script sees them (the controls' first values where the function has none).
DEFAULTS = {
    "/attention": {"sentence": "The cat sat on the mat because it was tired", "variant": "multi-head", "causal": True,
                   "scaled": True, "n_heads": 2, "d_model": 16, "seed": 0, "options": "{}"},
    "/causality": {"sentence": "The cat sat on the mat because it was tired", "position": 3, "replacement": "dog",
                   "causal": True, "variant": "multi-head"},
    "/transfer": {"seed": 123, "d_in": 3, "d_out": 2, "mistake": "none"},
    "/masking": {"sentence": "The cat sat on the mat", "seed": 0},
    "/dropout": {"sentence": "The cat sat on the mat", "seed": 0, "p": 0.5},
    "/model_size": {"preset": "gpt2-small", "variant": "gqa", "n_kv_heads": 4, "window": 256},
}


def test_the_public_endpoints_keep_their_names_parameters_defaults_and_outputs(demo):
    api = demo.get_api_info()["named_endpoints"]
    got = {name: ([p["parameter_name"] for p in ep["parameters"]], len(ep["returns"])) for name, ep in api.items()}
    assert got == PUBLIC
    for name, defaults in DEFAULTS.items():
        assert {p["parameter_name"]: p["parameter_default"] for p in api[name]["parameters"]} == defaults, name


def test_no_hidden_button_publishes_an_endpoint(demo):
    """An endpoint is gr.api or a visible control's event: a hidden twin button is a second path to keep in step."""
    config = demo.get_config_file()
    components = {c["id"]: c for c in config["components"]}
    twins = []
    for dep in config["dependencies"]:
        if not dep.get("api_name") or dep.get("api_visibility") == "private":
            continue
        for target, _ in dep["targets"]:
            c = components.get(target, {})
            if c.get("type") == "button" and c.get("props", {}).get("visible") is False:
                twins.append(dep["api_name"])
    assert twins == []
    for path in (ROOT / "core" / "ui").glob("*.py"):  # (and no tab keeps one unwired, for later)
        assert "gr.Button(visible=False)" not in path.read_text(encoding="utf-8"), path.name


def _handlers(demo) -> Counter:
    """How many events each (component, trigger) starts, Gradio's own cancel events left out."""
    config = demo.get_config_file()
    components = {c["id"]: c for c in config["components"]}
    count: Counter = Counter()
    for dep in config["dependencies"]:
        if dep.get("cancels") and not dep.get("backend_fn") and not dep.get("js"):
            continue  # the event Gradio adds for `cancels=`
        for target, trigger in dep["targets"]:
            c = components.get(target, {})
            name = c.get("props", {}).get("elem_id") or f"{c.get('type')} {target}"
            count[(name, c.get("type"), trigger)] += 1
    return count


def test_each_control_starts_one_event(demo):
    """One handler per trigger: a control's change is one event (its follow-ups chained with .then), never two
    events racing over the same outputs. (A tab's select and the page's load are the app's own: core/ui/app.py
    fills every tab's first values in the page's language on them, beside the tab's own event.)"""
    several = {key: n for key, n in _handlers(demo).items() if n > 1 and key[1] not in ("tabitem", "form")
               and key[2] not in ("load", "then", "success")}
    assert several == {}
    attention = {key: n for key, n in _handlers(demo).items()
                 if key[0] in ("variant", "weights", "causal", "scaled", "sentence", "n_heads", "d_model", "seed")}
    assert attention and set(attention.values()) == {1}


LAB_CACHES_LEFT = {"tiny.py", "trained_view.py", "interventions.py", "pronoun.py"}  # issue 36: the shipped model's


def _caches(path: Path) -> list[str]:
    """The functools caches a module imports or names."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "functools":
            found += [a.name for a in node.names if a.name in ("lru_cache", "cache", "cached_property")]
        elif isinstance(node, ast.Attribute) and node.attr in ("lru_cache", "cache") and \
                isinstance(node.value, ast.Name) and node.value.id == "functools":
            found.append(node.attr)
    return found


def test_the_lab_keeps_no_cache():
    """core/lab is plain functions a notebook calls (docs/architecture.md): a cache belongs in core/serve. The
    shipped tiny model's loaders still keep theirs (LAB_CACHES_LEFT, to go): the list may only shrink."""
    cached = {p.name for p in (ROOT / "core" / "lab").glob("*.py") if _caches(p)}
    assert cached - LAB_CACHES_LEFT == set(), "a cache in core/lab: put it in core/serve"
    assert cached == LAB_CACHES_LEFT, "a module left LAB_CACHES_LEFT: take it off the list"
    for path in (ROOT / "core" / "ui").glob("*.py"):  # (the UI is wiring only: no cache either)
        assert _caches(path) == [], path.name


@pytest.mark.parametrize("title, boxes, server_calls", [
    (None, ("#causal", "#scaled"), 0),  # multi-head: the page holds its scores
    ("Causal linear attention (elu + 1 features)", ("#causal",), 1),  # no softmax (and no √d: that box is off)
])
@pytest.mark.browser
def test_a_toggle_of_a_view_the_page_redraws_asks_the_server_nothing(browser, app_url, title, boxes, server_calls):
    """The causal and √d toggles: the page repaints a view that holds its scores and sends nothing; a view the page
    cannot redo (a linear attention, no softmax) asks the server once per toggle."""
    from tests.pages import open_page, redrawn, stamp

    page = open_page(browser, app_url)
    if title is not None:
        old = stamp(page)
        page.locator("#variant input").click()
        page.get_by_role("option", name=title).click()
        redrawn(page, old)
    page.wait_for_timeout(500)  # (the variant's own events are done)
    calls = []
    page.on("request", lambda r: calls.append(r.url) if "/gradio_api/" in r.url and r.method == "POST" else None)
    for box in boxes:
        old = stamp(page)
        page.locator(f"{box} input[type=checkbox]").click()
        redrawn(page, old)
        page.wait_for_timeout(300)  # (any request the toggle makes is on its way by now)
    assert len(calls) == len(boxes) * server_calls, calls
    page.close()


def test_an_endpoints_values_are_checked_as_its_tabs_controls_check_them(client):
    """gr.api has no components: each value is checked by the control it stands for (core/ui/inputs.py), the same
    sentence a page's event gets."""
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match=r"^n_heads=9 is out of range; choose 1 to 8"):
        client.predict("a b", n_heads=9, api_name="/attention")  # the slider's range, not the lab's
    with pytest.raises(AppError, match=r"^d_in=9 is out of range; choose 1 to 8"):
        client.predict(123, 9, 2, "none", api_name="/transfer")
    with pytest.raises(AppError, match="causal"):
        client.predict("a b", causal="yes", api_name="/attention")
    assert client.predict("a b", api_name="/attention")[-1]["tokens"] == ["a", "b"]
