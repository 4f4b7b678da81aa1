// Model view: every layer x head of a model as small multiples; click one to open it (a full heatmap with
// hover, the measured description, and the head view of its layer). Contract: core/render/matrix.py.
(function () {
  "use strict";
  const A = window.AttnLab;
  if (!A || !A.needs) throw new Error("modelview.js needs core.js, loaded before it");
  A.needs("modelview.js", ["el", "fill", "colormap", "css", "unpackHeads"]);
  const GAP = 14;

  // One head as a T x T pixel image, scaled up by CSS (pixelated): one putImageData per head, not T*T fills.
  function paint(canvas, values, cmap, scale) {
    const n = Math.max(1, values.length);
    if (canvas.width !== n) canvas.width = canvas.height = n;
    const image = new ImageData(n, n);
    const px = image.data;
    const span = scale.max - scale.min || 1;
    for (let i = 0; i < values.length; i++) {
      const row = values[i];
      for (let j = 0; j < values.length; j++) {
        const c = cmap((Number(row[j]) - scale.min) / span);
        const at = 4 * (i * n + j);
        px[at] = c[0];
        px[at + 1] = c[1];
        px[at + 2] = c[2];
        px[at + 3] = 255;
      }
    }
    canvas.getContext("2d").putImageData(image, 0, 0);
  }

  function thumb(values, size, cmap, scale) {
    const canvas = A.el("canvas", "al-thumb");
    canvas.style.width = canvas.style.height = size + "px";
    canvas.style.imageRendering = "pixelated";
    paint(canvas, values, cmap, scale);
    canvas.setAttribute("aria-hidden", "true");  // (the button says what it shows; its numbers open below)
    return canvas;
  }

  // A compact view (core/render/model_pack.py): every head's weights in one base64 uint16 array (L, H, T, T),
  // fractions of the scale, and the mask once (or each layer's). Decoded once per view object.
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
    const all = data.blocked_all ? A.unpack(data.blocked_all) : null;
    const masks = data.blocked_masks ? data.blocked_masks.map((m) => A.unpack(m)) : null;  // a band, a triangle
    layers = data.layers.map((heads, l) => heads.map((head, h) => {
      const at = (l * H + h) * T * C;
      const values = [];
      for (let i = 0; i < T; i++) values.push(flat.subarray(at + i * C, at + (i + 1) * C));
      const blocked = masks ? masks[data.blocked_index[l]] : all;
      return Object.assign({}, head, { values: values, blocked: blocked });
    }));
    decoded.set(data, layers);
    return layers;
  }

  function layerLabel(data, labels, l) {
    const note = (data.layer_notes || [])[l];
    return A.fill(labels.layer, { layer: l }) + (note ? " · " + note : "");
  }

  // The small multiples, built once per shape (layers, heads, tokens); a toggle that keeps the shape repaints them
  // in place (no new canvases, no new layout: 270 of them for SmolLM2).
  function buildGrid(root, data, layers, ctx, cmap) {
    const state = ctx.state;
    const labels = data.labels || {};
    const H = Math.max(...layers.map((l) => l.length), 1);
    const groups = data.groups > 1 ? data.groups : 0;  // query heads per key/value head: a group drawn together
    const W = root.clientWidth;
    const labelW = 90;
    const extra = groups ? (H / groups) * GAP : 0;  // a gap between groups
    const size = Math.max(36, Math.min(170, Math.floor((W - labelW - extra - H * (GAP + 8)) / H)));  // every head in the row
    const grid = A.el("div", "al-model");
    const cells = [], rowLabels = [];
    layers.forEach((heads, l) => {
      const line = A.el("div", "al-model-row");
      const label = A.el("div", "al-model-layer", layerLabel(data, labels, l));
      rowLabels.push(label);
      line.appendChild(label);
      cells.push(heads.map((head, h) => {
        if (groups && h > 0 && h % groups === 0) line.appendChild(A.el("div", "al-model-group-gap"));
        const b = A.el("button", "al-model-head");
        b.type = "button";
        b.dataset.layer = String(l);
        b.dataset.modelHead = String(h);
        b.style.width = size + 8 + "px";
        b.setAttribute("aria-label", A.fill(labels.opened, { layer: l, head: h, title: head.title })); // opened, it
        const canvas = thumb(head.values, size, cmap, data.scale); // draws its heatmap and table of numbers below
        const title = A.el("span", "al-model-title", head.title);
        b.append(canvas, title);
        b.addEventListener("click", () => {
          state.open = [l, h];
          A.views.modelview(root, state.mvData, ctx);
          const again = root.querySelector(`.al-model-head[data-layer="${l}"][data-model-head="${h}"]`);
          if (again) again.focus({ preventScroll: true }); // (the keyboard stays on the head it opened)
        });
        line.appendChild(b);
        return { button: b, canvas: canvas, title: title };
      }));
      grid.appendChild(line);
    });
    return { grid: grid, cells: cells, rowLabels: rowLabels, width: W };
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
    state.mvData = data;
    const cmap = A.colormap(data.scale.stops);
    const shape = [key, layers.map((l) => l.length).join(","), data.groups || 0, root.clientWidth].join("|");
    let g = state.mvGrid;
    if (!g || g.shape !== shape || g.grid.grid.parentNode !== root) {
      g = state.mvGrid = { shape: shape, grid: buildGrid(root, data, layers, ctx, cmap) };
    } else {  // the same shape: repaint the thumbnails and their words where they are
      layers.forEach((heads, l) => {
        g.grid.rowLabels[l].textContent = layerLabel(data, labels, l);
        heads.forEach((head, h) => {
          const cell = g.grid.cells[l][h];
          paint(cell.canvas, head.values, cmap, data.scale);
          if (cell.title.textContent !== head.title) cell.title.textContent = head.title;
          cell.button.setAttribute("aria-label", A.fill(labels.opened, { layer: l, head: h, title: head.title }));
        });
      });
    }
    g.grid.cells.forEach((row, l) => row.forEach((cell, h) => {
      cell.button.setAttribute("aria-pressed", String(state.open[0] === l && state.open[1] === h));
    }));
    if (!g.header || g.header.parentNode !== root || g.opened.parentNode !== root) {
      g.header = A.el("div", "al-model-header");
      g.opened = A.el("div", "al-opened");
      root.replaceChildren(g.header, g.grid.grid, g.opened);  // built once per shape; a toggle keeps them in place
    }
    const header = document.createDocumentFragment();
    header.appendChild(A.el("div", "al-view-title", labels.title));
    if (labels.warning) header.appendChild(A.el("div", "al-warning", labels.warning));
    header.appendChild(A.el("div", "al-note", labels.help));
    g.header.replaceChildren(header);
    const [ol, oh] = state.open;
    const layer = layers[ol] || [];
    const head = layer[oh];
    if (!head) {
      g.opened.replaceChildren();
      return;
    }
    const big = A.el("div", "al-opened-map");
    const lines = A.el("div", "al-headview-box");
    g.opened.replaceChildren(
      A.el("div", "al-view-title", A.fill(labels.opened, { layer: ol, head: oh, title: head.title })),
      A.el("p", "al-description", (data.descriptions[ol] || [])[oh]), big, lines);
    const one = Object.assign({}, data, {
      kind: "heatmaps", heads: [head], max_columns: 1, headview: null,
      height_budget: Math.max(420, 0.8 * window.innerHeight), labels: data.heatmap_labels,
    });
    ctx.sub = ctx.sub || { state: {} };
    A.views.heatmaps(big, one, ctx.sub);
    const layerData = Object.assign({}, data, { heads: layer, headview: { labels: data.heatmap_labels } });
    ctx.subHv = ctx.subHv || { state: {} };
    A.views.headview(lines, layerData, ctx.subHv);
  };
})();
