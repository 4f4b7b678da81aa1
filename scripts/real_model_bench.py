"""The Real model tab with a GPT-2-small-sized model, in Chromium: first paint, a toggle's paint, server RSS.

    python scripts/real_model_bench.py              # 20 toggles after 3 untimed, 1280x800
    python scripts/real_model_bench.py --reps 40

Offline: the model is GPT-2 small's shape (124M parameters, fp32, 50,257-word head) with random weights,
saved by transformers into a temporary folder with a byte-level BPE trained here, so the sentence is ~20
tokens; speed does not depend on the weights' values. The app is started with ATTENTION_LAB_GPT2 naming it.
Timed: tab click -> the model view drawn (first paint, which loads the model), and a click on the causal
mask -> the view redrawn with the new numbers (its stamp changes), p50/p95 over the repetitions.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--warm", type=int, default=3)
    parser.add_argument("--port", type=int, default=7961)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "gpt2-small-random"
        make_checkpoint(folder)
        env = {**os.environ, "GRADIO_SERVER_PORT": str(args.port), "ATTENTION_LAB_WARM": "0",
               "ATTENTION_LAB_GPT2": str(folder), "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}
        server = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{args.port}/"
            for _ in range(600):
                try:
                    urllib.request.urlopen(url, timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(url)
                page.get_by_role("tab", name="Attention", exact=True).wait_for()
                idle = rss_mb(server.pid)
                t0 = time.perf_counter()
                page.get_by_role("tab", name="Real model", exact=True).click()
                page.wait_for_selector("#real-model-view .al-thumb", timeout=120_000)
                first = (time.perf_counter() - t0) * 1000
                page.locator("#real-sentence textarea").fill(SENTENCE)
                page.locator("#real-sentence textarea").press("Enter")
                times = []
                for i in range(args.warm + args.reps):
                    before = page.locator("#real-model-view .al-root").get_attribute("data-stamp")
                    t0 = time.perf_counter()
                    page.locator("#real-causal input").click()
                    page.wait_for_function("s => document.querySelector('#real-model-view .al-root').dataset.stamp"
                                           " !== s", arg=before, timeout=60_000)
                    if i >= args.warm:
                        times.append((time.perf_counter() - t0) * 1000)
                loaded = rss_mb(server.pid)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(f"first paint of the model view (tab click, model loaded on it): {first:.0f} ms")
    print(f"causal-mask toggle to repaint, {len(times)} reps: p50 {statistics.median(times):.0f} ms, p95 {p95:.0f} ms")
    print(f"server RSS: {idle:.0f} MB before GPT-2 is loaded, {loaded:.0f} MB after (+{loaded - idle:.0f} MB)")
    print(f"load average: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")


if __name__ == "__main__":
    main()
