"""The widths that keep a wide table (the Plugins tab's) inside its box at 1024 px."""

from core.render.tables import equal_widths


def test_equal_widths_share_the_whole_width_between_the_columns():
    for n in (1, 3, 5, 7):
        widths = equal_widths(n)
        assert len(widths) == n and len(set(widths)) == 1 and widths[0].endswith("%")
        assert abs(sum(float(w[:-1]) for w in widths) - 100) < 0.05
    assert equal_widths(0) == []
