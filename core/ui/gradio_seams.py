"""The one door: every Gradio (and uvicorn) internal the lab relies on, each with the documented behaviour it changes.

Gradio's documented knobs come first (`Blocks.queue(max_size=..., api_open=False)`, launch options, event
arguments; core/ui/app.py); what they cannot do is here, numbered, with why and what it measured:
  1-3, 6 (this module)   the queue: a store that keeps waiting sessions, a per-client share in fair order,
                          cancels that free a slot only when the work ends, the queue's door (404/429 sentences)
  4 (this module)        a new session builds no component config
  5 (server_seams)       uvicorn's header timeout and connection limits
  7-10 (blocks_seams)    one sentence per event in the page's language (Blocks' data hooks, and what they read
                          of BlockFunction and the session: check_inputs, unreadable); progress on one
                          output per tab (BlockFunction.show_progress_on); a bounded event history (the queue's
                          analytics); a queue slot lent while a request waits on a plugin (LocalContext,
                          EventQueue.current_concurrency)
install(demo) puts them in place (build_demo); tests/test_gradio_seams.py exercises each against the pinned Gradio
and fails naming the internal that moved. Nothing else in core/ names a Gradio internal. Issues #21, #26.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import re
from collections import Counter, OrderedDict
from copy import copy
from typing import Any
from urllib.parse import parse_qs

import gradio.state_holder
from fastapi import HTTPException
from gradio.queueing import Queue
from gradio.utils import LRUCache

from core.i18n import mark, speaking, t
from core.serve import clients
from core.serve.limits import answer, headers_of, language_of, said

from . import i18n
from .blocks_seams import (  # noqa: F401 - the one door: every seam is reached from here
    ANALYTICS_EVENTS,
    ANALYTICS_EVERY,
    LabBlocks,
    bound_analytics,
    check_inputs,
    cpu_group_now,
    field_names,
    progress_on_one_output,
    queue_lender,
    unreadable,
)
from .server_seams import (  # noqa: F401
    CONNECTIONS,
    HEADER_BYTES,
    HEADER_SECONDS,
    KEEP_ALIVE_SECONDS,
    HeaderTimeout,
    LabConfig,
    install_server,
)

_held: set[asyncio.Task] = set()  # shielded jobs still computing after their cancel (kept referenced)


# --- 1. The message store keeps every waiting session (gradio.queueing.Queue.pending_messages_per_session) ---
# Documented: a queued event is answered when its turn comes. Gradio keeps each session's messages in an LRU of
# 2,000 entries; a 2,001st session evicts one whose event is still queued, and the next send_message to it raises
# KeyError inside Queue.start_processing, which stops the queue for good ("Queue is stopped."). Here eviction skips
# sessions with an event waiting or running, and a message for a session whose reader left is dropped.

class WaitingKept(LRUCache):
    """Gradio's LRU of per-session message queues that never evicts a session with a pending event."""

    def __init__(self, queue: Queue, max_size: int = 2000) -> None:
        super().__init__(max_size)
        self.pending = queue.pending_event_ids_session  # session -> event ids not yet delivered

    def __setitem__(self, key, value) -> None:
        if key in self:
            self.move_to_end(key)
        elif len(self) >= self.max_size:
            idle = next((k for k in self if not self.pending.get(k)), None)  # the oldest with nothing pending
            if idle is not None:
                del self[idle]  # (none idle: grow; max_size and PER_CLIENT bound how far)
        OrderedDict.__setitem__(self, key, value)


def _tolerant_send(queue: Queue):
    original = queue.send_message

    def send_message(event, event_message) -> None:
        if event.alive and event.session_hash not in queue.pending_messages_per_session:
            return  # its reader is gone (the stream closed): nobody to tell, and no reason to stop the queue
        original(event, event_message)

    return send_message


# --- 2. Per-client share and fair order (Queue.push, Queue.get_events, Event.request) ---
# Documented: max_size bounds the whole queue. Nothing bounds one client: here a client (core.serve.clients) may
# have PER_CLIENT events waiting or running (429 past it), and in each concurrency group the next event is the
# oldest of the client with the fewest running there; a client never holds every slot of a group of 2 or more.

def client_of(event: Any) -> str:
    key = getattr(event, "lab_client", None)
    if key is None:
        key = event.lab_client = clients.key_of(getattr(event, "request", None))
    return key


def held(queue: Queue) -> Counter:
    """Events waiting or running per client."""
    counts = Counter(client_of(e) for q in queue.event_queue_per_concurrency_id.values() for e in q.queue)
    counts.update(client_of(e) for job in queue.active_jobs if job for e in job)
    return counts


def _capped_push(queue: Queue):
    original = queue.push

    async def push(body, request, username):
        key = clients.key_of(request)
        n = held(queue)[key]
        if n >= clients.PER_CLIENT:
            with speaking(i18n.locale_of(request)):
                raise HTTPException(status_code=429, detail=clients.busy(n))
        if clients.is_full(len(queue), queue.get_active_worker_count(), queue.max_size):
            with speaking(i18n.locale_of(request)):
                raise HTTPException(status_code=503, detail=t(clients.FULL))
        return await original(body, request, username)

    return push


def _fair_events(queue: Queue):
    original = queue.get_events

    def get_events():
        for cid, group in clients.in_any_order(list(queue.event_queue_per_concurrency_id.items())):
            if not group.queue or (group.concurrency_limit is not None
                                   and group.current_concurrency >= group.concurrency_limit):
                continue
            if any(e.fn.batch for e in group.queue):
                return original()
            running = Counter(client_of(e) for job in queue.active_jobs if job for e in job if e.concurrency_id == cid)
            pick = clients.next_of(group.queue, client_of, running, group.concurrency_limit)
            if pick is None:
                continue
            group.queue.remove(pick)
            return [pick], False, cid
        return None

    return get_events


# --- 3. A cancelled job keeps its slot until it ends (Queue.process_events, run by name in gradio.utils.cancel_tasks)
# Documented: /cancel stops an event. For a plain function Gradio cancels the asyncio task while the function goes
# on computing in its thread, and the queue starts the next event at once: 200 cancels = 100 threads, 9 GB. Here
# the job runs shielded: the cancel answers the client and silences the job, whose slot frees when it really ends.
# A generator (a training) is cancelled as Gradio does: it stops between steps (its worker is told to stop).

def _shielded(queue: Queue):
    original = queue.process_events

    async def process_events(events, batch, begin_time, fn):
        target = inspect.unwrap(fn.fn) if fn.fn is not None else None
        if target is None or inspect.isgeneratorfunction(target) or inspect.isasyncgenfunction(target):
            return await original(events, batch, begin_time, fn)
        job = asyncio.ensure_future(original(events, batch, begin_time, fn))
        _held.add(job)
        job.add_done_callback(_held.discard)
        try:
            return await asyncio.shield(job)
        except asyncio.CancelledError:
            for event in events:
                event.alive = False  # its answer goes nowhere; /cancel has told the client
            raise

    return process_events


def install_queue(queue: Queue) -> Queue:
    """The queue's seams (1-3); idempotent."""
    if getattr(queue, "lab_seams", False):
        return queue
    store = WaitingKept(queue, queue.pending_messages_per_session.max_size)
    store.update(queue.pending_messages_per_session)
    queue.pending_messages_per_session = store
    queue.send_message = _tolerant_send(queue)
    queue.push = _capped_push(queue)
    queue.get_events = _fair_events(queue)
    queue.process_events = _shielded(queue)
    queue.lab_seams = True
    return queue


# --- 4. A new session costs no config build (gradio.state_holder.SessionState) ---
# Documented: each session keeps its own copy of the components. SessionState.__init__ builds every component's
# config (~100 ms of the event loop for this app) for every new session, though only an updated component's is
# read. Here each is built when first read; `components` (a deep link's page) builds them all.

class _OnDemand(dict):
    def __init__(self, blocks_config: Any, keys: set[int]) -> None:
        super().__init__()
        self.blocks_config, self.keys_left = blocks_config, keys

    def __missing__(self, key: int) -> dict:
        if key not in self.keys_left:
            raise KeyError(key)
        self.keys_left.discard(key)
        value = self[key] = self.blocks_config.config_for_block(key, [], self.blocks_config.blocks[key])
        return value

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in self.keys_left

    def everything(self) -> _OnDemand:
        for key in list(self.keys_left):
            self[key]  # noqa: B018 - builds it
        return self


UPSTREAM_SESSION_FIELDS = {"blocks_config", "config_values", "state_data", "_state_ttl", "is_closed",
                           "STATE_TTL_WHEN_CLOSED"}


class LazySessionState(gradio.state_holder.SessionState):
    """Gradio's SessionState with each component's config built when first read."""

    def __init__(self, blocks: Any) -> None:  # the same fields as upstream (the seams test compares them)
        self.blocks_config = copy(blocks.default_config)
        self.config_values = _OnDemand(self.blocks_config, {k for k in self.blocks_config.blocks if k in blocks.blocks})
        self.state_data, self._state_ttl, self.is_closed = {}, {}, False
        self.STATE_TTL_WHEN_CLOSED = 1 if os.getenv("GRADIO_IS_E2E_TEST", None) else 3600

    @property
    def components(self):
        for config in self.config_values.everything().values():
            if config:
                yield config


def install_sessions() -> None:
    gradio.state_holder.SessionState = LazySessionState  # StateHolder.__getitem__ builds it by this name


def install(demo: Any) -> None:
    """Every seam, for an app whose queue is set (build_demo): the queue's, the sessions', the server's."""
    install_queue(demo._queue)
    bound_analytics(demo._queue)
    install_sessions()
    install_server()


# --- 6. The queue's door (Queue.pending_messages_per_session, .event_ids_to_events; the share of 2.) ---
# Documented: GET /gradio_api/queue/data and /gradio_api/call/<name>/<event_id> stream a pending answer. For an
# unknown session Gradio answers 200, then raises inside the stream (a traceback in the log per request): here a
# 404 sentence. And a visitor over its share is refused before FastAPI parses its body and Gradio builds its
# session (a 429 in ~0.2 ms instead of ~3 ms of the event loop: a refused flood costs the class little).

NO_ANSWER = mark("The lab has no answer waiting for this session or event; send the request again.")
_CALL_GET = re.compile(r"^/gradio_api/call/(?:v2/)?[^/]+/([^/]+)/?$")
_JOIN = re.compile(r"^/gradio_api/(?:call/(?:v2/)?[^/]+|queue/join)/?$")


class QueueDoor:
    """ASGI middleware: a 404 sentence for a stream nobody waits for, a 429 sentence for a visitor over its share."""

    def __init__(self, app: Any, blocks: Any) -> None:
        self.app, self.blocks = app, blocks

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope.get("method") == "GET" and not self._known(scope):
            await answer(send, 404, said(scope, NO_ANSWER))
            return
        if scope["type"] == "http" and scope.get("method") == "POST" and _JOIN.match(scope.get("path", "")):
            headers = headers_of(scope)
            n = held(self.blocks._queue)[clients.client_key((scope.get("client") or ("unknown",))[0], headers)]
            if n >= clients.PER_CLIENT:
                with speaking(language_of(headers)):
                    sentence = clients.busy(n)
                await answer(send, 429, sentence)
                return
        await self.app(scope, receive, send)

    def _known(self, scope: dict) -> bool:
        queue, path = self.blocks._queue, scope.get("path", "")
        if path.rstrip("/") == "/gradio_api/queue/data":
            session = parse_qs((scope.get("query_string") or b"").decode("latin-1")).get("session_hash", [""])[0]
            return session in queue.pending_messages_per_session
        match = _CALL_GET.match(path)
        if match is None:
            return True
        event = match.group(1)
        return (event in queue.event_ids_to_events or event in queue.pending_messages_per_session
                or any(event in ids for ids in queue.pending_event_ids_session.values()))
