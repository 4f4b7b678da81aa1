"""CPU slots for the work that skips Gradio's queue: at most SLOTS computations at once, the rest wait in turn.

The Attention tab's own events are not queued (a queued event costs two more round trips than the
work itself), so the queue's concurrency group cannot bound them; this does, with the same size
(one per core of the 2-core machine the app targets). Cached results never take a slot.
"""

from __future__ import annotations

import threading

SLOTS = 2
CPU = threading.BoundedSemaphore(SLOTS)
