"""Frame-cached heatmaps: matplotlib draws the text once, each request only colours the cell pixels.

A heatmap figure is mostly text, and text is what costs in a draw. `core.heatmap` draws a figure once
per shape with an all-blank image, keeps its pixels here as a `Frame` (with the anchors where its
per-request text goes), and each request paints the cells into a copy with numpy (nearest-neighbour,
the same pixel -> cell mapping matplotlib's 'nearest' uses) and encodes it with PIL. Frames are
read-only and shared between threads; painting works on a copy.
"""

from __future__ import annotations

import base64
import io
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
from matplotlib.colors import Colormap, ListedColormap, Normalize
from PIL import Image

MAX_FRAMES = 96  # frames kept (one per length x titles x grid shape x label room) ...
MAX_FRAME_BYTES = 192 * 2**20  # ... and at most this many bytes of them (64 tokens x 4 heads is ~35 MB)


@dataclass(frozen=True)
class Frame:
    """A drawn figure without cell colours, and where each cell lands in its pixels."""

    rgb: np.ndarray  # (H, W, 3) uint8, read-only
    y0: int  # first pixel row of the image box
    x0: int  # first pixel column of the image box
    cell_row: np.ndarray  # (h_px,) canvas row shown at pixel row y0 + k
    cell_col: np.ndarray  # (w_px,) canvas column shown at pixel column x0 + k
    anchors: Mapping[str, np.ndarray] = field(default_factory=dict)  # name -> (..., 2) display pixels for text

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.rgb, self.cell_row, self.cell_col, *self.anchors.values()))


def index_cmap(n: int) -> ListedColormap:
    """n distinct colours, colour i = (i % 256, i // 256 % 256, i // 65536): white (255, 255, 255) is none of them."""
    i = np.arange(n)
    return ListedColormap(np.column_stack([i % 256, i // 256 % 256, i // 65536]) / 255.0)


def index_image(shape: tuple[int, int]) -> np.ndarray:
    """(h, w) values (flat cell index) + 0.5: drawn with index_cmap(h * w), vmin 0 and vmax h * w, each
    cell's colour encodes which cell it is, half a bin away from any rounding edge."""
    return np.arange(shape[0] * shape[1], dtype=float).reshape(shape) + 0.5


def decode_cells(rgba: np.ndarray, shape: tuple[int, int]) -> tuple[int, int, np.ndarray, np.ndarray]:
    """From a drawn index image (rgba (H, W, 4)): the image box's first pixel row and column, and the
    canvas row of every pixel row and the canvas column of every pixel column in it."""
    h, w = shape
    flat = np.ascontiguousarray(rgba, dtype=np.uint8).view("<u4")[..., 0] & 0xFFFFFF  # (H, W): r + g<<8 + b<<16
    valid = flat < h * w  # white background decodes to 2**24 - 1
    placed = []
    for axis, cell in ((0, flat // w), (1, flat % w)):
        line = int(np.argmax(valid.sum(axis=axis)))  # the pixel column (axis 0) / row (axis 1) crossing most cells
        inside = np.flatnonzero(valid[:, line] if axis == 0 else valid[line, :])
        start, stop = int(inside[0]), int(inside[-1]) + 1
        if len(inside) != stop - start:
            raise RuntimeError("the image box is not contiguous")
        placed.append((start, (cell[:, line] if axis == 0 else cell[line, :])[start:stop].copy()))
    (y0, cell_row), (x0, cell_col) = placed
    return y0, x0, cell_row, cell_col


def make_frame(rgb: np.ndarray, y0: int, x0: int, cell_row: np.ndarray, cell_col: np.ndarray,
               anchors: Mapping[str, np.ndarray] | None = None) -> Frame:
    rgb = np.ascontiguousarray(rgb[..., :3])  # (H, W, 3) uint8, our own copy
    anchors = MappingProxyType(dict(anchors or {}))
    for a in (rgb, cell_row, cell_col, *anchors.values()):
        a.flags.writeable = False
    return Frame(rgb, y0, x0, cell_row, cell_col, anchors)


def paint(frame: Frame, canvas: np.ndarray, cmap: Colormap, lo: float, hi: float) -> np.ndarray:
    """A copy of the frame with the finite cells of `canvas` (h, w) coloured; NaN/inf keep the frame (white)."""
    colours = cmap(Normalize(lo, hi)(canvas), bytes=True)[..., :3]  # (h, w, 3) uint8
    shown = np.isfinite(canvas)  # (h, w)
    out = frame.rgb.copy()
    box = out[frame.y0 : frame.y0 + len(frame.cell_row), frame.x0 : frame.x0 + len(frame.cell_col)]
    used_rows, used_cols = shown.any(axis=1), shown.any(axis=0)  # (h,), (w,)
    if not shown[np.ix_(used_rows, used_cols)].all():  # holes inside blocks: a masked copy (slower)
        ix = np.ix_(frame.cell_row, frame.cell_col)
        np.copyto(box, colours[ix], where=shown[ix][..., None])  # gaps keep the frame's pixels (titles live there)
        return out
    for r0, r1 in _runs(used_rows[frame.cell_row]):  # the blocks: whole rectangles, no mask needed
        rows = colours.take(frame.cell_row[r0:r1], axis=0)  # (r1-r0, w, 3)
        for c0, c1 in _runs(used_cols[frame.cell_col]):
            box[r0:r1, c0:c1] = rows.take(frame.cell_col[c0:c1], axis=1)
    return out


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) of each run of True in a 1-D bool array."""
    edges = np.flatnonzero(np.diff(np.concatenate([[False], flags, [False]]).astype(np.int8)))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


def png_data_url(rgb: np.ndarray, compress_level: int = 1) -> str:
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="png", compress_level=compress_level)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


class DrawnCache:
    """A thread-safe LRU of things drawn once and shared between request threads (frames, PNGs),
    bounded by count and by size (`size(item)`, bytes; a 64-token frame is tens of MB).

    Drawing happens outside the lock: two threads missing the same key each draw their own (no Figure
    is ever shared) and the second result simply replaces the first.
    """

    def __init__(self, max_items: int = MAX_FRAMES, max_bytes: int = MAX_FRAME_BYTES,
                 size: Callable[[Any], int] = lambda item: item.nbytes) -> None:
        self.max_items, self.max_bytes, self.size = max_items, max_bytes, size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: Hashable, draw: Callable[[], Any]) -> Any:
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return item
            self.misses += 1
        item = draw()
        with self._lock:
            self._items[key] = item
            self._items.move_to_end(key)
            while len(self._items) > 1 and (len(self._items) > self.max_items or self.nbytes > self.max_bytes):
                self._items.popitem(last=False)
        return item

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items

    @property
    def nbytes(self) -> int:
        return sum(self.size(item) for item in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.misses = 0
