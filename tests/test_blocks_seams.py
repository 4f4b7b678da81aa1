"""The event and app-level internals core/ui/gradio_seams.py touches (blocks_seams: LabBlocks, progress, analytics,
the slot lender, static paths), against the pinned Gradio: a failure names what moved."""

from __future__ import annotations

import inspect
import types

from core.serve import clients
from core.ui import gradio_seams as seams


def test_the_event_internals_the_seams_use_are_where_they_were():
    import gradio.blocks
    import gradio.context

    for name in ("preprocess_data", "postprocess_data", "process_api"):
        assert hasattr(gradio.blocks.Blocks, name), f"gradio.blocks.Blocks.{name} moved"
    assert "self.preprocess_data(" in inspect.getsource(gradio.blocks.Blocks.process_api), \
        "gradio.blocks.Blocks.process_api no longer calls self.preprocess_data"
    assert "self.postprocess_data(" in inspect.getsource(gradio.blocks.Blocks.process_api), \
        "gradio.blocks.Blocks.process_api no longer calls self.postprocess_data"
    with gradio.Blocks() as blocks:
        gradio.Button().click(lambda: None)
    assert all(isinstance(fn, gradio.blocks.BlockFunction) for fn in blocks.fns.values()), \
        "gradio.blocks.Blocks.fns (the events, read by progress_on_one_output and the tests) moved"
    fields = inspect.signature(gradio.blocks.BlockFunction).parameters
    for name in ("show_progress_on", "inputs", "outputs", "component_prop_inputs", "fn"):
        assert name in fields, f"gradio.blocks.BlockFunction.{name} moved"
    assert "self.input_parameter_names" in inspect.getsource(gradio.blocks.BlockFunction.__init__), \
        "gradio.blocks.BlockFunction.input_parameter_names moved"
    assert "_id" in vars(gradio.Textbox()) and hasattr(gradio.State(), "stateful"), "gradio.blocks.Block._id moved"
    assert "at index {index}" in inspect.getsource(gradio.blocks.Blocks._format_processing_error), \
        "gradio.blocks.Blocks._format_processing_error no longer names the input's index"
    assert "state[block._id]" in inspect.getsource(gradio.blocks.Blocks.preprocess_data), \
        "gradio.blocks.Blocks.preprocess_data no longer reads a session's copy by block._id"
    assert isinstance(gradio.context.LocalContext.blocks, __import__("contextvars").ContextVar), \
        "gradio.context.LocalContext.blocks moved"
    init = inspect.getsource(gradio.queueing.Queue.__init__)
    for name in ("self.ANALYTICS_MAX_EVENTS", "self.ANAYLTICS_CACHE_FREQUENCY"):
        assert name in init, f"gradio.queueing.Queue.{name.split('.')[1]} moved"
    assert "current_concurrency" in inspect.getsource(gradio.queueing.EventQueue), \
        "gradio.queueing.EventQueue.current_concurrency moved"
    assert "_StaticFiles.all_paths" in inspect.getsource(gradio.utils.set_static_paths), \
        "gradio.set_static_paths no longer keeps its paths in gradio.data_classes._StaticFiles.all_paths"


def test_the_apps_queue_is_bounded_with_every_seam_and_a_short_history(demo):
    queue = demo._queue  # Gradio's queue, made by demo.queue() (documented: max_size)
    assert queue.max_size == clients.QUEUED_MAX and getattr(queue, "lab_seams", False)
    # Gradio's default re-summarises up to 10,000 past events with pandas after every event (~20 ms at
    # 10,000 on this machine): a per-click cost that grows all day. The app bounds both.
    assert queue.ANALYTICS_MAX_EVENTS <= seams.ANALYTICS_EVENTS and queue.ANAYLTICS_CACHE_FREQUENCY >= 100


def test_a_bug_in_an_event_is_one_apology_and_a_mistake_its_sentence(demo):
    from core.config import ConfigError
    from core.ui import common

    assert common.sentence_of(ConfigError("n_heads=3 does not divide d_model=16"), "t").startswith("n_heads=3")
    assert common.sentence_of(RuntimeError("torch internals"), "t") == common.APOLOGY
    assert isinstance(demo, seams.LabBlocks)


def test_a_waiting_request_lends_the_cpu_group_it_runs_in():
    import gradio.context

    group = types.SimpleNamespace(current_concurrency=2)
    app = types.SimpleNamespace(_queue=types.SimpleNamespace(event_queue_per_concurrency_id={"lab-cpu": group}))
    token = gradio.context.LocalContext.blocks.set(app)
    try:
        assert seams.cpu_group_now() is group
        with seams.queue_lender(seams.cpu_group_now, lambda fn: fn())():
            assert group.current_concurrency == 1
        assert group.current_concurrency == 2
    finally:
        gradio.context.LocalContext.blocks.reset(token)
    assert seams.cpu_group_now() is None


def test_the_apps_trace_is_served_from_where_it_was_written():
    from gradio.utils import get_upload_folder, is_in_or_equal

    from core.lab.session import Lab, make_request
    from core.registry import load_registry
    from core.serve.exports import trace_file

    path = trace_file(Lab(load_registry(entry_points=False)).run(make_request("served in place")))
    assert is_in_or_equal(path, get_upload_folder()), "gradio.utils.get_upload_folder moved: files are copied"
