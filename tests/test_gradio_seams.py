"""Each Gradio/uvicorn internal core/ui/gradio_seams.py touches, against the pinned Gradio: a failure names what moved."""

from __future__ import annotations

import asyncio
import inspect
import time
import types

import gradio
import gradio.http_server
import gradio.queueing
import gradio.state_holder
import gradio.utils
import pytest
from uvicorn.protocols.http.h11_impl import H11Protocol

from core.serve import clients
from core.ui import gradio_seams as seams


def test_the_internals_the_seams_use_are_where_they_were():
    q = gradio.queueing.Queue
    for name in ("send_message", "push", "get_events", "process_events", "get_active_worker_count", "start_processing"):
        assert hasattr(q, name), f"gradio.queueing.Queue.{name} moved"
    init = inspect.getsource(q.__init__)
    for name in ("pending_messages_per_session", "pending_event_ids_session", "event_queue_per_concurrency_id",
                 "event_ids_to_events", "active_jobs", "LRUCache(2000)"):
        assert name in init, f"gradio.queueing.Queue.__init__ no longer sets {name}"
    assert "self.process_events" in inspect.getsource(q.start_processing), \
        "gradio.queueing.Queue.start_processing no longer runs self.process_events"
    assert "event_queue.current_concurrency -= 1" in inspect.getsource(q.process_events), \
        "gradio.queueing.Queue.process_events no longer frees its slot in its own finally"
    assert "task.cancel()" in inspect.getsource(gradio.utils.cancel_tasks), "gradio.utils.cancel_tasks moved"
    assert issubclass(gradio.utils.LRUCache, dict), "gradio.utils.LRUCache moved"
    assert "SessionState(self.blocks)" in inspect.getsource(gradio.state_holder.StateHolder.__getitem__), \
        "gradio.state_holder.StateHolder.__getitem__ no longer builds SessionState by name"
    assert "uvicorn.Config(" in inspect.getsource(gradio.http_server.start_server), \
        "gradio.http_server.start_server no longer builds uvicorn.Config"
    for name in ("handle_events", "on_response_complete", "connection_made", "connection_lost"):
        assert hasattr(H11Protocol, name), f"uvicorn.protocols.http.h11_impl.H11Protocol.{name} moved"
    assert "self.cycle = RequestResponseCycle(" in inspect.getsource(H11Protocol.handle_events), \
        "uvicorn's H11Protocol.handle_events no longer starts self.cycle when a request's headers are in"


def test_the_lazy_session_keeps_upstreams_fields(demo):
    upstream = seams.LazySessionState.__mro__[1]  # gradio.state_holder.SessionState as Gradio ships it
    t0 = time.perf_counter()
    full = upstream(demo)
    built = time.perf_counter() - t0
    t0 = time.perf_counter()
    lazy = seams.LazySessionState(demo)
    cheap = time.perf_counter() - t0
    assert set(vars(full)) == seams.UPSTREAM_SESSION_FIELDS == set(vars(lazy)), \
        "gradio.state_holder.SessionState.__init__ sets other fields now"
    assert cheap < built / 5, (cheap, built)
    first = next(iter(full.config_values))
    assert lazy.config_values[first] == full.config_values[first]
    assert len(list(lazy.components)) == len(list(full.components))
    assert gradio.state_holder.SessionState is seams.LazySessionState  # installed by build_demo


class _Queue:
    """What the seams read of a gradio Queue."""

    def __init__(self, limit: int = 2) -> None:
        self.pending_event_ids_session: dict[str, set[str]] = {}
        self.group = types.SimpleNamespace(queue=[], concurrency_limit=limit, current_concurrency=0)
        self.event_queue_per_concurrency_id = {"cpu": self.group}
        self.active_jobs: list = [None] * 4
        self.max_size = 4 * clients.PER_CLIENT  # room for one client past its share

    def __len__(self) -> int:
        return len(self.group.queue)

    def get_active_worker_count(self) -> int:
        return sum(job is not None for job in self.active_jobs)

    async def push(self, body, request, username):
        return True, "id", "success"

    def get_events(self):
        raise AssertionError("not for unbatched events")


def _event(client: str, fn=None) -> types.SimpleNamespace:
    return types.SimpleNamespace(lab_client=client, concurrency_id="cpu", alive=True, session_hash=client,
                                 fn=fn or types.SimpleNamespace(batch=False))


def test_a_flood_past_the_message_store_keeps_waiting_sessions(demo):
    q = gradio.queueing.Queue(True, 40, 1, None, demo)
    fn = next(iter(demo.fns.values()))
    waiting = gradio.queueing.Event("waiting", fn, None, None)
    q.pending_messages_per_session = gradio.utils.LRUCache(3)  # Gradio's store, small: the bug of issue #26
    q.pending_messages_per_session["waiting"] = asyncio.Queue()
    q.pending_event_ids_session["waiting"] = {waiting._id}
    for i in range(3):
        q.pending_messages_per_session[f"later-{i}"] = asyncio.Queue()
    with pytest.raises(KeyError):  # upstream: the waiting session was evicted, send_message kills the queue
        q.send_message(waiting, gradio.queueing.ProcessStartsMessage())
    q = seams.install_queue(gradio.queueing.Queue(True, 40, 1, None, demo))
    q.pending_messages_per_session.max_size = 3
    q.pending_messages_per_session["waiting"] = asyncio.Queue()
    q.pending_event_ids_session["waiting"] = {waiting._id}
    for i in range(5):
        q.pending_messages_per_session[f"later-{i}"] = asyncio.Queue()
    assert "waiting" in q.pending_messages_per_session and len(q.pending_messages_per_session) == 3
    q.send_message(waiting, gradio.queueing.ProcessStartsMessage())  # delivered
    assert q.pending_messages_per_session["waiting"].qsize() == 1
    gone = gradio.queueing.Event("gone", fn, None, None)
    q.send_message(gone, gradio.queueing.ProcessStartsMessage())  # its reader left: dropped, no KeyError


def test_a_client_past_its_share_gets_a_429_sentence():
    q = _Queue()
    push = seams._capped_push(q)
    q.group.queue = [_event("10.0.0.9") for _ in range(clients.PER_CLIENT)]
    req = types.SimpleNamespace(client=types.SimpleNamespace(host="10.0.0.9"), headers={})
    with pytest.raises(Exception) as refused:
        asyncio.run(push(None, req, None))
    assert refused.value.status_code == 429 and refused.value.detail.count(".") == 1
    other = types.SimpleNamespace(client=types.SimpleNamespace(host="10.0.0.8"), headers={})
    assert asyncio.run(push(None, other, None))[0] is True


def test_the_next_event_is_the_least_served_clients_and_one_client_leaves_a_slot():
    q = _Queue(limit=2)
    get = seams._fair_events(q)
    hog = [_event("hog") for _ in range(5)]
    q.group.queue = [*hog, _event("student")]
    first = get()[0][0]
    assert first.lab_client == "hog"  # alone in line, it may start
    q.active_jobs[0] = [first]
    q.group.current_concurrency = 1
    assert get()[0][0].lab_client == "student"  # one hog running: the student goes before the hog's 4 others
    q.group.queue = [e for e in q.group.queue if e.lab_client == "hog"]
    assert get() is None  # the hog never takes the group's last slot


def test_a_cancelled_job_keeps_its_slot_until_its_thread_ends():
    import anyio.to_thread

    q, log = _Queue(), []

    async def process_events(events, batch, begin_time, fn):
        q.group.current_concurrency += 1
        try:
            await anyio.to_thread.run_sync(time.sleep, 0.4)
            log.append("computed")
        finally:
            q.group.current_concurrency -= 1

    q.process_events = process_events
    shielded = seams._shielded(q)

    def plain():
        return 1

    async def scenario():
        events = [_event("a")]
        task = asyncio.ensure_future(shielded(events, False, 0.0, types.SimpleNamespace(fn=plain)))
        await asyncio.sleep(0.1)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert task.cancelled() and not events[0].alive
        assert q.group.current_concurrency == 1, "the slot was freed while the job still computes"
        await asyncio.sleep(0.5)
        assert q.group.current_concurrency == 0 and log == ["computed"]

    asyncio.run(scenario())


def test_the_forwarded_address_counts_only_from_a_trusted_proxy(monkeypatch):
    monkeypatch.delenv("SPACE_ID", raising=False)
    monkeypatch.delenv("ATTENTION_LAB_TRUSTED_PROXY", raising=False)
    xff = {"x-forwarded-for": "1.2.3.4"}
    assert clients.client_key("127.0.0.1", xff) == "127.0.0.1"
    monkeypatch.setenv("ATTENTION_LAB_TRUSTED_PROXY", "127.0.0.1")
    assert clients.client_key("127.0.0.1", xff) == "1.2.3.4"
    assert clients.client_key("10.9.9.9", xff) == "10.9.9.9"  # another peer: its header is ignored
    assert clients.client_key("127.0.0.1", {"x-forwarded-for": "6.6.6.6, 1.2.3.4"}) == "1.2.3.4"  # the left is hearsay
    monkeypatch.delenv("ATTENTION_LAB_TRUSTED_PROXY")
    monkeypatch.setenv("SPACE_ID", "someone/attention-lab")
    assert clients.client_key("10.1.1.1", xff) == "1.2.3.4"  # on a Space the peer is the proxy


def test_the_training_rule_is_per_client_not_per_session(monkeypatch):
    from core.ui import experiments_tab

    monkeypatch.delenv("SPACE_ID", raising=False)
    monkeypatch.delenv("ATTENTION_LAB_TRUSTED_PROXY", raising=False)
    one = types.SimpleNamespace(client=types.SimpleNamespace(host="10.2.2.2"), headers={}, session_hash="s1")
    two = types.SimpleNamespace(client=types.SimpleNamespace(host="10.2.2.2"), headers={}, session_hash="s2")
    assert experiments_tab._session(one) == experiments_tab._session(two) == "10.2.2.2"


def test_the_server_gets_the_labs_uvicorn_settings():
    seams.install_server()
    config = gradio.http_server.uvicorn.Config(app=None, port=0)
    assert isinstance(config, seams.LabConfig) and config.http is seams.HeaderTimeout
    assert config.limit_concurrency == seams.CONNECTIONS and config.timeout_keep_alive == seams.KEEP_ALIVE_SECONDS
    import uvicorn

    assert uvicorn.Config is not seams.LabConfig  # only Gradio's start_server sees the lab's Config


def test_the_queue_door_refuses_a_visitor_over_its_share_before_gradio_reads_the_body(monkeypatch):
    monkeypatch.delenv("SPACE_ID", raising=False)
    monkeypatch.delenv("ATTENTION_LAB_TRUSTED_PROXY", raising=False)
    q, reached, sent = _Queue(), [], []
    q.group.queue = [_event("10.5.5.5") for _ in range(clients.PER_CLIENT)]
    q.event_ids_to_events, q.pending_messages_per_session = {}, {}

    async def app(scope, receive, send):
        reached.append(scope["path"])

    async def send(message):
        sent.append(message)

    door = seams.QueueDoor(app, types.SimpleNamespace(_queue=q))
    for host in ("10.5.5.5", "10.6.6.6"):
        asyncio.run(door({"type": "http", "method": "POST", "path": "/gradio_api/call/cost", "client": (host, 1),
                          "headers": []}, None, send))
    assert sent[0]["status"] == 429 and reached == ["/gradio_api/call/cost"]  # the other visitor goes in
