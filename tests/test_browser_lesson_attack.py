"""The hostile lesson folder (tests/hostile_lessons.py) in a real app and a real Chromium: the app starts and says
each file it refused (its log, the Lesson tab's box, a deep link), the lessons that load show nothing but markdown-it's
elements, no request leaves the app's origin (a second server, the "other host", counts what reaches it: nothing),
no dialog opens, and the app keeps serving. The Content-Security-Policy holds even for markup put in by hand."""

from __future__ import annotations

import http.server
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from core.render.lesson_html import ALLOWED, WRAPPER
from tests.conftest import ARGS, CHROMIUM, free_port
from tests.hostile_lessons import HOSTILE_STEPS, SECRET, build
from tests.pages import TIMEOUT

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[1]
SIZE = {"width": 1024, "height": 768}
SHOTS = Path(os.environ.get("ATTENTION_LAB_SHOTS", "/tmp/attention-lab-shots"))


class Counting(http.server.BaseHTTPRequestHandler):
    """The other host: it answers anything, and counts every request that reaches it."""

    hits: list[str] = []

    def do_GET(self):  # noqa: N802 - http.server's name
        Counting.hits.append(self.path)
        self.send_response(200)
        self.send_header("content-type", "image/png")
        self.end_headers()

    do_POST = do_GET  # noqa: N815

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def other():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory, other):
    """app.py started as a teacher would, with the hostile folder: (its address, its log, the refused files)."""
    place = tmp_path_factory.mktemp("class") / "lessons"
    refused = build(place, other)
    port, log = free_port(), place.parent / "app.log"
    env = {**os.environ, "ATTENTION_LAB_LESSONS": str(place), "GRADIO_SERVER_PORT": str(port),
           "ATTENTION_LAB_WARM": "0", "PYTHONPATH": str(ROOT), "GRADIO_ANALYTICS_ENABLED": "False"}
    with log.open("w") as out:
        app = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                               start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 240
        while True:  # a normal start: the page served within the start-up time of any app
            assert app.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, "the app did not start with the hostile folder\n" + log.read_text()[-3000:]
            try:
                if urllib.request.urlopen(url, timeout=5).status == 200:
                    break
            except OSError:
                time.sleep(1)
        yield url, log, refused
    finally:
        os.killpg(app.pid, signal.SIGTERM)
        app.wait(30)


def answers(url: str) -> bool:
    return urllib.request.urlopen(url, timeout=30).status == 200


@pytest.fixture(scope="module", params=["en-US", "zh-CN"])
def browser_page(request, hostile_app):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_context(locale=request.param, viewport=SIZE).new_page()
        page.set_default_timeout(TIMEOUT)
        page.dialogs, page.hosts, page.violations = [], set(), []
        page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: page.hosts.add(r.url.split("/")[2] if "://" in r.url else r.url[:5]))
        page.on("console", lambda m: page.violations.append(m.text) if m.text.startswith("CSP ") else None)
        page.add_init_script("document.addEventListener('securitypolicyviolation', "
                             "(e) => console.log('CSP ' + e.violatedDirective + ' ' + e.blockedURI))")
        page.lang = "zh-CN" if request.param.startswith("zh") else "en"
        yield page
        browser.close()


def opened(page, url: str, lesson: str, step: str = "1") -> None:
    page.goto(url)
    page.wait_for_selector(f"#lesson[data-lesson='{lesson}'][data-step='{step}']")


# Every element of the step's text is one markdown-it makes, with the attributes it gives it; nothing anywhere in the
# page came from the lesson's HTML (its ids, a form, media, frames aimed at the other host, an inline style of its).
FOREIGN = """([allowed, wrapper, other]) => {
  const out = [], body = document.querySelector('#lesson-text .' + wrapper);
  if (!body) return ['no lesson text'];
  for (const e of body.querySelectorAll('*')) {
    const tag = e.tagName.toLowerCase();
    if (!(tag in allowed)) { out.push('element ' + tag); continue; }
    for (const a of e.getAttributeNames()) if (!allowed[tag].includes(a)) out.push(tag + '[' + a + ']');
  }
  for (const id of ['overlay', 'overlay2', 'send']) if (document.getElementById(id)) out.push('#' + id);
  for (const e of document.querySelectorAll('form, video, audio, iframe, object, embed, image, base, meta[http-equiv]'))
    if ((e.outerHTML || '').includes(other)) out.push('outside element ' + e.tagName);
  for (const e of document.querySelectorAll('[style*="z-index:9999"], [style*="z-index: 9999"]')) out.push('overlay');
  return out;
}"""


def test_the_app_starts_and_its_log_names_every_file_it_did_not_load(hostile_app):
    url, log, refused = hostile_app
    text = log.read_text()
    for file, words in refused.items():
        assert any(f"lesson not loaded: {file}" in line and words in line for line in text.splitlines()), file
    assert SECRET not in text and "Traceback" not in text and answers(url)


def test_a_hostile_lesson_shows_only_what_the_renderer_makes_and_nothing_leaves_the_origin(browser_page, hostile_app,
                                                                                           other):
    page, (url, _, _) = browser_page, hostile_app
    Counting.hits.clear()
    opened(page, url + "?lesson=hostile", "hostile")
    for k, (title, _, _) in enumerate(HOSTILE_STEPS, start=1):
        page.wait_for_selector(f"#lesson[data-step='{k}']")
        page.wait_for_timeout(300)  # (anything a step's text could fetch, it fetches as it is shown)
        assert page.evaluate(FOREIGN, [{t: list(a) for t, a in ALLOWED.items()}, WRAPPER, other]) == [], title
        assert page.locator("#lesson-text h2").inner_text() == title  # a heading of the title, as typed
        if title == "An image of the folder":  # the lesson's own image, through the app's route
            page.wait_for_function("() => { const i = document.querySelector('#lesson-text img');"
                                   " return i && i.complete && i.naturalWidth === 40; }")
            assert page.locator("#lesson-text img").get_attribute("src").startswith("lesson-image/")
        if title == "Links":
            link = page.locator("#lesson-text a", has_text="another host")
            assert link.get_attribute("rel") == "noopener noreferrer" and link.get_attribute("target") == "_blank"
        page.keyboard.press("ArrowRight")
    app_host = url.split("/")[2]
    assert page.hosts <= {app_host, "data:"}, page.hosts
    assert Counting.hits == [] and page.dialogs == [] and page.violations == []
    assert answers(url)


def test_a_students_sentence_in_the_check_line_is_text(browser_page, hostile_app):
    page, (url, _, _) = browser_page, hostile_app
    opened(page, url + f"?lesson=hostile&step={len(HOSTILE_STEPS)}", "hostile", str(len(HOSTILE_STEPS)))
    box = page.locator("#lesson-sentence textarea")
    box.fill("the fox saw <h1>BIG<")
    box.press("Enter")
    page.wait_for_function("() => (document.querySelector('#lesson-check') || {}).innerText.includes('<h1>big<')")
    assert page.locator("#lesson-check h1").count() == 0 and page.dialogs == []


def test_every_file_that_did_not_load_is_named_at_the_top_of_the_lesson_tab(browser_page, hostile_app):
    page, (url, _, refused) = browser_page, hostile_app
    opened(page, url, "chapter")
    box = page.locator("#lesson-failed .al-lesson-failed")
    box.wait_for()
    top = box.bounding_box()
    assert top["y"] < 300 and top["y"] + top["height"] <= SIZE["height"], top  # the first screen, unscrolled
    assert page.evaluate("() => scrollY") == 0
    shown = box.inner_text()
    for file in refused:
        assert file in shown, file
    if page.lang == "zh-CN":  # the teacher's page language, the files' names as they are
        assert f"没能加载的课程文件（{len(refused)} 个）" in shown and "不是文件" in shown and "did not load" not in shown
    else:
        assert f"Lesson files that did not load ({len(refused)})" in shown
        assert "window0.md line 9: the variant sliding-window" in shown
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"lesson-failed-{page.lang}.png"))


def test_a_deep_link_to_a_lesson_that_did_not_load_says_so_instead_of_another_lesson(browser_page, hostile_app):
    page, (url, _, _) = browser_page, hostile_app
    for name, words in (("window0", {"en": "The lesson 'window0' did not load, so it is not shown: window0.md line 9",
                                     "zh-CN": "课程 'window0' 没有加载，所以无法显示：window0.md 第 9 行"}),
                        ("no-such", {"en": "There is no lesson called 'no-such'", "zh-CN": "没有叫 'no-such' 的课程"})):
        page.goto(url + f"?lesson={name}&step=2")
        page.wait_for_selector(f"#lesson[data-lesson='{name}'][data-step='']")
        line = page.locator("#lesson-text .al-lesson-missing")
        assert words[page.lang] in line.inner_text() and line.count() == 1
        assert page.locator("#lesson-text h2").count() == 0 and page.locator("#lesson-view .al-root canvas").count() == 0
        page.keyboard.press("ArrowRight")  # no lesson shown: Next opens none
        page.wait_for_timeout(500)
        assert page.locator("#lesson").get_attribute("data-lesson") == name


def test_the_policy_stops_markup_put_in_by_hand_from_reaching_another_host(browser_page, hostile_app, other):
    """The backstop: even markup no lesson can produce, written into the page by a script, fetches nothing elsewhere."""
    page, (url, _, _) = browser_page, hostile_app
    Counting.hits.clear()
    opened(page, url + "?lesson=fits", "fits")
    page.evaluate("""(other) => {
      const d = document.createElement('div');
      d.innerHTML = '<img src="http://' + other + '/img.png"><video autoplay muted src="http://' + other + '/v.mp4">' +
        '</video><iframe src="http://' + other + '/frame"></iframe>' +
        '<form id="f" action="http://' + other + '/form" method="get"><input name="q" value="1"></form>';
      document.body.append(d);
      d.querySelector('#f').submit();
    }""", other)
    page.wait_for_timeout(1500)
    directives = {v.split()[1] for v in page.violations}
    assert {"img-src", "media-src", "frame-src", "form-action"} <= directives, page.violations
    assert Counting.hits == [], Counting.hits
    page.violations.clear()


def test_a_step_the_estimate_says_is_too_tall_is_too_tall_and_one_it_passes_fits(browser_page, hostile_app):
    page, (url, _, _) = browser_page, hostile_app
    bottom = """() => Math.max(...['#lesson-text', '#lesson-check'].map((s) => document.querySelector(s))
                 .filter((e) => e && e.offsetParent).map((e) => e.getBoundingClientRect().bottom))"""
    opened(page, url + "?lesson=tall", "tall")
    assert page.evaluate(bottom) > SIZE["height"]
    opened(page, url + "?lesson=fits", "fits")
    page.wait_for_function("() => (document.querySelector('#lesson-check') || {}).innerText")
    assert page.evaluate(bottom) <= SIZE["height"]
