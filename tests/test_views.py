"""core.serve.views: each tab's view (numbers for the browser), cached on the request (a repeated click is cheap)."""

import pytest

from core import load_registry
from core.config import ConfigError
from core.lab.masking import sqrt_d_experiment
from core.lab.session import Lab
from core.serve import views


@pytest.fixture(scope="module")
def lab():
    return Lab(load_registry(entry_points=False))


def test_attention_view_is_cached_per_request(lab):
    a = views.attention(lab, "The cat sat", n_heads=2)
    assert views.attention(lab, "The cat sat", n_heads=2.0, d_model="16") is a  # same request, normalised
    b = views.attention(lab, "The cat sat", n_heads=2, causal=False)
    assert b is not a and b.heatmaps["stamp"] != a.heatmaps["stamp"] and b.mask != a.mask
    assert a.check == "every row sums to 1; weight above the diagonal: 0 in every row"
    assert a.payload["tokens"] == ["The", "cat", "sat"]
    assert views.attention_view.cache_info().maxsize is not None  # bounded: lru_cache(None) would grow all day


def test_attention_view_notes(lab):
    assert "n_heads is not used" in views.attention(lab, "a b", variant="single-head", n_heads=4).note
    assert "cut" in views.attention(lab, "w " * 100).note
    with pytest.raises(ConfigError):
        views.attention(lab, "")


@pytest.mark.floats
def test_causality_view(lab):
    v = views.causality(lab, "The cat sat on the mat", 2, "dog")
    assert views.causality(lab, "The cat sat on the mat", 2.0, "dog") is v
    assert v.payload["row_max_abs_diff"][:2] == [0.0, 0.0] and "byte-identical" in v.summary


def test_masking_view_quotes_the_experiment(lab):
    v = views.masking(lab, "The cat sat on the mat")
    exp = sqrt_d_experiment()
    assert f"{exp.max_weight['unscaled'][-1]:.2f}" in v.sqrt_d_summary
    assert "leaks" in v.three_summary and v.three["kind"] == "heatmaps" and v.sqrt_d["kind"] == "chart"
    unscaled = next(s for s in v.sqrt_d["panels"][0]["series"] if s["color"] == 1)  # the curve the summary quotes
    assert unscaled["y"] == list(exp.max_weight["unscaled"])


def test_causality_position_slider_follows_the_sentence():
    assert views.position_range("a b c d", 2) == (3, 2)
    assert views.position_range("a b", 7) == (1, 1)  # past the end: the last token
    assert views.position_range("我 爱 🎉", "x") == (2, 0)


def test_every_served_view_can_be_exported(lab, tmp_path):
    from core.serve import exports

    v = views.attention(lab, "The cat sat on the mat", n_heads=4)
    path = exports.png_file({"stamp": v.heatmaps["stamp"]}, folder=str(tmp_path))
    assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_unqueued_attention_views_compute_two_at_a_time(lab, monkeypatch):
    import threading
    import time

    from core.serve import slots

    running, most, calls, lock = [0], [0], [0], threading.Lock()
    real = views._attention_view

    def counted(lab, req):
        with lock:
            calls[0] += 1
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        try:
            return real(lab, req)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(views, "_attention_view", counted)
    threads = [threading.Thread(target=views.attention, args=(lab, f"slot test {i}")) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == slots.SLOTS == 2 and calls[0] == 6
    views.attention(lab, "slot test 0")  # cached: takes no slot and computes nothing
    assert calls[0] == 6


def test_a_view_draws_the_same_floats_whatever_else_the_server_runs():
    """torch rounds a matrix product differently on one thread than on two, and another request (a real model, the
    Cost tab) lowers the process's count while it runs: a view computed beside it must still be the same view, down
    to the stamp the page marks its drawing with (ci12's lesson walk met a twin of its step drawn beside a request)."""
    import torch

    from core.render import matrix

    before = torch.get_num_threads()
    drawn = []
    try:
        for n in (2, 1):
            torch.set_num_threads(n)  # (what the process has when the view's request arrives)
            lab = Lab(load_registry(entry_points=False))  # (a new lab: nothing cached)
            a = views.attention(lab, "The cat sat on the mat because it was tired")
            c = views.causality(lab, "The cat sat on the mat because it was tired", 9, "happy")
            drawn.append((matrix.drawn_stamp(a.heatmaps), c.bars["stamp"], c.dependency["stamp"]))
    finally:
        torch.set_num_threads(before)
    assert drawn[0] == drawn[1]
