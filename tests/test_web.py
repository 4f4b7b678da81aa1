"""The browser side of the views: served by the app itself, never from a CDN, and never parsing data as HTML."""

import re

from core.render import web


def test_every_asset_exists_and_the_page_loads_them_from_the_app():
    head = web.head()
    for name in (*web.SCRIPTS, *web.STYLES):
        assert (web.ASSETS / name).stat().st_size > 0
        assert f"{web.URL_PREFIX}{web.ASSETS / name}?v={web.version()}" in head
    assert "http://" not in head and "https://" not in head and "//" not in head.replace("://", "")


def test_no_asset_fetches_anything_from_elsewhere():
    for path in web.ASSETS.iterdir():
        text = path.read_text(encoding="utf-8").replace('"http://www.w3.org/2000/svg"', "")  # a name, not a URL
        if path.name == "classroom.js":  # the live class talks to the lab's own /class/ routes, by relative paths only
            assert "const at = (path) => new URL(path, location.href).toString();" in text
            assert len(re.findall(r"fetch\(", text)) == len(re.findall(r"fetch\(at\(`class/", text)) + len(
                re.findall(r"fetch\(at\(path\)", text))
            assert re.findall(r"new EventSource\((.{12})", text) == ["at(`class/${"]
            text = text.replace("fetch(at(", "")
        assert not re.search(r"https?://|@import|fetch\(|XMLHttpRequest|import\(", text), path.name


def test_no_script_turns_data_into_html():
    # tokens, titles and labels come from users and plugins: the views build DOM with textContent only
    names = sorted(p.name for p in web.ASSETS.glob("*.js"))
    assert {*web.SCRIPTS, "lesson.js", "classroom.js", "class_draw.js", "class_dock.js"} <= set(names)
    for name in names:
        text = (web.ASSETS / name).read_text(encoding="utf-8")
        assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function", text), name


def test_the_version_changes_with_the_files(tmp_path, monkeypatch):
    for name in (*web.SCRIPTS, *web.STYLES, *web.LESSON):
        (tmp_path / name).write_text((web.ASSETS / name).read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(web, "ASSETS", tmp_path)
    web.version.cache_clear()
    before = web.version()
    (tmp_path / "core.js").write_text("// changed", encoding="utf-8")
    web.version.cache_clear()
    assert web.version() != before
    web.version.cache_clear()


def test_the_template_never_interpolates_the_value():
    assert "${" not in web.TEMPLATE and "{{" not in web.TEMPLATE  # Gradio evaluates templates: ours is static
