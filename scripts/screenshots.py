"""Regenerate docs/screenshots at 1920x1080 and 1280x800, two classroom projectors (<name>.png, <name>-1280.png).

    python scripts/screenshots.py                 # start the app, shoot every tab into docs/screenshots
    python scripts/screenshots.py --out /tmp/shots --only attention,step --sizes 1280x800

Debian's Chromium through Playwright; each shot waits until the tab's views have drawn (data-stamp).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadtest_tools import start_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]


def drawn(page, elem_id: str) -> None:
    page.wait_for_function(
        "id => { const e = document.querySelector('#' + id + ' .al-root'); return e && e.dataset.stamp; }",
        arg=elem_id, timeout=120_000)


def tab(page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()


def shoot(page, out: Path, name: str, top: str | None = None) -> None:
    """The viewport, scrolled so that `top` (a selector) starts just below the top edge."""
    if top:
        page.evaluate("sel => { const e = document.querySelector(sel); window.scrollTo(0, e.getBoundingClientRect().top"
                      " + window.scrollY - 70); }", top)
    else:
        page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(400)
    path = out / f"{name}{suffix(page)}.png"
    page.screenshot(path=str(path))
    print("wrote", path, flush=True)


def suffix(page) -> str:
    """'' at 1920 px wide (the docs' first size), '-1280' at 1280 px, and so on."""
    width = page.viewport_size["width"]
    return "" if width == 1920 else f"-{width}"


def lesson(page, out):
    """The landing page: the chapter's first step at 1280x800 (English), the same lesson in Chinese at 1024x768."""
    for name, locale, size, query in (("lesson-chapter", "en-US", (1280, 800), "?lesson=chapter&step=1"),
                                      ("lesson-zh", "zh-CN", (1024, 768), "?lesson=chapter&step=6")):
        context = page.context.browser.new_context(locale=locale, viewport={"width": size[0], "height": size[1]})
        one = context.new_page()
        one.set_default_timeout(120_000)
        one.goto(page.url.split("?")[0] + query)
        one.wait_for_selector("#lesson[data-step]")
        drawn(one, "lesson-view")
        shoot(one, out, name)
        context.close()


def attention(page, out):
    tab(page, "Attention")  # (not assumed to be the landing tab)
    drawn(page, "attention-heatmaps")
    shoot(page, out, "attention")
    page.locator("#attention-heatmaps .al-label").nth(1).click()  # highlight one token
    box = page.locator("#attention-heatmaps canvas").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.15, box["y"] + box["height"] * 0.55)
    shoot(page, out, "attention-hover", "#attention-heatmaps")
    shoot(page, out, "headview", "#attention-heatmaps .al-headview-box")


def trained(page, out):
    page.get_by_text("trained tiny model", exact=True).click()
    drawn(page, "trained-heatmaps")
    shoot(page, out, "trained", "#trained-heatmaps")
    shoot(page, out, "trained-opened", "#trained-heatmaps .al-opened")
    page.get_by_text("random, seeded", exact=True).click()


def step(page, out):
    tab(page, "Step through")
    drawn(page, "step-weights")
    shoot(page, out, "step")  # the head picker with the first cards (Q, K, V abreast at 1920)
    shoot(page, out, "step-masked", "#step-formula-scaled")


def causality(page, out):
    tab(page, "Causality")
    drawn(page, "causality-bars")
    shoot(page, out, "causality")


def masking(page, out):
    tab(page, "Masking & scaling")
    drawn(page, "masking-sqrt-d")
    shoot(page, out, "masking")
    shoot(page, out, "masking-sqrt-d", "#masking-sqrt-d")


def transfer(page, out):
    tab(page, "Weight transfer")
    page.wait_for_function("() => { const t = document.querySelector('#transfer-verdict textarea'); return t && t.value; }")
    shoot(page, out, "transfer")


def cost(page, out):
    tab(page, "Cost")
    drawn(page, "cost-saved")
    shoot(page, out, "cost", "#cost-saved")


def model(page, out):
    tab(page, "Model")
    drawn(page, "model-chart")
    shoot(page, out, "model")


def chapter(page, out):
    tab(page, "Mistakes & interventions")
    drawn(page, "card-padding-nan-weights")
    drawn(page, "interventions-chart")
    shoot(page, out, "chapter-cards", "#card-softmax-dim")
    shoot(page, out, "chapter-interventions", "#interventions-headline")


def generate(page, out):
    tab(page, "Generate")
    drawn(page, "generate-next")
    shoot(page, out, "generate")
    old = page.locator("#generate-next .al-root").get_attribute("data-stamp")
    page.locator("#generate-step").click()
    drawn(page, "generate-rows")
    drawn(page, "generate-cache")
    page.wait_for_function("old => { const e = document.querySelector('#generate-next .al-root');"
                           " return e && e.dataset.stamp && e.dataset.stamp !== old; }", arg=old)
    shoot(page, out, "generate-step", "#generate-rows")
    shoot(page, out, "generate-cache", "#generate-cache")
    page.wait_for_function("() => { const e = document.querySelector('#generate-cache-summary');"
                           " return e && e.innerText.includes('T = '); }")
    shoot(page, out, "generate-measured", "#generate-cache-summary")


def chinese(page, out):
    """The Attention tab in a browser whose language is Chinese, on the course chapter's sentence."""
    context = page.context.browser.new_context(locale="zh-CN", viewport=page.viewport_size)
    zh = context.new_page()
    zh.set_default_timeout(120_000)
    zh.goto(page.url)
    tab(zh, "注意力")  # the landing page is the Lesson tab; a Chinese page opens the Attention tab on the chapter
    drawn(zh, "attention-heatmaps")
    zh.wait_for_function("() => document.querySelector('#sentence textarea').value.includes('违约金')")
    shoot(zh, out, "attention-zh")
    context.close()


SHOTS = {"lesson": lesson, "attention": attention, "trained": trained, "step": step, "causality": causality, "masking": masking,
         "transfer": transfer, "chapter": chapter, "cost": cost, "model": model, "generate": generate,
         "chinese": chinese}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running app (default: start one)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--only", default=",".join(SHOTS))
    parser.add_argument("--sizes", default="1920x1080,1280x800", help="viewports, WIDTHxHEIGHT, comma-separated")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    proc, url = None, args.url
    if url is None:
        os.environ.setdefault("ATTENTION_LAB_WARM", "0")
        proc, url, _ = start_app()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for size in args.sizes.split(","):
                width, height = (int(v) for v in size.split("x"))
                page = browser.new_page(viewport={"width": width, "height": height})
                page.set_default_timeout(120_000)
                page.goto(url)
                for name in args.only.split(","):
                    SHOTS[name](page, out)
                page.close()
            browser.close()
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
