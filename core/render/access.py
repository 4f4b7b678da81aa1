"""The words a drawn view gives a screen reader and a keyboard (web/access.js fills them in the page).

Every view kind (heatmaps, the model view, charts) carries these in its `labels`, as templates the page fills
with a head's title, its tokens and its numbers: the name of each head, the caption of its table of numbers,
what an arrow key says about a cell. They are gettext msgids: the view's labels reach a page in its language
with the rest of the view's words. The cell's words hold no English, so "它 → 违约金: 0.98" reads the same
in every language but for its punctuation.
"""

from __future__ import annotations

from core.i18n import mark

LABELS = {
    "numbers": mark("Numbers"),  # the <details> under a head: open it for the table
    "table_caption": mark("{title}: {what}. Rows: {y}; columns: {x}."),
    "head_name": mark("{title}: {what}, {rows} rows by {cols} columns"),
    "keys_help": mark("Arrow keys move from cell to cell and say each one; Enter picks the row's token; "
                      "Esc closes the tooltip."),
    "cell": mark("{q} → {k}: {value}"),
    "cell_blocked": mark("{q} → {k}: blocked by the mask"),
    "blocked_cell": mark("blocked"),  # a table's cell the mask blocks
    "picked": mark("{q} picked: its row and column are lit in every head"),
    "headview_query": mark("Lines from {q}"),
}
