"""The Real model tab with a GPT-2-small-sized model, in Chromium: first paint, a toggle's paint, server RSS.

    python scripts/real_model_bench.py              # 20 toggles after 3 untimed, 1280x800
    python scripts/real_model_bench.py --reps 40

Offline: the model is GPT-2 small's shape (124M parameters, fp32, 50,257-word head) with random weights,
saved by transformers into a temporary folder with a byte-level BPE trained here, so the sentence is ~20
tokens; speed does not depend on the weights' values. The app is started with ATTENTION_LAB_GPT2 naming it.
Timed in the page (a click or key press -> the next frame after the view's stamp changed),
tab click -> the model view drawn, cold (the click loads the model) and as the next visitor finds it
(model loaded, the default sentence computed: what the app's warm-up leaves); a click on the causal mask ->
the view redrawn (its stamp changes; both settings cached after the first two), and a new head zeroed each
time (a forward pass each), p50/p95. RSS: the app with GPT-2 loaded against the same app without it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]
SENTENCE = "The cat sat on the mat because it was tired , and the dog that chased it ran away from the house"


def make_checkpoint(folder: Path) -> None:
    """GPT-2 small's shape, random weights, and a BPE tokenizer trained on the lab's own corpus."""
    import tokenizers
    import torch
    import transformers

    from core.corpus import generate

    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator([*generate(400, seed=0), SENTENCE] * 3, vocab_size=2000, min_frequency=1,
                            special_tokens=["<|endoftext|>"], show_progress=False)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(transformers.GPT2Config())  # 124M: n_embd 768, 12 layers, 12 heads
    model.save_pretrained(folder)
    transformers.PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer).save_pretrained(folder)
    print(f"tokens in the sentence: {len(bpe.encode(SENTENCE).ids)}")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def serve(port: int, gpt2: Path | None) -> subprocess.Popen:
    env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "ATTENTION_LAB_WARM": "0", "PYTHONPATH": str(ROOT),
           "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}
    env.pop("ATTENTION_LAB_GPT2", None)
    if gpt2 is not None:
        env["ATTENTION_LAB_GPT2"] = str(gpt2)
    server = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
            return server
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the app did not start")


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    server.wait(timeout=30)


# In the page: the time of the last click or key press, and of the frame after the model view's stamp changed
# (its drawing is on screen). Playwright's own polling adds 100-300 ms on a loaded machine; this does not.
CLOCK = """() => {
  window.__al = {};
  for (const kind of ["click", "keydown"]) document.addEventListener(kind, () => { window.__al.start = performance.now(); }, true);
  new MutationObserver((changes) => {
    if (!changes.some((c) => c.target.matches && c.target.matches("#real-model-view .al-root"))) return;
    const stamp = document.querySelector("#real-model-view .al-root").dataset.stamp;
    requestAnimationFrame(() => { window.__al.painted = performance.now(); window.__al.stamp = stamp; });
  }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ["data-stamp"] });
}"""
PAINTED = "s => window.__al && window.__al.stamp && window.__al.stamp !== s && window.__al.painted"


def painted(page, before: str | None) -> float:
    """ms from the last click or key press to the frame that shows the model view's new drawing."""
    try:
        page.wait_for_function(PAINTED, arg=before, timeout=120_000)
    except Exception:
        raise SystemExit("not redrawn: " + page.locator("#real-problem textarea").input_value()) from None
    return page.evaluate("() => window.__al.painted - window.__al.start")


def opened(browser, port: int):
    """A new visitor's page with the Real model tab clicked: (page, ms from the click to the thumbnails shown)."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"http://127.0.0.1:{port}/")
    tab = page.get_by_role("tab", name="Real model", exact=True)
    tab.wait_for()
    page.evaluate(CLOCK)
    page.wait_for_timeout(1000)  # the page settled: only the tab's own work is timed
    tab.click()
    return page, painted(page, None)


def timed(page, act, n: int, warm: int) -> list[float]:
    """ms from act(i)'s last click or key to the model view's new drawing shown, n times after `warm` untimed."""
    times = []
    for i in range(warm + n):
        before = page.evaluate("() => window.__al.stamp")
        act(i)
        ms = painted(page, before)
        if i >= warm:
            times.append(ms)
    return sorted(times)


def figures(times: list[float]) -> str:
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return f"p50 {statistics.median(times):.0f} ms, p95 {p95:.0f} ms ({len(times)} reps)"


def cpu_ms(pid: int) -> float:
    """The process' CPU time so far (user + system), ms."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--warm", type=int, default=3)
    parser.add_argument("--port", type=int, default=7961)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    print(f"load average at the start: {load()}")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        folder = Path(tmp) / "gpt2-small-random"
        make_checkpoint(folder)
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        server = serve(args.port, None)  # the app without GPT-2, the tab drawn with the tiny model
        try:
            opened(browser, args.port)[0].close()
            without = rss_mb(server.pid)
        finally:
            stop(server)
        server = serve(args.port, folder)
        try:
            page, cold = opened(browser, args.port)
            page.close()
            page, first = opened(browser, args.port)
            box = page.locator("#real-sentence textarea")
            timed(page, lambda i: (box.fill(SENTENCE), box.press("Enter")), 1, 0)
            timed(page, lambda i: page.locator("#real-causal input").click(), args.warm, 0)
            cpu = cpu_ms(server.pid)
            toggles = timed(page, lambda i: page.locator("#real-causal input").click(), args.reps, 0)
            cpu = (cpu_ms(server.pid) - cpu) / args.reps
            ablate = page.locator("#real-ablate textarea")
            zeroed = timed(page, lambda i: (ablate.fill(f"[[{i % 12}, {(i // 12) % 12}]]"), ablate.press("Enter")),
                           args.reps, 1)
            loaded = rss_mb(server.pid)
        finally:
            stop(server)
        browser.close()
    print(f"model view first paint: {first:.0f} ms (model loaded, as the warm-up leaves it); "
          f"{cold:.0f} ms cold (the click loads the model)")
    print(f"causal-mask toggle to repaint: {figures(toggles)}; server CPU {cpu:.0f} ms per toggle")
    print(f"a new head zeroed (one forward pass each) to repaint: {figures(zeroed)}")
    print(f"server RSS: {without:.0f} MB without GPT-2, {loaded:.0f} MB with it loaded (+{loaded - without:.0f} MB)")
    print(f"load average at the end: {load()}")


if __name__ == "__main__":
    main()
