"""The whole app in the reader's language: static text as gr.I18n keys, every event's output translated on its way out."""

from __future__ import annotations

from typing import Any

import gradio as gr

from . import i18n

# What a person reads in a drawn view's dict; tokens, numbers and ids are never translated.
_VIEW_SKIP = {"rows", "cols", "tokens", "stamp", "kind", "values", "blocked", "extra", "scale", "stops", "f32", "u8",
              "shape", "x", "y", "selected", "head_colors", "color", "dash", "swatch", "labels_rows",
              "softmax"}  # (the raw scores, masks and control selectors of a view the page redraws itself)
_UPDATE_TEXT = ("value", "label", "info", "placeholder")
# Keys that hold data in one place and words in another: a chart's "x" is its numbers, a heatmap's labels["x"]
# is an axis title, a chart panel's "x" an axis {"label": ...}, labels["blocked"] a legend's words.
_VIEW_WORDS_OR_DATA = {"x", "y", "scale", "blocked"}


def localize(demo: gr.Blocks, computed: Any = ()) -> set[str]:
    """Replace every static English text of demo's blocks by its translation key; returns the texts (for the catalogue).
    `computed`: blocks whose value a tab computes again in the page's language (AppContext.first_values): not keyed."""
    texts: set[str] = set()
    computed = {id(block) for block in computed}

    def keyed(text: Any) -> Any:
        new = i18n.static(text)
        if new is not text:
            texts.add(text)
        return new

    for block in demo.blocks.values():
        for attr in ("label", "info", "placeholder"):
            if isinstance(getattr(block, attr, None), str):
                setattr(block, attr, keyed(getattr(block, attr)))
        if "al-example" in (block.elem_classes or []):
            continue  # example sentences (a button, a dropdown's choices): text the model reads, in its own language
        if isinstance(block, (gr.Markdown, gr.Button)) and isinstance(block.value, str) and id(block) not in computed:
            block.value = keyed(block.value)  # (a DownloadButton is a Button: its value is a file, never text)
        if isinstance(block, (gr.Dropdown, gr.Radio)) and block.choices:  # a name shown as itself stays a name
            block.choices = [(label if label == value and i18n.is_name(label) else keyed(label), value)
                             for label, value in block.choices]
    return texts


def translated(block: Any, value: Any) -> Any:
    """One event output in the request's language (unchanged in English, and for JSON, files and inputs)."""
    if i18n.current() == "en" or value is None:
        return value
    if isinstance(block, (gr.JSON, gr.File, gr.DownloadButton, gr.State, gr.Code)):
        return value  # the API's numbers and names stay as documented; code (and what torch says) as it is
    if isinstance(block, gr.Textbox) and block.interactive is not False:
        return value  # what a person typed (or an options box an event writes) is theirs
    if isinstance(value, dict) and value.get("__type__") == "update":
        return {k: (translated(block, v) if k in _UPDATE_TEXT and not (k == "value" and _choosing(block)) else v)
                for k, v in value.items()}
    if _choosing(block):
        return value  # a choice's value is a code ("trained tiny model"): its label is what is translated
    if isinstance(block, gr.Dataframe) and isinstance(value, list) and isinstance(block.headers, list):
        return {"headers": _walk(list(block.headers)), "data": _walk(value)}  # the table's static headers too
    return _walk(value)


def _choosing(block: Any) -> bool:
    """A component whose value is one of its choices (translating it would match none of them)."""
    return isinstance(block, (gr.Radio, gr.Dropdown, gr.CheckboxGroup))


def _walk(value: Any) -> Any:
    if isinstance(value, str):
        return i18n.tr(value)
    if isinstance(value, dict):
        if value.get("__type__"):
            return value
        return {k: (_walk(v) if k not in _VIEW_SKIP or (k in _VIEW_WORDS_OR_DATA and isinstance(v, (str, dict)))
                    else v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_walk(v) for v in value)
    if hasattr(value, "columns") and hasattr(value, "map"):  # a pandas DataFrame: its headers and text cells
        frame = value.map(lambda v: i18n.tr(v) if isinstance(v, str) else v)
        frame.columns = [i18n.tr(c) if isinstance(c, str) else c for c in frame.columns]
        return frame
    return value


# What a page in another language runs to learn it, when it first shows a tab (<html lang> is Gradio's): its primary
# language ("es" for es-MX; zh-CN for any Chinese), so any language the catalogues hold gets the tabs' first values.
PAGE_LANG_JS = """() => { const lang = (document.documentElement.lang || navigator.language || "en").toLowerCase();
  return lang.startsWith("zh") ? "zh-CN" : lang.split("-")[0]; }"""


def first_values_by_tab(tabs: list[gr.Tab]) -> list[tuple[gr.Tab, list[Any], list[Any]]]:
    """Each tab with outputs whose first value is server text (checks, notes, tables, drawn views), and those
    values, so a page in another language can have them translated when it first shows the tab."""
    return [(tab, *found) for tab in tabs if (found := first_values(inside(tab)))[0]]


def inside(block: Any) -> list[Any]:
    """A block and everything laid out in it."""
    return [block, *(b for child in getattr(block, "children", []) for b in inside(child))]


def first_values(blocks_in: list[Any]) -> tuple[list[Any], list[Any]]:
    """Of these blocks, the outputs whose first value is server text, and those values."""
    blocks, values = [], []
    for block in blocks_in:
        if isinstance(block, (gr.JSON, gr.File, gr.DownloadButton, gr.State, gr.Markdown, gr.Button)):
            continue
        value = getattr(block, "value", None)
        if isinstance(block, gr.Textbox) and (block.interactive is not False or not value):
            continue
        if isinstance(block, gr.Dataframe) or (isinstance(block, gr.HTML) and isinstance(value, dict)) or (
                isinstance(block, gr.Textbox) and isinstance(value, str)):
            blocks.append(block)
            values.append(value)
    return blocks, values
