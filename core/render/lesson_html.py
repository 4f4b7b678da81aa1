"""A lesson step's Markdown -> the HTML the page shows, made by markdown-it-py alone (raw HTML off).

Nothing from a lesson file becomes markup except what the renderer makes from plain Markdown: paragraphs, headings,
emphasis, code, lists, quotes, rules, links and images. Two rules of its own: a link to another host opens apart
(target="_blank", rel="noopener noreferrer": it sends no referrer and cannot reach back into the lab), and an image
is the app's own address for a file of the lesson's folder (core.serve.lesson_images), never the address written in
the file; an image without one (no lesson the parser passed has any) is its alt text.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, lru_cache
from html.parser import HTMLParser
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml

from ..lab.lesson_markdown import new_parser

ALLOWED = {  # every element the renderer makes from Markdown, and the attributes it gives them (tests check the page)
    "p": (), "h1": (), "h2": (), "h3": (), "h4": (), "h5": (), "h6": (), "em": (), "strong": (), "code": ("class",),
    "pre": (), "blockquote": (), "ul": (), "ol": ("start",), "li": (), "hr": (), "br": (),
    "a": ("href", "title", "rel", "target"), "img": ("src", "alt", "title"),
}
WRAPPER = "al-lesson-body"  # the one element around the renderer's HTML


def _link_open(self, tokens, idx, options, env) -> str:
    """A link to another host: opened apart, with no referrer and no way back into the page."""
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    if urlsplit(href).scheme or href.startswith("//"):
        token.attrSet("target", "_blank")
        token.attrSet("rel", "noopener noreferrer")
    return self.renderToken(tokens, idx, options, env)


def _image(self, tokens, idx, options, env) -> str:
    """An image as the app serves it (env["images"]: src -> the app's address); without one, its alt text."""
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    url = (env.get("images") or {}).get(str(token.attrGet("src") or ""))
    if url is None:
        return escapeHtml(alt)
    token.attrs = {"src": url, "alt": alt, **({"title": token.attrGet("title")} if token.attrGet("title") else {})}
    return self.renderToken(tokens, idx, options, env)


@cache
def renderer() -> MarkdownIt:
    md = new_parser()
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("image", _image)
    return md


@lru_cache(maxsize=1024)
def _html(title: str, text: str, images: tuple[tuple[str, str], ...]) -> str:
    env = {"images": dict(images)}
    body = renderer().render(f"## {title}", env) + renderer().render(text, env)
    return f'<div class="{WRAPPER}">{body}</div>'


def step_html(title: str, text: str, images: Mapping[str, str] | None = None) -> str:
    """A step's title (a level-2 heading) and text as HTML; images: each src the text writes -> its address."""
    return _html(title, text, tuple(sorted((images or {}).items())))


class _Tree(HTMLParser):
    """The renderer's HTML as nested lists, [tag, {attribute: value}, child, ...] (text as str), kept to ALLOWED."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root: list = ["div", {}]
        self.open: list[list] = [self.root]

    def handle_starttag(self, tag, attrs) -> None:
        if tag not in ALLOWED:
            return
        node = [tag, {k: v or "" for k, v in attrs if k in ALLOWED[tag]}]
        self.open[-1].append(node)
        if tag not in ("br", "hr", "img"):
            self.open.append(node)

    def handle_endtag(self, tag) -> None:
        if len(self.open) > 1 and self.open[-1][0] == tag:
            self.open.pop()

    def handle_data(self, data) -> None:
        self.open[-1].append(data)


def tree(made: str) -> list:
    """HTML this module made, as a tree a page builds with createElement and textContent (the handout's steps: no
    script turns a string into markup); only ALLOWED elements and attributes are kept."""
    parser = _Tree()
    parser.feed(made)
    parser.close()
    return parser.root
