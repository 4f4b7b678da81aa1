"""core.render.sprites: a stamped text is byte for byte what matplotlib draws at the same whole-pixel anchor."""

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from core.render import sprites

W, H = 160, 90  # px, at dpi 80: 2 x 1.125 inches


def drawn_by_matplotlib(items, bg=(255, 255, 255)) -> np.ndarray:
    """Texts as Text artists on a figure of (H, W) pixels filled with bg, in one draw."""
    fig = Figure(figsize=(W / 80, H / 80), dpi=80, facecolor=np.array(bg) / 255)
    for text, style, x, y in items:
        fig.add_artist(sprites.text_artist(text, style, x, y))
    agg = FigureCanvasAgg(fig)
    agg.draw()
    return np.asarray(agg.buffer_rgba())[..., :3].copy()


def stamped(items, bg=(255, 255, 255)) -> np.ndarray:
    out = np.empty((H, W, 3), np.uint8)
    out[:] = bg
    for text, style, x, y in items:
        sprites.stamp(out, text, style, x, y, bg=bg)
    return out


STYLES = [
    sprites.Style(8, ha="right", va="center"),
    sprites.Style(8, ha="center", va="top", rotation=90),
    sprites.Style(6.5, color="white"),
    sprites.Style(9, ha="left", va="bottom", color="#d62728"),
]


@pytest.mark.parametrize("style", STYLES, ids=lambda s: f"{s.ha}-{s.va}-{s.rotation:g}-{s.color}")
def test_a_stamped_text_is_the_text_matplotlib_draws_there(style):
    bg = (68, 1, 84) if style.color == "white" else (255, 255, 255)  # white numbers sit on dark cells
    items = [("0.25", style, 80, 45), ("11 attend", style, 37, 61), ("-∞", style, 120, 20)]
    assert np.array_equal(stamped(items, bg), drawn_by_matplotlib(items, bg))


def test_texts_running_off_the_canvas_are_clipped_like_matplotlib_clips_them():
    style = STYLES[0]
    items = [("a long label running off the left", style, 30, 45), ("top", STYLES[1], 150, 2),
             ("bottom", STYLES[3], 5, -3), ("far away", style, 5000, 5000)]
    assert np.array_equal(stamped(items), drawn_by_matplotlib(items))


def test_the_same_text_is_drawn_once_and_reused_anywhere():
    style = sprites.Style(8, ha="right", va="center")
    first = sprites.sprite("reused", style, sprites.WHITE)
    assert sprites.sprite("reused", style, sprites.WHITE) is first
    assert not first.rgb.flags.writeable and not first.ink.flags.writeable  # shared by request threads


def test_a_text_larger_than_its_guessed_canvas_is_measured_and_drawn_whole(monkeypatch):
    style, text = sprites.Style(8, ha="right", va="center"), "a text too long for its canvas"
    real = sprites._draw
    assert real(text, style, sprites.WHITE, 40, 30, 20, 15) is None  # the ink reaches the edge: refused
    roomy = real(text, style, sprites.WHITE, 600, 60, 300, 30)
    monkeypatch.setattr(sprites, "_draw", lambda *a, exact=False: real(*a, exact=True) if exact else None)
    measured = sprites.sprite.__wrapped__(text, style, sprites.WHITE)  # every guess refused: measured
    assert np.array_equal(measured.rgb, roomy.rgb) and (measured.dx, measured.dy) == (roomy.dx, roomy.dy)
    assert roomy.dx < -100  # all of it, left of its right-aligned anchor


def test_an_empty_or_blank_text_stamps_nothing():
    out = np.full((H, W, 3), 255, np.uint8)
    sprites.stamp(out, "", STYLES[0], 50, 50)
    sprites.stamp(out, "   ", STYLES[0], 50, 50)
    assert (out == 255).all()
