"""The handout's steps reach the page as trees of the Markdown renderer's own elements (core.render.lesson_html.tree):
a lesson file's HTML stays text there too, and every step of a lesson is in it, with its view and its check."""

from __future__ import annotations

from core.render.lesson_html import ALLOWED, step_html, tree


def walk(node):
    if isinstance(node, str):
        return
    yield node
    for child in node[2:]:
        yield from walk(child)


def test_a_steps_html_becomes_a_tree_of_allowed_elements_and_typed_html_stays_text():
    made = step_html("Title <b>", "Some **bold**, `<script>x</script>` and <div onclick=1>raw</div>\n\n- a\n- b")
    root = tree(made)
    nodes = list(walk(root))
    assert all(n[0] in ALLOWED or n is root for n in nodes)
    assert all(set(n[1]) <= set(ALLOWED.get(n[0], ())) for n in nodes if n is not root)
    tags = [n[0] for n in nodes]
    assert tags.count("li") == 2 and "strong" in tags and "code" in tags and "script" not in tags and "div" not in tags[1:]
    h2 = next(n for n in nodes if n[0] == "h2")
    assert h2[2:] == ["Title <b>"]  # the heading's text as typed (a text node, never markup)
    text = "".join(c for n in nodes for c in n[2:] if isinstance(c, str))
    assert "<script>x</script>" in text and "<div onclick=1>raw</div>" in text


def test_the_handout_holds_every_step_with_its_title_view_and_check():
    from core.i18n import speaking
    from core.registry import load_registry
    from core.serve import lessons
    from core.serve.plugins import AppLab
    from core.ui.lesson_handout import handout

    registry = load_registry()
    lesson = lessons.load(registry).get("by-hand", "en")
    with speaking("en"):
        data = handout(AppLab(registry), lesson)
    assert data["kind"] == "handout" and len(data["steps"]) == len(lesson.steps)
    for k, (page, step) in enumerate(zip(data["steps"], lesson.steps, strict=True), start=1):
        h2 = next(n for n in walk(page["text"]) if n[0] == "h2")
        assert h2[2:] == [step.title]
        assert page["head"].endswith(f"step {k} of {len(lesson.steps)}")
        assert page["view"] is None or page["view"].get("window_reserve") == 0  # drawn for paper, not a window
        if page["view"] is not None and page["view"].get("kind") == "heatmaps":  # paper has no thumbnail to click:
            assert not page["view"]["focus"] and not page["view"].get("side_by_side")  # every map drawn, none focused
    assert sum(page["view"] is not None for page in data["steps"]) >= len(lesson.steps) - 1
