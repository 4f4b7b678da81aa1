"""Which drawing technology for the attention heatmaps: click-to-paint of the same numbers, three ways.

    python scripts/view_tech_bench.py                       # T = 12 x 4 heads and T = 64 x 8 heads, 20 clicks each
    python scripts/view_tech_bench.py --ways html-canvas,plotly --reps 40

Each way is a tiny Gradio app with one button that swaps between two precomputed sets of weights (no
attention is computed: only sending and drawing are timed), measured in Debian's Chromium from the
click's pointerdown to the first frame painted after the view changed:

- html-canvas: gr.HTML with the lab's renderer (core/render/web: cells on a canvas, labels as DOM text);
- html-dom:    gr.HTML, one <div> per cell with its value as text (what a plain DOM grid costs, same data);
- plotly:      gr.Plot with a plotly heatmap per head (Gradio bundles plotly.js; needs `pip install plotly`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("GRADIO_RUN_HISTORY", "False")  # as the lab: Gradio's run history costs ~1 ms per KB of output

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]
WAYS = ("html-canvas", "html-dom", "plotly")

DOM_JS = """
const draw = () => {
  const d = props.value; if (!d) return;
  const root = element.querySelector('.grid-root'); root.replaceChildren();
  const T = d.rows.length, cell = Math.max(8, Math.floor((root.clientWidth - 40) / (Math.min(d.heads.length, 2) * T)));
  for (const h of d.heads) {
    const bin = atob(h.values.f32), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const flat = new Float32Array(bytes.buffer), head = {values: []};
    for (let i = 0; i < T; i++) head.values.push(Array.from(flat.subarray(i * T, (i + 1) * T)));
    const g = document.createElement('div');
    g.style.display = 'inline-grid'; g.style.gridTemplateColumns = `repeat(${T}, ${cell}px)`; g.style.margin = '8px';
    head.values.forEach((row, i) => row.forEach((v, j) => {
      const c = document.createElement('div');
      c.style.height = cell + 'px'; c.style.background = `hsl(${260 - 200 * v}, 70%, ${20 + 50 * v}%)`;
      c.style.fontSize = '11px'; c.style.color = '#fff'; c.title = `${d.rows[i]} -> ${d.rows[j]}: ${v}`;
      if (T <= 16) c.textContent = Number(v).toFixed(2);
      g.appendChild(c);
    }));
    root.appendChild(g);
  }
  root.dataset.stamp = d.stamp;
};
watch('value', draw); draw();
"""

SIGNATURE = """() => {
  const r = document.querySelector('#out .al-root, #out .grid-root');
  if (r) return r.dataset.stamp || '';
  const p = document.querySelector('#out .js-plotly-plot');
  return p && p.data && p.data.length ? JSON.stringify(p.data.map(d => d.z)) : '';
}"""
ARM = """() => {
  window.__t0 = null;
  document.addEventListener('pointerdown', e => { if (window.__t0 === null) window.__t0 = e.timeStamp; }, {capture: true});
  window.__old = (SIGNATURE)();
}""".replace("SIGNATURE", SIGNATURE)
PAINTED = """async () => {
  const sig = SIGNATURE;
  const ok = await new Promise(resolve => {
    if (sig() !== window.__old) return resolve(true);
    const obs = new MutationObserver(() => { if (sig() !== window.__old) { obs.disconnect(); resolve(true); } });
    obs.observe(document.body, {subtree: true, childList: true, attributes: true});
    setTimeout(() => { obs.disconnect(); resolve(false); }, 30000);
  });
  if (!ok) throw new Error('the view did not change within 30 s');
  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - window.__t0;
}""".replace("SIGNATURE", SIGNATURE)


def datasets(T: int, H: int):
    """Two sets of softmax rows (H, T, T), causal, and their tokens."""
    import numpy as np

    rng = np.random.default_rng(T * 100 + H)
    out = []
    for _ in range(2):
        s = rng.normal(size=(H, T, T))
        s[:, np.triu(np.ones((T, T), dtype=bool), 1)] = -np.inf
        w = np.exp(s - s.max(-1, keepdims=True))
        out.append(w / w.sum(-1, keepdims=True))
    return [f"w{i}" for i in range(T)], out


def value_for(way: str, tokens, w):
    import numpy as np

    from core.render import matrix

    if way.startswith("html"):
        return matrix.attention(tokens, w, np.tril(np.ones(w.shape[1:], dtype=bool)))
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    H = w.shape[0]
    cols = min(H, 2 if H <= 4 else 4)
    fig = make_subplots(rows=-(-H // cols), cols=cols, subplot_titles=[f"head {h}" for h in range(H)])
    labels = [f"{i} {t}" for i, t in enumerate(tokens)]
    for h in range(H):
        fig.add_trace(go.Heatmap(z=w[h], x=labels, y=labels, zmin=0, zmax=1, colorscale="Viridis",
                                 showscale=h == 0, texttemplate="%{z:.2f}" if len(tokens) <= 16 else None,
                                 hovertemplate="query %{y} → key %{x}: weight %{z:.2f}<extra></extra>"),
                      row=h // cols + 1, col=h % cols + 1)
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(height=420 * -(-H // cols), font={"size": 14})
    return fig


def app(way: str, tokens, sets):
    import gradio as gr

    from core.render import web

    values = [value_for(way, tokens, w) for w in sets]
    gr.set_static_paths([web.ASSETS])
    with gr.Blocks() as demo:
        button = gr.Button("swap", elem_id="swap")
        state = gr.State(0)
        if way == "html-canvas":
            out = gr.HTML(values[0], html_template=web.TEMPLATE, js_on_load=web.JS_ON_LOAD, head=web.head(),
                          elem_id="out", apply_default_css=False)
        elif way == "html-dom":
            out = gr.HTML(values[0], html_template='<div class="grid-root"></div>', js_on_load=DOM_JS, elem_id="out")
        else:
            out = gr.Plot(values[0], elem_id="out")
        button.click(lambda i: (values[1 - i], 1 - i), state, [out, state], queue=False)  # as the Attention tab
    return demo


def measure(way: str, T: int, H: int, reps: int, warm: int) -> dict:
    from playwright.sync_api import sync_playwright

    tokens, sets = datasets(T, H)
    demo = app(way, tokens, sets)
    demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True, ssr_mode=False, run_history=False)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(demo.local_url)
            page.wait_for_function(f"() => ({SIGNATURE})() !== ''", timeout=120_000)
            ms = []
            for i in range(warm + reps):
                page.evaluate(ARM)
                page.locator("#swap").click()
                t = page.evaluate(PAINTED)
                if i >= warm:
                    ms.append(t)
            browser.close()
    finally:
        demo.close()
    qs = statistics.quantiles(ms, n=20, method="inclusive")
    return {"way": way, "T": T, "heads": H, "n": len(ms), "p50_ms": round(statistics.median(ms), 1),
            "p95_ms": round(qs[18], 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ways", default=",".join(WAYS))
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--warm", type=int, default=3)
    parser.add_argument("--shapes", default="12x4,64x8", help="TxH, comma separated")
    args = parser.parse_args()
    results = {"loadavg_before": [round(x, 2) for x in os.getloadavg()], "runs": []}
    for shape in args.shapes.split(","):
        T, H = (int(v) for v in shape.split("x"))
        for way in args.ways.split(","):
            t0 = time.perf_counter()
            r = measure(way, T, H, args.reps, args.warm)
            r["seconds"] = round(time.perf_counter() - t0, 1)
            results["runs"].append(r)
            print(r, flush=True)
    results["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
