"""A teacher's lesson folder written as a careless or hostile author would (issue 31), built fresh in a test's folder.

`build(folder, other)` writes it and returns what must happen to each file: the lessons that load (their text full
of HTML, links and images aimed at `other`, a host that must never hear from a student's browser), and for every
file that must not, the words of its one sentence. `outside` files live next to the folder, never inside it.
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

FRONT = "---\nlesson: {name}\ntitle: {title}\nlanguage: en\n---\n"
SECRET = "SECRET-LINE-31"  # a line of a file outside the folder: never read, never quoted


def png(width: int = 4, height: int = 3, pad: int = 0) -> bytes:
    """A real PNG (a grey image); pad: that many more bytes in a private chunk (a PNG too big to show)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + (chunk(b"prVt", b"\x00" * pad) if pad else b"") + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def lesson(name: str, steps: str, title: str = "") -> str:
    return FRONT.format(name=name, title=title or name) + steps


def step(body: str, view: str = "view: heatmaps", title: str = "A step") -> str:
    return f"## {title}\n{view}\n\n{body}\n\n"


HOSTILE_STEPS = [  # (title, view lines, text): each step's text tries one way onto the page
    ("<b>Bold</b> title", "view: heatmaps",
     '<div style="position:fixed;inset:0;z-index:9999;background:red" id="overlay">OVERLAY</div>'),
    ("Escaped backticks", "view: heatmaps",
     "\\`<div style=\"position:fixed;inset:0\" id=\"overlay2\">X</div>\\` and `<b>code</b>` and ``<i>two</i>``"),
    ("A form", "view: heatmaps",
     '<form action="http://OTHER/form" method="get"><input name="q" value="x"><button id="send">Send</button></form>'),
    ("Media", "view: heatmaps",
     '<video autoplay muted src="http://OTHER/v.mp4"></video>\n\n<svg><image href="http://OTHER/s.png"/></svg>\n\n'
     '<iframe src="http://OTHER/frame"></iframe> <object data="http://OTHER/o"></object>'),
    ("Scripts", "view: heatmaps",
     '<script>alert(1)</script> <img src=x onerror="alert(2)"> <a href="javascript:alert(3)">js</a>\n\n'
     "[md js](javascript:alert(4)) [data](data:text/html,<script>alert(5)</script>)"),
    ("Links", "view: heatmaps",
     "[another host](http://OTHER/link) <http://OTHER/auto> [this lab](?lesson=chapter&step=2)\n\n"
     "<style>body { display: none }</style> <base href=\"http://OTHER/\"> <meta http-equiv=\"refresh\" "
     "content=\"0;url=http://OTHER/r\">"),
    ("An image of the folder", "view: heatmaps", "![a diagram](pics/ok.png \"the diagram\") and **bold**, *em*\n\n"
     "- a list\n- of two\n\n> a quote\n\n```\n<pre>code</pre>\n```"),
    ("The student's sentence", "view: trained\ncontrols: sentence", "Type a sentence: it is shown as typed."),
]

REFUSED = {  # file -> words its one sentence must hold (a file of the folder, refused before anything is shown)
    "outside.md": "outside the lesson's folder",
    "zero.md": "outside the lesson's folder",
    "pipe.md": "is a named pipe, not a file",
    "big.md": "more than the 1,000,000 bytes allowed",
    "latin1.md": "not UTF-8 text",
    "folder.md": "is a folder, not a file",
    "remote-image.md": "line 9: the image 'http://OTHER/x.png' is not in this lesson's folder",
    "data-image.md": "line 9: the image 'data:image/png;base64,",
    "up-image.md": "line 9: the image '../outside/pic.png' cannot be shown: this file is outside the lesson's folder",
    "ref-image.md": "line 9: the image 'http://OTHER/r.png' is not in this lesson's folder",
    "svg-image.md": "line 9: the image 'pics/a.svg' is not a PNG, JPEG, GIF or WebP file",
    "fake-image.md": "line 9: the image 'pics/fake.png' is not a PNG, JPEG, GIF or WebP file",
    "huge-image.md": "line 9: the image 'pics/huge.png' cannot be shown: this file is 2,100,",
    "chapter.md": "line 2: lesson 'chapter' is the name of a built-in lesson",
    "window0.md": "line 9: the variant sliding-window refuses these settings: option window=0 is too small",
    "windw.md": "line 9: the variant sliding-window refuses these settings: unknown option 'windw'",
    "nested.md": "line 9: the variant sliding-window refuses these settings: option window=a dict of 1 item has the wrong type",
    "heads.md": "line 8: the variant multi-head refuses these settings: n_heads=3 does not divide d_model=16",
    "kv-heads.md": "line 10: the variant gqa refuses these settings: n_kv_heads=3 does not divide n_heads=4",
    "panel.md": "line 8: panel=2 is past this chart's last panel; choose 0 to 1",
    "key.md": "line 8: view heatmaps does not read 'card'",
    "deep.md": "line 8: options is a JSON object",
    "steps.md": "a lesson has at most 500 steps; this is step 501",
}
LOADED = {"hostile", "tall", "fits"}
TALL_TEXT = "This sentence is long enough to fill most of one line of the step. " * 40


def build(folder: Path, other: str = "other.invalid:9") -> dict[str, str]:
    """Write the hostile folder (and its `outside` neighbour); `other`: host:port of the host nobody may reach.
    Returns REFUSED with `other` filled in."""
    folder.mkdir(parents=True, exist_ok=True)
    outside = folder.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.md").write_text(lesson("secret", step(SECRET, "view: nope")), encoding="utf-8")
    (outside / "pic.png").write_bytes(png())
    pics = folder / "pics"
    pics.mkdir(exist_ok=True)
    (pics / "ok.png").write_bytes(png(40, 30))
    (pics / "a.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    (pics / "fake.png").write_text("<html>not a png</html>")
    (pics / "huge.png").write_bytes(png(pad=2_100_000))

    text = "".join(step(body, view, title) for title, view, body in HOSTILE_STEPS).replace("OTHER", other)
    (folder / "hostile.md").write_text(lesson("hostile", text, "A hostile lesson"), encoding="utf-8")
    (folder / "tall.md").write_text(lesson("tall", step(TALL_TEXT, title="Too tall")), encoding="utf-8")
    (folder / "fits.md").write_text(lesson("fits", step("One short sentence.", title="Fits")), encoding="utf-8")

    os.symlink(outside / "secret.md", folder / "outside.md")
    os.symlink("/dev/zero", folder / "zero.md")
    os.mkfifo(folder / "pipe.md")
    (folder / "big.md").write_bytes(lesson("big", step("x")).encode() + b"y" * 5_000_000)
    (folder / "latin1.md").write_bytes(lesson("latin", step("caf\xe9")).encode("latin-1"))
    (folder / "folder.md").mkdir()

    def one(name: str, lines: str, text: str = "Look.", lesson_name: str | None = None) -> None:
        body = lesson(lesson_name or name.removesuffix(".md"), f"## A step\n{lines}\n\n{text}\n")
        (folder / name).write_text(body.replace("OTHER", other), encoding="utf-8")

    one("remote-image.md", "view: heatmaps", "![x](http://OTHER/x.png)")
    one("data-image.md", "view: heatmaps", "![x](data:image/png;base64,iVBORw0KGgo=)")
    one("up-image.md", "view: heatmaps", "![x](../outside/pic.png)")
    one("ref-image.md", "view: heatmaps", "![x][r]\n\n[r]: http://OTHER/r.png")
    one("svg-image.md", "view: heatmaps", "![x](pics/a.svg)")
    one("fake-image.md", "view: heatmaps", "![x](pics/fake.png)")
    one("huge-image.md", "view: heatmaps", "![x](pics/huge.png)")
    one("chapter.md", "view: heatmaps", lesson_name="chapter")
    one("window0.md", 'view: heatmaps\nvariant: sliding-window\noptions: {"window": 0}')
    one("windw.md", 'view: heatmaps\nvariant: sliding-window\noptions: {"windw": 2}')
    one("nested.md", 'view: heatmaps\nvariant: sliding-window\noptions: {"window": {"a": 1}}')
    one("heads.md", "view: heatmaps\nheads: 3")
    one("kv-heads.md", 'view: heatmaps\nvariant: gqa\nheads: 4\noptions: {"n_kv_heads": 3}')
    one("panel.md", "view: cost\npanel: 2")
    one("key.md", "view: heatmaps\ncard: zero-fill")
    one("deep.md", "view: heatmaps\noptions: " + "[" * 100_000)
    (folder / "steps.md").write_text(lesson("steps", "".join(step("s", title=f"S{i}") for i in range(501))),
                                     encoding="utf-8")
    return {file: words.replace("OTHER", other) for file, words in REFUSED.items()}
