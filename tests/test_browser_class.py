"""A live class in Chromium: a teacher's page and three followers (one in Chinese, one a 390×844 phone) follow five
steps; a follower pages back and returns with Follow; a dropped connection rejoins on the current step; the teacher
sees how many follow; an ended or guessed code is one sentence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.serve import class_routes
from tests.pages import TIMEOUT
from tests.test_browser_access import violations

pytestmark = pytest.mark.browser
SHOTS = Path(os.environ.get("ATTENTION_LAB_SHOTS", "/tmp/attention-lab-class-shots"))


def opened(browser, url: str, width: int = 1280, height: int = 720, locale: str = "en-US"):
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.hosts = set()
    page.on("request", lambda r: page.hosts.add(r.url.split("/")[2]))
    page.goto(url)
    return page


def step_of(page) -> str:
    return page.locator("#lesson").get_attribute("data-step")


def on_step(page, step: int) -> None:
    page.wait_for_function("(s) => { const l = document.getElementById('lesson'); return l && l.dataset.step === s; }",
                           arg=str(step), timeout=15_000)


def next_step(teacher, step: int) -> int:
    if teacher.locator("#lesson").get_attribute("data-phase") == "ask":  # a question shown: this press reveals it
        teacher.locator("#lesson-next").click()
        teacher.wait_for_function("() => !document.getElementById('lesson').dataset.phase")
    teacher.locator("#lesson-next").click()
    on_step(teacher, step + 1)
    return step + 1


def status(page) -> str:
    return page.locator("#class-status").inner_text()


def test_a_class_follows_the_teacher_step_by_step(browser, app_url):
    SHOTS.mkdir(parents=True, exist_ok=True)
    teacher = opened(browser, f"{app_url}?lesson=chapter&class=new", 1280, 720)
    code_box = teacher.locator("#class-code")
    code_box.wait_for()
    code = code_box.get_attribute("data-code")
    assert len(code) >= 6 and code_box.inner_text().strip() == code
    assert f"class={code}" in teacher.url and teacher.locator(".al-class-qr path").count() == 1
    link = teacher.locator(".al-class-link").inner_text()
    assert link.endswith(f"?class={code}")
    on_step(teacher, 1)
    followers = [opened(browser, f"{app_url}?class={code}", 1400, 1000),
                 opened(browser, f"{app_url}?class={code}", 1280, 720, locale="zh-CN"),
                 opened(browser, f"{app_url}?class={code}", 390, 844)]
    english, chinese, phone = followers
    try:
        for f in followers:
            f.locator("#class-code").wait_for()
            assert f.locator("#class-code").get_attribute("data-code") == code
            on_step(f, 1)
        teacher.wait_for_function("() => /3/.test(document.querySelector('.al-class-count').textContent)")
        chinese.wait_for_function("() => (document.getElementById('class-status') || {}).textContent === '你正跟随老师。'")
        step = 1
        for _ in range(4):  # five steps: each follower's lesson is where the teacher's is
            step = next_step(teacher, step)
            for f in followers:
                on_step(f, step)
        teacher.screenshot(path=str(SHOTS / "teacher-1280.png"))
        chinese.screenshot(path=str(SHOTS / "follower-zh-1280.png"))
        phone.screenshot(path=str(SHOTS / "follower-390.png"))

        phone.locator("#lesson-back").click()  # the phone pages back on its own
        on_step(phone, step - 1)
        phone.locator("#class-follow").wait_for()
        assert "class is at step 5" in status(phone)
        step = next_step(teacher, step)
        on_step(english, step)
        assert step_of(phone) == str(step - 2)  # it stays where its student went
        phone.locator("#class-follow").click()
        on_step(phone, step)
        assert status(phone) == "You follow the teacher."

        english.route("**/class/*/events*", lambda route: route.abort())  # its connection drops, and stays down
        class_routes.hub().drop(code)
        english.wait_for_function("() => /dropped/.test((document.getElementById('class-status') || {}).textContent)")
        step = next_step(teacher, step)
        step = next_step(teacher, step)
        on_step(chinese, step)
        assert step_of(english) == str(step - 2)
        english.unroute("**/class/*/events*")  # back: it rejoins by itself and lands on the class's step
        on_step(english, step)

        teacher.locator("#class-show").click()
        teacher.screenshot(path=str(SHOTS / "teacher-shown-1280.png"))
        teacher.locator("#class-end").click()
        for f, sentence in ((english, "The teacher ended the class."), (chinese, "老师结束了课堂。")):
            f.wait_for_function("(s) => (document.getElementById('class-status') || {}).textContent === s", arg=sentence)
        teacher.wait_for_function("() => !location.search.includes('class=')")  # (its own answer may come after theirs)
        assert teacher.locator("#class-code").count() == 0
        for p in (teacher, *followers):
            assert p.hosts <= {app_url.split("/")[2]}  # nothing but the lab itself
    finally:
        for p in (teacher, *followers):
            p.context.close()


def test_a_guessed_code_is_one_sentence(browser, app_url):
    page = opened(browser, f"{app_url}?class=ZZZZ22", 390, 844, locale="es-ES")
    try:
        page.wait_for_function("() => /ZZZZ22/.test((document.getElementById('class-status') || {}).textContent)")
        assert status(page) == ("No hay ninguna clase con el código ZZZZ22: revisa el código; puede que la clase haya "
                                "terminado.")
        page.screenshot(path=str(SHOTS / "guessed-390.png"))
    finally:
        page.context.close()


def test_the_class_answers_an_ask_step_and_the_teacher_reveals_the_chart(browser, app_url):
    # the chapter's step 4 asks "Without dividing by √d, what happens to the largest weight?", with three options
    teacher = opened(browser, f"{app_url}?lesson=chapter&step=3&class=new", 1280, 720)
    teacher.locator("#class-code").wait_for()
    code = teacher.locator("#class-code").get_attribute("data-code")
    followers = [opened(browser, f"{app_url}?class={code}", 1280, 720),
                 opened(browser, f"{app_url}?class={code}", 1280, 720, locale="zh-CN"),
                 opened(browser, f"{app_url}?class={code}", 390, 844)]
    english, chinese, phone = followers
    try:
        for f in followers:
            on_step(f, 3)
        teacher.wait_for_function("() => /3/.test(document.querySelector('.al-class-count').textContent)")
        next_step(teacher, 3)
        phone.locator("#class-choice-2").wait_for()
        phone.screenshot(path=str(SHOTS / "follower-ask-390.png"))
        for f, choice in ((english, 0), (chinese, 2), (phone, 0)):
            f.locator(f"#class-choice-{choice}").click()
            f.locator(".al-class-ask .al-class-note").wait_for()
        assert chinese.locator(".al-class-ask .al-class-note").inner_text() == "你的答案已提交：逼近 0"
        teacher.wait_for_function("() => (document.getElementById('class-answered') || {}).textContent === "
                                  "'Answered: 3 of 3'")
        teacher.locator("#lesson-next").click()  # the lesson's own reveal of its question reveals the class's too
        teacher.wait_for_function("() => !document.getElementById('lesson').dataset.phase")
        teacher.locator("#class-chart").wait_for()
        rows = lambda p: p.locator("#class-chart .al-class-row").all_inner_texts()  # noqa: E731
        assert [" ".join(r.split()) for r in rows(teacher)] == ["it climbs towards 1 2", "it stays the same 0",
                                                                "it falls towards 0 1"]
        chinese.locator("#class-chart").wait_for()
        chinese.wait_for_function("() => !document.getElementById('lesson').dataset.phase")  # its view revealed too
        assert chinese.locator("#lesson-view .al-root").count() >= 1
        assert [" ".join(r.split()) for r in rows(chinese)] == ["逼近 1 2", "不变 0", "逼近 0 1"]
        phone.locator("#class-chart").wait_for()
        for p in (teacher, chinese, phone):  # the panel, the bar, the chart: WCAG 2.1 AA, as every tab
            assert violations(p) == [], p.url
        teacher.screenshot(path=str(SHOTS / "teacher-chart-1280.png"))
        chinese.screenshot(path=str(SHOTS / "follower-chart-zh-1280.png"))
        phone.screenshot(path=str(SHOTS / "follower-chart-390.png"))
        teacher.locator("#class-reveal").click()  # the panel's own button hides the answers again, on every page
        chinese.wait_for_function("() => !document.getElementById('class-chart')")
        next_step(teacher, 4)  # the next step: no question, no chart
        on_step(english, 5)
        assert english.locator("#class-chart").count() == 0
    finally:
        for p in (teacher, *followers):
            p.context.close()


# Whatever the class draws (the start button, the teacher's code, its corner, a follower's bar), the lesson's Back,
# Next and Present and its view stay uncovered and clickable, presenting or not, on a projector, a laptop and a phone.
SIZES = [(1024, 768), (1280, 720), (1920, 1080), (390, 844)]
COVERED = """() => {
  const box = (e) => { if (!e || !e.getClientRects().length) return null; const b = e.getBoundingClientRect();
                       return b.width && b.height ? b : null; };
  const mine = [...document.querySelectorAll('#class-dock > *')].map(box).filter(Boolean);
  const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const out = [];
  for (const id of ['lesson-back', 'lesson-next', 'lesson-present', 'lesson-view']) {
    const b = box(document.getElementById(id));
    if (!b) continue;
    if (mine.some((m) => hit(m, b))) out.push(id);
    const x = (b.left + b.right) / 2, y = (b.top + b.bottom) / 2;
    const at = x >= 0 && y >= 0 && x < innerWidth && y < innerHeight ? document.elementFromPoint(x, y) : null;
    if (id !== 'lesson-view' && at && !document.getElementById(id).contains(at)) out.push(id + ' (under ' + at.id + ')');
  }
  return {covered: out, drawn: mine.length, wide: document.documentElement.scrollWidth - innerWidth};
}"""


def uncovered(page, what: str) -> None:
    page.wait_for_function("() => !!window.AttnLabLesson")  # (lesson.js comes with the tab's head, maybe after)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        for presenting in (False, True):
            page.evaluate("(on) => window.AttnLabLesson.present(on)", presenting)
            page.evaluate("() => window.scrollTo(0, 0)")
            page.wait_for_timeout(150)
            found = page.evaluate(COVERED)
            assert found["drawn"] and not found["covered"] and found["wide"] <= 0, (what, width, height, presenting,
                                                                                    found)
            if (width, height) == (1280, 720):
                page.screenshot(path=str(SHOTS / f"uncovered-{what}-{'present' if presenting else 'page'}.png"))
    page.evaluate("() => window.AttnLabLesson.present(false)")


def test_the_class_never_covers_the_lessons_buttons_or_its_view(browser, app_url):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = opened(browser, f"{app_url}?lesson=chapter&step=2")
    teacher = opened(browser, f"{app_url}?lesson=chapter&step=2&class=new")
    follower = None
    try:
        page.locator("#class-start").wait_for()
        uncovered(page, "start")
        teacher.locator("#class-code").wait_for()
        code = teacher.locator("#class-code").get_attribute("data-code")
        follower = opened(browser, f"{app_url}?class={code}")
        follower.locator("#class-status").wait_for()
        uncovered(teacher, "code")
        teacher.set_viewport_size({"width": 1280, "height": 720})
        teacher.locator("#class-hide").click()
        uncovered(teacher, "corner")
        next_step(teacher, 2)
        next_step(teacher, 3)  # the chapter's step 4 asks the class
        follower.locator("#class-choice-0").wait_for()
        uncovered(follower, "follower")
        teacher.set_viewport_size({"width": 1280, "height": 720})
        teacher.locator("#class-show").click()
        teacher.locator("#class-end").click()
        teacher.locator("#class-start").wait_for()
    finally:
        for p in (page, teacher, follower):
            if p:
                p.context.close()
