"""A view shared as a link: Copy link writes the address of what the Attention tab shows, and that address opens
the same view (or the Causality tab on its sentence); a value the lab cannot take is said, the page still draws."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest

from tests.pages import TIMEOUT, VIEW, open_tab, redrawn, reveal, stamp, type_sentence

pytestmark = pytest.mark.browser
SENTENCE = "这份合同中的违约金过高"  # written without spaces: the segmenter cuts it into words
SIZE = {"width": 1280, "height": 800}


def new_page(browser, url, **context):
    page = browser.new_context(viewport=SIZE, **context).new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(url)
    return page


def drawn(page) -> None:
    page.wait_for_selector(f"{VIEW}[data-stamp]:not([data-stamp=''])")


def tokens(page) -> list[str]:
    """Head 0's keys, as its columns are labelled."""
    return page.locator("#attention-heatmaps [data-head='0'] .al-x .al-label").all_inner_texts()


def settle(page) -> str:
    """The view's stamp once it stops changing (the link's settings arrive as several events)."""
    last = None
    for _ in range(40):
        page.wait_for_timeout(250)
        now = stamp(page)
        if now and now == last:
            return now
        last = now
    return last


def test_copy_link_opens_the_same_view_in_a_new_page(browser, app_url):
    page = new_page(browser, app_url, permissions=["clipboard-read", "clipboard-write"])
    try:
        open_tab(page, "Attention")
        drawn(page)
        type_sentence(page, SENTENCE)
        old = stamp(page)
        page.locator("#variant input").click()
        page.get_by_role("option", name="Sliding window (local) attention").click()
        redrawn(page, old)
        old = stamp(page)
        window = page.locator("#opt-sliding-window-window input").first
        window.fill("2")
        window.press("Enter")
        redrawn(page, old)
        old = stamp(page)
        heads = page.locator("#n_heads input[type=number]")
        heads.fill("4")
        heads.press("Enter")
        redrawn(page, old)
        old = stamp(page)
        page.locator("#causal input[type=checkbox]").uncheck()
        redrawn(page, old)
        shown, words = settle(page), tokens(page)
        page.locator("#lab-link-copy").click()
        page.locator(".al-link-pop.al-shown").wait_for()
        url = page.locator("#lab-link-url").input_value()
        assert page.locator(".al-link-note").inner_text() in ("Link copied", "Copy this link:")
        if page.locator(".al-link-note").inner_text() == "Link copied":  # (the clipboard: http on loopback may)
            assert page.evaluate("navigator.clipboard.readText()") == url
        assert quote(SENTENCE) in url and " " not in url  # percent-encoded UTF-8
        query = parse_qs(urlsplit(url).query)
        assert {k: v[0] for k, v in query.items()} == {
            "sentence": SENTENCE, "variant": "sliding-window", "causal": "false", "scaled": "true", "heads": "4",
            "d_model": "16", "seed": "0", "options": '{"window": 2, "stride": 0}', "tab": "attention"}
    finally:
        page.context.close()
    other = new_page(browser, url)
    try:
        other.wait_for_function("s => { const t = document.querySelector('#sentence textarea');"
                                " return t && t.offsetParent && t.value === s; }", arg=SENTENCE)
        other.wait_for_function("([sel, s]) => (document.querySelector(sel) || {dataset: {}}).dataset.stamp === s",
                                arg=[VIEW, shown])  # the very view: the same weights drawn
        assert tokens(other) == words and len(words) > 3
        assert other.locator(f"{VIEW} [data-head]").count() == 4
        assert not other.locator("#causal input[type=checkbox]").is_checked()
        assert other.locator("#opt-sliding-window-window input").first.input_value() == "2"
    finally:
        other.context.close()


# Answers for any other settings than the link's come back late: as on a busy server, where they may arrive last
SLOW_STALE = """(() => {
  const fetch0 = window.fetch;
  window.fetch = async (url, init) => {
    const body = init && typeof init.body === "string" ? init.body : "";
    const answer = await fetch0(url, init);
    if (String(url).includes("/run/predict") && body.includes("\"data\"") && !body.includes('window\\": 2'))
      await new Promise((done) => setTimeout(done, 1500));
    return answer;
  };
})()"""


def test_a_link_draws_its_settings_even_when_the_answers_for_half_set_controls_arrive_last(browser, app_url):
    # Opening a link sets every control at once; Gradio starts each one's change event with the values set so
    # far, so some draws are asked for the link's sentence with the old variant or options. Whatever order their
    # answers come back in, the page ends on the link's view (the one it draws when no answer is late).
    link = app_url + "?" + urlencode({"sentence": SENTENCE, "variant": "sliding-window", "causal": "false",
                                      "heads": "4", "options": '{"window": 2, "stride": 0}'})
    pages = []
    try:
        for slow in (False, True):
            context = browser.new_context(viewport=SIZE)
            if slow:
                context.add_init_script(SLOW_STALE)
            page = context.new_page()
            page.set_default_timeout(TIMEOUT)
            page.goto(link)
            page.wait_for_function("s => (document.querySelector('#sentence textarea') || {}).value === s",
                                   arg=SENTENCE)
            drawn(page)
            page.wait_for_timeout(3000)  # (past every late answer)
            pages.append(page)
        fast, slow = (settle(p) for p in pages)
        assert slow == fast and slow.endswith(":01"), (fast, slow)  # the link's view, causal off
        assert pages[1].locator(f"{VIEW} [data-head]").count() == 4
    finally:
        for p in pages:
            p.context.close()


def test_the_link_field_is_selected_when_the_page_may_not_write_the_clipboard(browser, app_url):
    page = new_page(browser, app_url)
    try:
        open_tab(page, "Attention")
        drawn(page)
        page.evaluate("Object.defineProperty(navigator, 'clipboard', {value: undefined})")  # as on plain http
        page.locator("#lab-link-copy").click()
        page.locator(".al-link-pop.al-shown").wait_for()
        assert page.locator(".al-link-note").inner_text() == "Copy this link:"
        assert page.evaluate("() => { const b = document.activeElement; return b.id === 'lab-link-url'"
                             " && b.selectionStart === 0 && b.selectionEnd === b.value.length; }")
        assert "sentence=The%20cat%20sat" in page.locator("#lab-link-url").input_value()
        page.keyboard.press("Escape")
        page.locator(".al-link-pop.al-shown").wait_for(state="detached")
    finally:
        page.context.close()


def test_a_causality_link_opens_that_tab_on_the_sentence(browser, app_url):
    page = new_page(browser, f"{app_url}?sentence=the%20dog%20ran%20home&tab=causality")
    try:
        page.get_by_role("tab", name="Causality", selected=True).wait_for()
        page.wait_for_function("() => { const t = document.querySelector('#causality-sentence textarea');"
                               " return t && t.offsetParent && t.value === 'the dog ran home'; }")
        page.wait_for_function("() => [...document.querySelectorAll('#causality-bars .al-root')]"
                               ".some((r) => r.textContent.includes('home'))")
    finally:
        page.context.close()


def test_a_step_link_steps_through_the_links_settings(browser, app_url):
    page = new_page(browser, f"{app_url}?sentence=the%20dog%20ran&heads=4&tab=step")
    try:
        page.get_by_role("tab", name="Step through", selected=True).wait_for()
        page.wait_for_function("() => [...document.querySelectorAll('#step-weights .al-root')]"
                               ".some((r) => r.dataset.stamp && r.textContent.includes('dog'))")
        assert page.locator("#step-head input[type=number]").get_attribute("max") == "3"  # 4 heads: 0 to 3
    finally:
        page.context.close()


def test_a_bad_value_is_said_and_the_page_still_draws_the_rest(browser, app_url):
    page = new_page(browser, f"{app_url}?sentence=a%20b%20c&heads=abc&variant=%3Cb%3Enope%3C%2Fb%3E")
    try:
        toast = page.get_by_test_id("toast-body")
        toast.filter(has_text="heads='abc' must be a whole number").wait_for()
        said = toast.inner_text()
        assert "Not taken from the link:" in said and "variant='<b>nope</b>' is not registered" in said
        assert toast.locator("b").count() == 0  # the link's text is said as text, never read as HTML
        page.get_by_role("tab", name="Attention", selected=True).wait_for()
        page.wait_for_function("() => { const t = document.querySelector('#sentence textarea');"
                               " return t && t.value === 'a b c'; }")
        drawn(page)
        settle(page)
        assert tokens(page) == ["0 a", "1 b", "2 c"]
        assert page.locator(f"{VIEW} [data-head]").count() == 2  # the heads the page had
    finally:
        page.context.close()


def test_open_in_the_lab_leaves_its_link_in_the_address_bar(browser, app_url):
    page = new_page(browser, f"{app_url}?lesson=v1-v2&step=4&sentence=ignored")
    try:
        page.wait_for_function("() => (document.getElementById('lesson') || {dataset: {}}).dataset.step === '4'")
        assert page.get_by_role("tab", name="Lesson", selected=True).count() == 1  # a lesson link wins
        page.locator("#lesson-lab").click()
        page.wait_for_function("() => { const t = document.querySelector('#sentence textarea');"
                               " return t && t.offsetParent && t.value === 'Your journey starts with one step'; }")
        page.wait_for_function("() => location.search.includes('sentence=Your%20journey%20starts')")
        query = parse_qs(urlsplit(page.url).query)
        assert "lesson" not in query and query["tab"] == ["attention"] and query["heads"]
        page.reload()
        page.get_by_role("tab", name="Attention", selected=True).wait_for()
        page.wait_for_function("() => { const t = document.querySelector('#sentence textarea');"
                               " return t && t.offsetParent && t.value === 'Your journey starts with one step'; }")
        drawn(page)
    finally:
        page.context.close()


def trained_shown(page) -> list[str]:
    """The trained panel drawn and shown (the Weights switch on the trained model): its opened head's rows."""
    page.wait_for_selector("#trained-heatmaps .al-root[data-stamp]:not([data-stamp=''])")
    page.wait_for_function("() => { const t = document.querySelector('#trained-heatmaps'); return t && t.offsetParent; }")
    assert page.locator("#weights input[value='trained tiny model']").is_checked()
    return page.locator("#trained-heatmaps .al-opened-map .al-y .al-label").all_inner_texts()


def test_a_trained_link_opens_the_trained_panel_on_its_sentence(browser, app_url):
    from core.lab.trained_view import EXAMPLES

    sentence = EXAMPLES[5]  # not the panel's first sentence: the link's own is shown
    page = new_page(browser, f"{app_url}?sentence={quote(sentence)}&weights=trained")
    try:
        page.get_by_role("tab", name="Attention", selected=True).wait_for()
        page.wait_for_function("s => (document.querySelector('#trained-sentence input') || {}).value === s", arg=sentence)
        page.wait_for_function("n => document.querySelectorAll('#trained-heatmaps .al-opened-map .al-y .al-label')"
                               ".length === n", arg=len(sentence.split()))
        assert [t.split(" ", 1)[1] for t in trained_shown(page)] == sentence.split()
        assert page.locator("#trained-heatmaps .al-warning").count() == 0  # every word known
    finally:
        page.context.close()
    page = new_page(browser, f"{app_url}?sentence=the%20zebra%20slept&weights=trained")
    try:  # a word the tiny model never saw: said as the panel says it for a typed sentence, the rest drawn
        page.get_by_role("tab", name="Attention", selected=True).wait_for()
        page.wait_for_function("() => [...document.querySelectorAll('#trained-heatmaps .al-warning')]"
                               ".some((w) => w.textContent.includes(\"'zebra'\"))")
        assert "never saw" in page.locator("#trained-heatmaps .al-warning").first.inner_text()
        assert [t.split(" ", 1)[1] for t in trained_shown(page)] == ["the", "zebra", "slept"]
    finally:
        page.context.close()


def test_open_in_the_lab_from_a_trained_step_leaves_a_trained_link(browser, app_url):
    page = new_page(browser, f"{app_url}?lesson=chapter&step=1")
    try:
        page.wait_for_function("() => (document.getElementById('lesson') || {dataset: {}}).dataset.step === '1'")
        page.locator("#lesson-lab").click()
        page.wait_for_function("() => location.search.includes('weights=trained')")
        query = parse_qs(urlsplit(page.url).query)
        assert query["weights"] == ["trained"] and query["tab"] == ["attention"] and "lesson" not in query
        page.reload()
        page.get_by_role("tab", name="Attention", selected=True).wait_for()
        page.wait_for_function("s => (document.querySelector('#trained-sentence input') || {}).value === s",
                               arg=query["sentence"][0])
        trained_shown(page)
        page.wait_for_function("() => [...document.querySelectorAll("
                               "'#trained-heatmaps .al-opened-map .al-y .al-label.al-on')].map((e) => e.textContent)"
                               ".join('|') === '4 它'")
    finally:
        page.context.close()


def test_copy_link_while_the_trained_model_is_shown_writes_weights_trained(browser, app_url):
    from core.lab.trained_view import EXAMPLES
    from core.ui import attention_tab

    page = new_page(browser, app_url)
    try:
        open_tab(page, "Attention")
        drawn(page)
        page.get_by_text("trained tiny model", exact=True).click()
        trained_shown(page)
        sentence = page.locator("#trained-sentence input").input_value()
        page.locator("#trained-link-copy").click()
        page.locator(".al-link-pop.al-shown").wait_for()
        query = {k: v[0] for k, v in parse_qs(urlsplit(page.locator("#lab-link-url").input_value()).query).items()}
        assert query["weights"] == "trained" and query["sentence"] == sentence and query["tab"] == "attention"
        assert sentence == EXAMPLES[0] and sentence != attention_tab.SENTENCE  # the trained panel's, not the other's
    finally:
        page.context.close()


def chinese(n: int, seed: int = 31) -> str:
    """n Chinese characters drawn at random (the worst case for compression): a sentence the app accepts."""
    import random

    pick = random.Random(seed)
    return "".join(chr(pick.randint(0x4E00, 0x9FA5)) for _ in range(n))


def test_copy_link_of_a_1000_character_chinese_sentence_opens(browser, app_url):
    """Percent-encoded it would be 9 KB, past the 8 KB the server reads (a 414): the page writes it as ?z=."""
    from core.serve.errors import MAX_URL_BYTES

    sentence = chinese(1000)
    page = new_page(browser, app_url)
    try:
        open_tab(page, "Attention")
        drawn(page)
        type_sentence(page, sentence)
        page.locator("#lab-link-copy").click()
        page.locator(".al-link-pop.al-shown").wait_for()
        url = page.locator("#lab-link-url").input_value()
        parts = urlsplit(url)
        assert len(parts.path) + len(parts.query) <= MAX_URL_BYTES and parts.query.startswith("z="), len(url)
    finally:
        page.context.close()
    other = new_page(browser, url)
    try:
        assert other.goto(url).status == 200
        other.wait_for_function("s => { const t = document.querySelector('#sentence textarea');"
                                " return t && t.offsetParent && t.value === s; }", arg=sentence)
        other.wait_for_selector(f"{VIEW}[data-stamp]:not([data-stamp=''])")
    finally:
        other.context.close()


def test_copy_link_of_a_state_no_address_can_hold_says_so_in_one_sentence(browser, app_url):
    page = new_page(browser, app_url)
    try:
        open_tab(page, "Attention")
        drawn(page)
        type_sentence(page, chinese(4096))  # the most the app reads: 12 KB of UTF-8 that no deflate halves
        page.locator("#lab-link-copy").click()
        page.locator(".al-link-pop.al-shown").wait_for()
        assert page.locator(".al-link-note").inner_text() == (
            "This view's link would be longer than the 8,192 bytes the lab reads, because its sentence is long; "
            "shorten the sentence to share it.")
        assert not page.locator("#lab-link-url").is_visible() and page.evaluate("() => location.search") == ""
    finally:
        page.context.close()


# ---- Open in the lab, for every view kind a built-in lesson shows -------------------------------------------------

def lab_stamp(page, view: str) -> str:
    """A lab view's drawn numbers (its stamp), once it has drawn."""
    page.wait_for_selector(f"{view} .al-root[data-stamp]:not([data-stamp=''])")
    return page.locator(f"{view} .al-root").first.get_attribute("data-stamp")


def step_shown(page, before: str | None) -> str:
    """The step's view as the page drew it (its stamp), once it is no longer the step's before it."""
    try:
        page.wait_for_function("old => { const r = document.querySelector('#lesson-view .al-root');"
                               " return r && r.dataset.stamp && r.dataset.stamp !== old; }", arg=before or "")
    except Exception:  # noqa: BLE001 - said as what the page shows instead
        at = page.evaluate("() => { const l = document.querySelector('#lesson'), r = document.querySelector("
                           "'#lesson-view .al-root'), c = document.querySelector('#lesson-check');"
                           " return [l && l.dataset.lesson, l && l.dataset.step, r && r.dataset.stamp,"
                           " c && c.innerText.slice(0, 200)]; }")
        raise AssertionError(f"the step's view never drew after {before!r}: (lesson, step, stamp, check) = {at}") \
            from None
    return page.locator("#lesson-view .al-root").first.get_attribute("data-stamp")


def drawn_as(page, view: str, shown: str) -> None:
    """The lab's view drew the very numbers the step drew (the same stamp)."""
    try:
        page.wait_for_function("([sel, s]) => (document.querySelector(sel + ' .al-root') || {dataset: {}}).dataset"
                               ".stamp === s", arg=[view, shown], timeout=TIMEOUT / 2)
    except Exception:  # noqa: BLE001 - said as what was drawn instead
        drew = page.evaluate("sel => (document.querySelector(sel + ' .al-root') || {dataset: {}}).dataset.stamp", view)
        raise AssertionError(f"{view} drew {drew}, the step {shown}") from None


def in_sight(page, selector: str) -> None:
    """The part of the tab the step showed is on screen (Open in the lab scrolled to it)."""
    page.wait_for_function("sel => { const e = document.querySelector(sel); if (!e) return false;"
                           " const r = e.getBoundingClientRect(); return r.top >= -2 && r.top < innerHeight / 2; }",
                           arg=selector)


def field(page, selector: str, value: str) -> None:
    try:
        page.wait_for_function("([sel, v]) => (document.querySelector(sel) || {}).value === v", arg=[selector, value])
    except Exception:  # noqa: BLE001 - said as what the control holds instead (ci13: a Causality position, once)
        held = page.evaluate("sel => { const e = document.querySelector(sel); return e ? [e.value, e.max] : null; }",
                             selector)
        raise AssertionError(f"{selector} holds {held} (value, max), the step handed {value!r}") from None


def checked(page, elem_id: str, value: str) -> None:
    page.wait_for_function("([id, v]) => !!document.querySelector(`#${id} input[value='${v}']:checked`)",
                           arg=[elem_id, value])


def heatmaps_lab(page, st, shown):
    field(page, "#sentence textarea", st["sentence"])
    drawn_as(page, "#attention-heatmaps", shown)


def mask_lab(page, st, shown):
    field(page, "#sentence textarea", st["sentence"])
    assert page.locator("#opt-sliding-window-window input").first.input_value() == str(st["options"]["window"])
    drawn_as(page, "#attention-mask", shown)


def dropout_lab(page, st, shown):  # Masking & scaling: the same pair, evaluation beside training, at the step's p
    field(page, "#masking-sentence textarea", st["sentence"])
    checked(page, "masking-p", str(st["dropout"]))
    drawn_as(page, "#masking-dropout", shown)
    in_sight(page, "#masking-p")


def trained_lab(page, st, shown):
    from core.serve.trained import trained

    page.wait_for_function("s => (document.querySelector('#trained-sentence input') || {}).value === s",
                           arg=st["sentence"])
    trained_shown(page)
    drawn_as(page, "#trained-heatmaps", trained(st["sentence"], st["layer"], st["head"]).model["stamp"])  # its head


def stage_lab(page, st, shown):
    field(page, "#step-head input[type=number]", str(st["head"]))
    drawn_as(page, f"#step-{st['stage']}", shown)
    in_sight(page, f"#step-{st['stage']}")


def causality_lab(page, st, shown, view="#causality-bars"):
    field(page, "#causality-sentence textarea", st["sentence"])
    field(page, "#causality-position input[type=number]", str(st["position"]))
    field(page, "#causality-replacement textarea", st["replacement"])
    drawn_as(page, view, shown)


def dependency_lab(page, st, shown):
    causality_lab(page, st, shown, "#causality-dependency")
    in_sight(page, "#causality-dependency")


def masking_lab(page, st, shown, view):
    field(page, "#masking-sentence textarea", st["sentence"])
    drawn_as(page, view, shown)
    in_sight(page, view)


def transfer_lab(page, st, shown):
    from core.serve.transfer import v2_to_v1

    checked(page, "transfer-mistake", st["mistake"])
    field(page, "#transfer-verdict textarea", v2_to_v1(st["seed"], st["d_in"], st["d_out"], st["mistake"]).verdict)


def failure_lab(page, st, shown):
    drawn_as(page, f"#card-{st['card']}-weights", shown)
    in_sight(page, f"#card-{st['card']}")


def interventions_lab(page, st, shown):
    field(page, "#interventions-sentence input", st["sentence"])
    checked(page, "interventions-mode", st["mode"])
    drawn_as(page, "#interventions-chart", shown)
    in_sight(page, "#interventions-chart")


def training_lab(page, st, shown):
    kind = st["experiment"]
    page.locator(f"#experiments-{kind}-button[aria-selected=true]").wait_for()
    field(page, f"#{kind}-steps input[type=number]", str(st["steps"]))
    lab_stamp(page, f"#{kind}-plot")  # the class's run drawn (from the cache once trained), never empty axes
    page.wait_for_function("sel => (document.querySelector(sel) || {textContent: ''}).textContent.trim()",
                           arg=f"#{kind}-words")


def cost_lab(page, st, shown):  # the step's lines and chart chosen: the tab draws them as its own choice would
    from core.bench import cost
    from core.ui import cost_tab

    panel, saved = cost_tab.step_panel(st), cost.load_saved()
    ticks = [path in st["paths"] for path in cost_tab.saved_paths(saved)]  # (the boxes, in the file's order)
    page.wait_for_function("want => JSON.stringify([...document.querySelectorAll('#cost-paths input')]"
                           ".map(e => e.checked)) === JSON.stringify(want)", arg=ticks)
    checked(page, "cost-panels", panel)
    drawn_as(page, "#cost-saved", cost_tab.saved_shown(saved, st["paths"], panel)[0]["stamp"])
    in_sight(page, "#cost-paths")
    in_sight(page, "#cost-saved")


def real_lab(page, st, shown):
    """A real-model step: the model and sentence it ran (the test app has the tiny model only: the chapter's step has
    no Chinese-capable model to run, and hands over none)."""
    if "model" not in st:
        assert shown is None
        return
    field(page, "#real-sentence textarea", st["sentence"])
    checked(page, "real-model", st["model"])
    lab_stamp(page, "#real-model-view")


# (lesson, step from 1, the tab it opens, what that tab must show): every view kind the built-in lessons have
WALK = [
    ("chapter", 1, "Attention", trained_lab), ("chapter", 4, "Masking & scaling",
                                               lambda p, st, s: masking_lab(p, st, s, "#masking-sqrt-d")),
    ("chapter", 5, "Step through", stage_lab), ("chapter", 6, "Attention", heatmaps_lab),
    ("chapter", 9, "Causality", causality_lab), ("chapter", 11, "Experiments", training_lab),
    ("chapter", 13, "Mistakes & interventions", failure_lab), ("chapter", 17, "Mistakes & interventions",
                                                                interventions_lab),
    ("chapter", 19, "Real model", real_lab), ("chapter", 20, "Real model", real_lab),
    ("v1-v2", 2, "Weight transfer", transfer_lab), ("v1-v2", 5, "Masking & scaling",
                                                    lambda p, st, s: masking_lab(p, st, s, "#masking-three")),
    ("v1-v2", 7, "Masking & scaling", dropout_lab),
    ("by-hand", 7, "Causality", dependency_lab), ("by-hand", 11, "Attention", mask_lab), ("by-hand", 13, "Cost", cost_lab),
]


def test_open_in_the_lab_opens_every_view_kind_on_what_its_step_showed(browser, app_url):
    """One page walks one step of each view kind: Open in the lab, the tab's own view drawn from the same numbers
    (or showing the same card, edit, mistake, run), then back to the lesson."""
    from core.registry import load_registry
    from core.serve import lessons
    from core.serve.plugins import AppLab

    registry = load_registry(entry_points=False)
    shelf, lab = lessons.load(registry), AppLab(registry)
    kinds = {s.view for n in ("chapter", "v1-v2", "by-hand") for s in shelf.get(n).steps}
    assert kinds == {shelf.get(n).steps[k - 1].view for n, k, _, _ in WALK}  # every kind, once
    seen = {(n, k): lessons.shown(lab, shelf.get(n).steps[k - 1]) for n, k, _, _ in WALK}  # (before the page asks)
    page, shown = new_page(browser, f"{app_url}?lesson=chapter&step=1"), None
    try:
        for name, k, tab, lab_shows in WALK:
            if page.locator(f"#lesson[data-lesson='{name}']").count() == 0:
                page.goto(f"{app_url}?lesson={name}&step={k}")
                shown = None
            else:
                page.get_by_role("tab", name="Lesson", exact=True).click()
                page.evaluate("k => window.AttnLabLesson.jump(k)", k - 1)
            page.wait_for_selector(f"#lesson[data-lesson='{name}'][data-step='{k}']", state="attached")
            reveal(page)
            st = seen[name, k].lab  # what the step hands over, as the server computed it
            shown = None if seen[name, k].view is None else step_shown(page, shown)  # as the page drew it
            page.locator("#lesson-lab").click()
            page.get_by_role("tab", name=tab, exact=True, selected=True).wait_for()
            lab_shows(page, st, shown)
    finally:
        page.context.close()
