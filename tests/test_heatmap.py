"""core.render.heatmap: attention heatmaps, stamped from a cached frame and text sprites, equal matplotlib's own drawing."""

import base64
import io

import numpy as np
from PIL import Image

from core.render import heatmap, plots, sprites


def png(url: str) -> Image.Image:
    assert url.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def test_heatmap_grid_is_a_png_that_depends_on_the_weights():
    tokens = ["The", "cat", "sat"]
    eye = np.eye(3)
    flat = np.full((3, 3), 1 / 3)
    a = heatmap.heatmap_grid([eye, flat], tokens, ["head 0", "head 1"])
    b = heatmap.heatmap_grid([eye, flat], tokens, ["head 0", "head 1"])
    c = heatmap.heatmap_grid([flat, flat], tokens, ["head 0", "head 1"])
    assert png(a).size[0] > 100 and png(a).size[1] > 100
    assert a == b  # deterministic: the view cache can hand back the same bytes
    assert a != c


def test_more_heads_make_a_bigger_figure_and_four_heads_are_a_square_grid():
    tokens = [str(i) for i in range(6)]
    one = png(heatmap.heatmap_grid([np.eye(6)], tokens, ["h"]))
    four = png(heatmap.heatmap_grid([np.eye(6)] * 4, tokens, list("abcd")))
    three = png(heatmap.heatmap_grid([np.eye(6)] * 3, tokens, list("abc")))
    assert four.size[0] > one.size[0] and four.size[1] > one.size[1]  # 2 x 2
    assert three.size[0] > four.size[0] and three.size[1] < four.size[1]  # 1 x 3


def test_hostile_tokens_draw_without_error():
    tokens = ["$", "$x^", "\\frac{", "<img src=x onerror=alert(1)>", "你", "👍🏽", "_"]
    url = heatmap.heatmap_grid([np.eye(len(tokens))], tokens, ["head 0"])
    assert png(url).size[0] > 0


def test_minus_infinity_cells_are_drawn_and_written():
    m = np.array([[0.0, -np.inf], [1.0, 2.0]])
    url = heatmap.heatmap_grid([m], ["a", "b"], ["masked"], vmin=None, vmax=None)
    assert png(url).size[0] > 0


def test_mask_image_depends_only_on_the_pattern_and_is_cached():
    tri = np.tril(np.ones((5, 5), dtype=bool))
    a = heatmap.mask_image(tri)
    assert heatmap.mask_image(tri.copy()) is a  # cached across sentences of the same length
    assert heatmap.mask_image(np.ones((5, 5), dtype=bool)) != a


def pixels(url: str) -> np.ndarray:
    return np.asarray(png(url).convert("RGB"))


def matplotlib_drawn(mats, tokens, titles, vmin=0.0, vmax=1.0, cmap="viridis", max_cols=4, annotate=False):
    """The same figure drawn wholly by matplotlib in one draw: the image, then every label, axis title
    and value as a Text artist at the place heatmap_grid stamps its sprite."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    T, gap = len(tokens), len(tokens) + 1
    rows, cols = heatmap.grid(len(mats), max_cols)
    canvas = np.full((rows * gap - 1, cols * gap - 1), np.nan)
    for idx, mat in enumerate(mats):
        r, c = divmod(idx, cols)
        canvas[r * gap : r * gap + T, c * gap : c * gap + T] = mat
    finite = canvas[np.isfinite(canvas)]
    lo = finite.min() if vmin is None else vmin
    hi = finite.max() if vmax is None else vmax
    layout = heatmap.Layout(T, tuple(titles), rows, cols, heatmap.margin(plots.labels(tokens), rows, cols))
    frame = heatmap._draw_frame(canvas.shape, layout)  # a fresh one: anchors only
    colours = plots.cmap_of(cmap).with_extremes(bad="white")
    fig, _ = heatmap.figure(np.where(np.isneginf(canvas), lo, canvas), colours, lo, hi, layout)
    texts = heatmap.label_texts(frame, tokens, "key (attended to)", "query (attending)")
    if annotate:
        texts += [t[:4] for t in heatmap.value_texts(frame, canvas, (lo + hi) / 2)]
    for text, style, x, y in texts:
        fig.add_artist(sprites.text_artist(text, style, x, y))
    agg = FigureCanvasAgg(fig)
    agg.draw()
    return np.asarray(agg.buffer_rgba())[..., :3].copy()


def causal_weights(rng, heads: int, T: int) -> list[np.ndarray]:
    m = np.tril(rng.random((heads, T, T)))
    return list(m / m.sum(-1, keepdims=True))


def test_frame_cached_heatmaps_match_matplotlib_pixel_for_pixel():
    rng = np.random.default_rng(0)
    # (16, 1), (10, 3) and (64, 1) are shapes where matplotlib's image box is not a whole number of pixels
    for T, heads, vmin, vmax, cmap in [(12, 4, 0.0, 1.0, "viridis"), (9, 1, None, None, "magma"),
                                       (10, 3, 0.0, 1.0, plots.MASK_CMAP), (16, 1, 0.0, 1.0, "viridis"),
                                       (17, 2, None, None, "viridis"), (64, 1, 0.0, None, "magma")]:
        tokens = [f"w{i}" for i in range(T)]
        mats = causal_weights(rng, heads, T)
        mats[0][0, 1] = -np.inf  # drawn at the low end
        mats[-1][T - 1, 0] = np.nan  # a hole: white, like the gaps
        titles = [f"head {h}" for h in range(heads)]
        fast = pixels(heatmap.heatmap_grid(mats, tokens, titles, vmin=vmin, vmax=vmax, cmap=cmap))
        assert np.array_equal(fast, matplotlib_drawn(mats, tokens, titles, vmin, vmax, cmap)), (T, heads)


def test_new_weights_repaint_the_cells_of_the_same_frame():
    heatmap.FRAMES.clear()
    rng = np.random.default_rng(1)
    tokens, titles = [f"t{i}" for i in range(12)], [f"head {h}" for h in range(4)]
    a = pixels(heatmap.heatmap_grid(causal_weights(rng, 4, 12), tokens, titles))
    b = pixels(heatmap.heatmap_grid(causal_weights(rng, 4, 12), tokens, titles))
    assert (heatmap.FRAMES.misses, heatmap.FRAMES.hits, len(heatmap.FRAMES)) == (1, 1, 1)  # drawn once, reused
    (frame,) = heatmap.FRAMES._items.values()
    assert not frame.rgb.flags.writeable  # shared between request threads: never painted in place
    y0, x0, h, w = frame.y0, frame.x0, len(frame.cell_row), len(frame.cell_col)
    differs = np.any(a != b, axis=-1)
    assert differs[y0 : y0 + h, x0 : x0 + w].sum() > 1000  # the cells changed ...
    differs[y0 : y0 + h, x0 : x0 + w] = False
    assert not differs.any()  # ... and nothing outside the image box (labels, titles) did
    assert np.array_equal(a[:y0], frame.rgb[:y0])  # above the cells: the frame as drawn
    heatmap.heatmap_grid(causal_weights(rng, 4, 12), tokens, ["other", "titles", "are a", "new frame"])
    heatmap.heatmap_grid(causal_weights(rng, 4, 13), [*tokens, "x"], titles)
    assert (heatmap.FRAMES.misses, len(heatmap.FRAMES)) == (3, 3)


def test_short_sentences_have_their_values_written_as_matplotlib_writes_them():
    tokens, titles = ["a", "b", "c"], ["h"]
    m = np.array([[1.0, -np.inf, -np.inf], [0.5, 0.5, -np.inf], [0.2, 0.3, 0.5]])
    written = pixels(heatmap.heatmap_grid([m], tokens, titles))
    assert not np.array_equal(written, matplotlib_drawn([m], tokens, titles))  # the numbers are drawn on top ...
    assert np.array_equal(written, matplotlib_drawn([m], tokens, titles, annotate=True))  # ... exactly like this
    rng = np.random.default_rng(5)
    for T, heads, vmin, vmax, cmap in [(8, 2, 0.0, 1.0, "viridis"), (5, 3, None, None, "magma")]:
        mats = causal_weights(rng, heads, T)
        mats[0][0, 1] = -np.inf
        toks, names = [f"w{i}" for i in range(T)], [f"head {h}" for h in range(heads)]
        fast = pixels(heatmap.heatmap_grid(mats, toks, names, vmin=vmin, vmax=vmax, cmap=cmap))
        assert np.array_equal(fast, matplotlib_drawn(mats, toks, names, vmin, vmax, cmap, annotate=True)), (T, heads)


def test_text_anchors_sit_in_the_middle_of_their_cells_rows_and_columns():
    tokens, titles = [f"t{i}" for i in range(6)], [f"head {h}" for h in range(4)]
    heatmap.heatmap_grid(causal_weights(np.random.default_rng(3), 4, 6), tokens, titles)
    frame = next(f for key, f in heatmap.FRAMES._items.items() if key.T == 6 and key.titles == tuple(titles))
    H = frame.rgb.shape[0]

    def span(cells: np.ndarray, start: int, k: int) -> tuple[float, float]:
        px = start + np.flatnonzero(cells == k)  # the pixel rows (or columns) that show canvas row (column) k
        return px.min(), px.max()

    for (i, j) in [(0, 0), (2, 5), (8, 9), (12, 12)]:  # head 0, head 1, head 2, head 3 cells
        x, y = frame.anchors["cells"][i, j]
        r0, r1 = span(frame.cell_row, frame.y0, i)
        c0, c1 = span(frame.cell_col, frame.x0, j)
        assert abs((H - y) - (r0 + r1 + 1) / 2) <= 1 and abs(x - (c0 + c1 + 1) / 2) <= 1
    for r in range(2):  # labels left of each block row: level with their row, left of the cells
        for i in range(6):
            x, y = frame.anchors["ylabels"][r, i]
            r0, r1 = span(frame.cell_row, frame.y0, r * 7 + i)
            assert abs((H - y) - (r0 + r1 + 1) / 2) <= 1 and x < frame.x0
    for c in range(2):  # ... and below each block column
        for j in range(6):
            x, y = frame.anchors["xlabels"][c, j]
            c0, c1 = span(frame.cell_col, frame.x0, c * 7 + j)
            assert abs(x - (c0 + c1 + 1) / 2) <= 1 and H - y > frame.y0 + len(frame.cell_row)


def test_many_heads_of_a_short_sentence_skip_the_numbers_to_stay_readable():
    tokens, titles = [str(i) for i in range(8)], [f"h{i}" for i in range(4)]  # 4 x 64 cells > 128
    mats = [np.random.default_rng(i).random((8, 8)) for i in range(4)]
    assert np.array_equal(pixels(heatmap.heatmap_grid(mats, tokens, titles)), matplotlib_drawn(mats, tokens, titles))


def test_frame_cache_is_bounded_by_count_and_bytes():
    from core.render import raster

    def frame(nbytes: int) -> raster.Frame:
        rgba = np.zeros((1, nbytes // 3, 4), dtype=np.uint8)
        return raster.make_frame(rgba, 0, 0, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))

    cache = raster.DrawnCache(max_items=3, max_bytes=10**9)
    for key in range(5):
        cache.get(key, lambda: frame(30))
    assert len(cache) == 3 and list(cache._items) == [2, 3, 4]
    cache.get(2, lambda: frame(30))  # a hit moves to the end: 3 goes next
    cache.get(5, lambda: frame(30))
    assert list(cache._items) == [4, 2, 5]
    by_bytes = raster.DrawnCache(max_items=100, max_bytes=100)
    for key in range(5):
        by_bytes.get(key, lambda: frame(30))
    assert len(by_bytes) == 3 and by_bytes.nbytes <= 100
    by_bytes.get("huge", lambda: frame(300))  # larger than the bound on its own: kept alone, for this request
    assert list(by_bytes._items) == ["huge"]


def test_concurrent_requests_draw_the_same_pixels():
    from concurrent.futures import ThreadPoolExecutor

    heatmap.FRAMES.clear()
    rng = np.random.default_rng(2)
    tokens, titles = [f"t{i}" for i in range(11)], [f"head {h}" for h in range(4)]
    jobs = [causal_weights(rng, 4, 11) for _ in range(8)]
    serial = [heatmap.heatmap_grid(m, tokens, titles) for m in jobs]
    heatmap.FRAMES.clear()
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda m: heatmap.heatmap_grid(m, tokens, titles), jobs)) == serial


def test_the_mask_image_carries_no_numbers():
    mask = np.tril(np.ones((4, 4), dtype=bool))
    drawn = pixels(heatmap.mask_image(mask, "mask"))
    plain = matplotlib_drawn([mask.astype(float)], [""] * 4, ["mask"], cmap=plots.MASK_CMAP)
    assert np.array_equal(drawn, plain)  # colours only: "1.00" / "0.00" in every cell would be noise
