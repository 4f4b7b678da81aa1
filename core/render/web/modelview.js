// Model view: every layer x head of a model as small multiples; click one to open it (a full heatmap with
// hover, the measured description, and the head view of its layer). Contract: core/render/matrix.py.
(function () {
  "use strict";
  const A = window.AttnLab;
  if (!A || !A.needs) throw new Error("modelview.js needs core.js, loaded before it");
  A.needs("modelview.js", ["el", "fill", "colormap", "css", "unpackHeads"]);
  const GAP = 14;

  // One head as a T x T pixel image, scaled up by CSS (pixelated): one putImageData per head, not T*T fills.
  function thumb(values, size, cmap, scale) {
    const n = values.length;
    const canvas = A.el("canvas", "al-thumb");
    canvas.width = canvas.height = Math.max(1, n);
    canvas.style.width = canvas.style.height = size + "px";
    canvas.style.imageRendering = "pixelated";
    const image = new ImageData(Math.max(1, n), Math.max(1, n));
    const px = image.data;
    const span = scale.max - scale.min || 1;
    for (let i = 0; i < n; i++) {
      const row = values[i];
      for (let j = 0; j < n; j++) {
        const c = cmap((Number(row[j]) - scale.min) / span);
        const at = 4 * (i * n + j);
        px[at] = c[0];
        px[at + 1] = c[1];
        px[at + 2] = c[2];
        px[at + 3] = 255;
      }
    }
    canvas.getContext("2d").putImageData(image, 0, 0);
    canvas.setAttribute("aria-hidden", "true");
    return canvas;
  }

  // A compact view (core/render/model_pack.py): every head's weights in one base64 uint16 array (L, H, T, T),
  // fractions of the scale, and the mask once. Decoded once per view object; a click redraws from the cache.
  const decoded = new WeakMap();
  function compactLayers(data) {
    let layers = decoded.get(data);
    if (layers) return layers;
    const bin = atob(data.values.u16);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const view = new DataView(bytes.buffer);
    const [L, H, T, C] = data.values.shape;
    const lo = data.scale.min, span = data.scale.max - data.scale.min;
    const flat = new Float32Array(L * H * T * C);
    for (let n = 0; n < flat.length; n++) flat[n] = lo + (view.getUint16(2 * n, true) / 65535) * span;
    const blocked = data.blocked_all ? A.unpack(data.blocked_all) : null;
    layers = data.layers.map((heads, l) => heads.map((head, h) => {
      const at = (l * H + h) * T * C;
      const values = [];
      for (let i = 0; i < T; i++) values.push(flat.subarray(at + i * C, at + (i + 1) * C));
      return Object.assign({}, head, { values: values, blocked: blocked });
    }));
    decoded.set(data, layers);
    return layers;
  }

  A.views.modelview = function (root, data, ctx) {
    const state = ctx.state;
    const layers = data.values && data.values.u16 ? compactLayers(data) : (data.layers || []).map((heads) => A.unpackHeads(heads));
    const labels = data.labels || {};
    const key = (data.rows || []).join("\u0000");
    if (!state.open || state.mvKey !== key || state.mvSelected !== String(data.selected)) {
      state.open = (data.selected || [0, 0]).slice();
      state.mvKey = key;
      state.mvSelected = String(data.selected);
    }
    const cmap = A.colormap(data.scale.stops);
    const H = Math.max(...layers.map((l) => l.length), 1);
    const W = root.clientWidth;
    const labelW = 90;
    const size = Math.max(36, Math.min(170, Math.floor((W - labelW - H * (GAP + 8)) / H)));  // every head in the row
    const frag = document.createDocumentFragment();
    frag.appendChild(A.el("div", "al-view-title", labels.title));
    if (labels.warning) frag.appendChild(A.el("div", "al-warning", labels.warning));
    frag.appendChild(A.el("div", "al-note", labels.help));
    const grid = A.el("div", "al-model");
    layers.forEach((heads, l) => {
      const line = A.el("div", "al-model-row");
      line.appendChild(A.el("div", "al-model-layer", A.fill(labels.layer, { layer: l })));
      heads.forEach((head, h) => {
        const b = A.el("button", "al-model-head");
        b.type = "button";
        b.dataset.layer = String(l);
        b.dataset.modelHead = String(h);
        b.style.width = size + 8 + "px";
        b.setAttribute("aria-pressed", String(state.open[0] === l && state.open[1] === h));
        b.setAttribute("aria-label", A.fill(labels.opened, { layer: l, head: h, title: head.title })); // opened, it
        b.appendChild(thumb(head.values, size, cmap, data.scale)); // draws its heatmap and table of numbers below
        b.appendChild(A.el("span", "al-model-title", head.title));
        b.addEventListener("click", () => {
          state.open = [l, h];
          A.views.modelview(root, data, ctx);
          const again = root.querySelector(`.al-model-head[data-layer="${l}"][data-model-head="${h}"]`);
          if (again) again.focus({ preventScroll: true }); // (the keyboard stays on the head it opened)
        });
        line.appendChild(b);
      });
      grid.appendChild(line);
    });
    frag.appendChild(grid);
    const [ol, oh] = state.open;
    const layer = layers[ol] || [];
    const head = layer[oh];
    const opened = A.el("div", "al-opened");
    if (head) {
      opened.appendChild(A.el("div", "al-view-title", A.fill(labels.opened, { layer: ol, head: oh, title: head.title })));
      opened.appendChild(A.el("p", "al-description", (data.descriptions[ol] || [])[oh]));
      const big = A.el("div", "al-opened-map");
      opened.appendChild(big);
      const lines = A.el("div", "al-headview-box");
      opened.appendChild(lines);
      frag.appendChild(opened);
      root.replaceChildren(frag);
      const one = Object.assign({}, data, {
        kind: "heatmaps", heads: [head], max_columns: 1, headview: null,
        height_budget: Math.max(420, 0.8 * window.innerHeight), labels: data.heatmap_labels,
      });
      ctx.sub = ctx.sub || { state: {} };
      A.views.heatmaps(big, one, ctx.sub);
      const layerData = Object.assign({}, data, { heads: layer, headview: { labels: data.heatmap_labels } });
      ctx.subHv = ctx.subHv || { state: {} };
      A.views.headview(lines, layerData, ctx.subHv);
    } else {
      root.replaceChildren(frag);
    }
  };
})();
