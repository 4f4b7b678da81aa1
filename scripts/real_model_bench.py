"""The Real model tab at real shapes, in Chromium: first paint, a toggle's paint, server RSS; and the forward pass alone.

    python scripts/real_model_bench.py                       # SmolLM2-135M's and Qwen2.5-0.5B's shapes
    python scripts/real_model_bench.py --shapes smollm2 --reps 40
    python scripts/real_model_bench.py --shapes gpt2         # GPT-2 small's shape, by ATTENTION_LAB_GPT2

Offline: each model is the real architecture at its real shape (SmolLM2-135M: Llama, 30 layers, 9 query heads
over 3 KV heads, a 49,152-word head; Qwen2.5-0.5B: Qwen2, 24 layers, 14 query heads over 2 KV heads, a 151,936-word
head; GPT-2 small) with random weights, saved by transformers into a temporary folder with a byte-level BPE
trained here, so the sentence is ~24 tokens; speed does not depend on the weights' values. The app is started with
ATTENTION_LAB_MODELS (or ATTENTION_LAB_GPT2) naming it. First, in this process: one eager forward pass of the
sentence with every attention map in transformers alone, and the same pass through the lab's attention
(core.model.lab_forward), median of 10. Then timed in the page (a click or key press -> the next frame after the
view's stamp changed): tab click -> the model view drawn, cold (the click loads the model) and as the next visitor
finds it (model loaded, the default sentence computed: what the app's warm-up leaves); a click on the causal mask ->
the view redrawn (both settings cached after the first two), and a new head zeroed each time (a forward pass
each), p50/p95. RSS: the app with the model loaded against the same app without it, and the model's fp32 size.
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


def config(shape: str):
    """The real configurations (from the models' config.json), for random weights at their shapes."""
    import transformers

    if shape == "smollm2":  # HuggingFaceTB/SmolLM2-135M
        return transformers.LlamaConfig(vocab_size=49152, hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                                        num_attention_heads=9, num_key_value_heads=3, max_position_embeddings=8192,
                                        rope_theta=100000.0, rms_norm_eps=1e-5, tie_word_embeddings=True)
    if shape == "qwen2.5":  # Qwen/Qwen2.5-0.5B
        return transformers.Qwen2Config(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                                        num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                                        rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True,
                                        use_sliding_window=False)
    return transformers.GPT2Config()  # GPT-2 small: n_embd 768, 12 layers, 12 heads


def make_checkpoint(folder: Path, shape: str) -> int:
    """The shape's model with random weights and a BPE tokenizer trained on the lab's own corpus; its parameters."""
    import tokenizers
    import torch
    import transformers

    from core.corpus import generate

    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator([*generate(400, seed=0), SENTENCE] * 3, vocab_size=2000, min_frequency=1,
                            special_tokens=["<|endoftext|>"], show_progress=False)
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config(shape))
    model.save_pretrained(folder)
    transformers.PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer).save_pretrained(folder)
    print(f"{shape}: {sum(p.numel() for p in model.parameters()):,} parameters; tokens in the sentence: "
          f"{len(bpe.encode(SENTENCE).ids)}")
    return sum(p.numel() for p in model.parameters())


def forward_alone(folder: Path, reps: int = 10) -> tuple[float, float]:
    """ms (median) of one forward pass with every attention map: transformers' eager alone, and the lab's attention."""
    import torch
    import transformers

    from core.model import lab_forward, load_pretrained

    eager = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    model, tokenizer = load_pretrained(folder)
    ids = tokenizer.encode(SENTENCE)
    idx = torch.tensor([ids])

    def timed(fn) -> float:
        fn()
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times)

    from core.lab.tiny import one_thread

    with torch.no_grad(), one_thread():  # one thread, as the app runs a forward pass in each CPU slot
        alone = timed(lambda: eager(idx, output_attentions=True, use_cache=False))
        lab = timed(lambda: lab_forward(model, ids))
    return alone, lab


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def serve(port: int, folder: Path | None, shape: str = "") -> subprocess.Popen:
    env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "ATTENTION_LAB_WARM": "0", "PYTHONPATH": str(ROOT),
           "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}
    env.pop("ATTENTION_LAB_GPT2", None)
    env.pop("ATTENTION_LAB_MODELS", None)
    if folder is not None:
        env["ATTENTION_LAB_GPT2" if shape == "gpt2" else "ATTENTION_LAB_MODELS"] = str(folder)
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


def bench_shape(browser, shape: str, folder: Path, args, without: float) -> None:
    """One shape: the forward pass alone, then the page's timings and the server's memory."""
    params = make_checkpoint(folder, shape)
    alone, lab = forward_alone(folder)
    server = serve(args.port, folder, shape)
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
        heads = config(shape).num_attention_heads
        zeroed = timed(page, lambda i: (ablate.fill(f"[[{i % 12}, {(i // 12) % heads}]]"), ablate.press("Enter")),
                       args.reps, 1)
        loaded = rss_mb(server.pid)
    finally:
        stop(server)
    fp32 = params * 4 / 2**20
    print(f"== {shape} ({params / 1e6:.0f}M parameters, {fp32:.0f} MB in fp32)")
    print(f"one forward pass of the sentence with every attention map, one thread: transformers' eager alone {alone:.0f} ms, "
          f"through the lab's attention {lab:.0f} ms (x{lab / alone:.2f})")
    print(f"model view first paint: {first:.0f} ms (model loaded, as the warm-up leaves it); "
          f"{cold:.0f} ms cold (the click loads the model)")
    print(f"causal-mask toggle to repaint: {figures(toggles)}; server CPU {cpu:.0f} ms per toggle")
    print(f"a new head zeroed (one forward pass each) to repaint: {figures(zeroed)}")
    print(f"server RSS: {without:.0f} MB without it, {loaded:.0f} MB with it loaded (+{loaded - without:.0f} MB; "
          f"the bound is its fp32 size + 1 GB = {fp32 + 1024:.0f} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--warm", type=int, default=3)
    parser.add_argument("--port", type=int, default=7961)
    parser.add_argument("--shapes", default="smollm2,qwen2.5", help="comma list of smollm2, qwen2.5, gpt2")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    print(f"load average at the start: {load()}")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        server = serve(args.port, None)  # the app with no real model, the tab drawn with the tiny model
        try:
            opened(browser, args.port)[0].close()
            without = rss_mb(server.pid)
        finally:
            stop(server)
        for shape in args.shapes.split(","):
            bench_shape(browser, shape.strip(), Path(tmp) / shape.strip(), args, without)
            print(f"load average now: {load()}")
        browser.close()


if __name__ == "__main__":
    main()
