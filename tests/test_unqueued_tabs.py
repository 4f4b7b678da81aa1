"""Issue 22: a visit to a lab tab leaves nothing in every later event's walk (a finished queued event's inputs stay
in Gradio's page-side loading-status walk, docs/app.md): the events a tab's opening runs skip the queue."""

from __future__ import annotations

import gradio as gr

TABS = ("step_tab", "causality_tab", "transfer_tab", "masking_tab", "chapter_tab", "model_tab", "generate_tab")
ENDPOINTS = ("causality", "transfer", "masking", "model_size", "next_words", "interventions", "failure_modes")


def module_of(fn) -> str:
    f = fn.fn
    while hasattr(f, "__wrapped__"):
        f = f.__wrapped__
    return getattr(f, "__module__", "") or ""


def test_opening_a_lab_tab_runs_no_queued_event_with_inputs(demo):
    tabs = {b._id for b in demo.blocks.values() if isinstance(b, gr.Tab)}
    fns = list(demo.fns.values())
    by_id = {fn._id: fn for fn in fns}
    opened = {fn._id for fn in fns if any(getattr(t[0], "_id", t[0]) in tabs and t[1] == "select" for t in fn.targets)}
    grown = True
    while grown:  # and every event chained after one of them (.then)
        more = {fn._id for fn in fns if fn.trigger_after in opened} - opened
        opened |= more
        grown = bool(more)
    ours = [by_id[i] for i in opened if by_id[i].fn is not None and module_of(by_id[i]).split(".")[-1] in TABS]
    assert len(ours) >= 8
    queued = [(module_of(fn), fn.name) for fn in ours if fn.queue is not False and fn.inputs]
    assert queued == []


def test_the_public_endpoints_stay_queued(demo):
    """Scripts keep their names, parameters and the queue's bounds (issue 26): each has its own queued trigger."""
    named = {fn.api_name: fn for fn in demo.fns.values() if fn.api_name}
    for name in ENDPOINTS:
        assert name in named and named[name].queue is not False, name
        assert named[name].concurrency_id is not None, name


def test_a_mistake_in_an_unqueued_view_is_said_in_its_problem_box(demo):
    """An event that skips the queue cannot show a toast: its last output (the tab's problem box) gets the sentence
    and the views keep their last drawing."""
    page = [fn for fn in demo.fns.values() if fn.queue is False and fn.fn is not None
            and module_of(fn).endswith("causality_tab") and fn.name == "draw"]
    assert page and page[0].outputs[-1].elem_id == "causality-problem"
    *kept, said = page[0].fn("   ", 3, "dog", True, "multi-head")
    assert len(kept) == 4 and all(k == gr.skip() for k in kept)  # the bars, map, summary and JSON stay as drawn
    assert said and "\n" not in said and "Traceback" not in said and len(said) <= 200
