// Head view, in the manner of BertViz: pick a token on the left, see lines to the tokens it attends to on the
// right; line thickness = weight, one colour per head, heads switched on and off. Same data as the heatmaps.
(function () {
  "use strict";
  const A = window.AttnLab;
  if (!A || !A.needs) throw new Error("headview.js needs core.js, loaded before it");
  A.needs("headview.js", ["el", "fill", "num", "svg", "tokenLabel", "tooltip", "unpackHeads", "schemed", "ink",
    "rgb", "say"]);
  const MAX_STROKE = 14; // px: a weight of 1 (fewer px when many heads share a row: each keeps its own lane)

  A.views.headview = function (root, data, ctx, width) {
    const state = ctx.state;
    const tokens = data.rows || [], heads = A.unpackHeads(data.heads);
    const labels = (data.headview && data.headview.labels) || data.labels || {};
    const colours = A.schemed(data.head_colors || ["#0072B2"], root); // 3:1 on the page, light or dark
    const ROW = Math.max(30, 6 * heads.length); // px per token: 8 heads keep lanes 4.8 px apart
    const T = tokens.length;
    if (state.hvTokens !== tokens.join("\u0000") || !Array.isArray(state.hvOn) || state.hvOn.length !== heads.length) {
      state.hvTokens = tokens.join("\u0000");
      state.hvOn = heads.map(() => true);
      // the row the data names (a pronoun), else the last token: it sees every earlier one
      state.hvQuery = Number.isInteger(data.highlight) && data.highlight < T ? data.highlight : T - 1;
    }
    root.replaceChildren();
    root.appendChild(A.el("div", "al-view-title", labels.headview_title));
    root.appendChild(A.el("div", "al-note", labels.headview_help));
    const chips = A.el("div", "al-chips");
    heads.forEach((head, h) => {
      const chip = A.el("button", "al-chip", head.title);
      chip.type = "button";
      chip.dataset.toggleHead = String(h);
      chip.style.setProperty("--chip", colours[h % colours.length]);
      chip.style.setProperty("--chip-ink", A.ink(A.rgb(colours[h % colours.length]))); // 4.5:1 on its colour
      chip.setAttribute("aria-pressed", String(state.hvOn[h]));
      chip.addEventListener("click", () => {
        state.hvOn[h] = !state.hvOn[h];
        chip.setAttribute("aria-pressed", String(state.hvOn[h]));
        lines();
      });
      chips.appendChild(chip);
    });
    root.appendChild(chips);

    const W = Math.min(width || root.clientWidth || 600, 900);
    const colW = Math.min(260, W * 0.34);
    const H = T * ROW + 10;
    const svg = A.svg("svg", { width: W, height: H, class: "al-hv-svg", role: "img", tabindex: 0 });
    svg.setAttribute("aria-label", labels.headview_title || ""); // (its numbers: the heatmaps' tables)
    svg.addEventListener("keydown", (ev) => { // ↑ ↓ pick the token the lines come from
      const by = { ArrowUp: -1, ArrowDown: 1 }[ev.key];
      if (!by) return;
      ev.preventDefault();
      ev.stopPropagation();
      state.hvQuery = Math.max(0, Math.min(T - 1, state.hvQuery + by));
      lines();
      A.say(root, A.fill(labels.headview_query, { q: tokens[state.hvQuery], i: state.hvQuery }));
    });
    const gLines = A.svg("g", {});
    svg.appendChild(gLines);
    const left = [], right = [];
    tokens.forEach((t, i) => {
      const y = 5 + i * ROW + ROW / 2;
      const l = A.svg("text", { x: colW - 8, y: y, "text-anchor": "end", "dominant-baseline": "middle", class: "al-hv-token al-hv-left" });
      l.textContent = A.tokenLabel(t, i);
      l.dataset.index = i;
      const r = A.svg("text", { x: W - colW + 8, y: y, "dominant-baseline": "middle", class: "al-hv-token al-hv-right" });
      r.textContent = A.tokenLabel(t, i);
      r.dataset.index = i;
      l.addEventListener("mouseenter", () => { state.hvHover = i; lines(); });
      l.addEventListener("mouseleave", () => { state.hvHover = null; lines(); });
      l.addEventListener("click", () => { state.hvQuery = i; lines(); });
      left.push(l);
      right.push(r);
      svg.append(l, r);
    });
    root.appendChild(svg);
    const tip = A.tooltip(root);
    gLines.addEventListener("mousemove", (ev) => {
      if (ev.target.dataset && ev.target.dataset.hover) tip.show(ev.target.dataset.hover, ev);
    });
    gLines.addEventListener("mouseleave", () => tip.hide());

    function lines() {
      const q = state.hvHover !== null && state.hvHover !== undefined ? state.hvHover : state.hvQuery;
      gLines.replaceChildren();
      left.forEach((l, i) => l.classList.toggle("al-on", i === q));
      const y = (i) => 5 + i * ROW + ROW / 2;
      const shown = heads.map((_, h) => h).filter((h) => state.hvOn[h]);
      const lane = Math.min(MAX_STROKE, (0.8 * ROW) / Math.max(1, shown.length)); // px: each head's own lane
      shown.forEach((h, n) => {
        const row = heads[h].values[q] || [];
        const offset = (n - (shown.length - 1) / 2) * lane; // heads side by side, never on top of each other
        row.forEach((w, j) => {
          const v = Number(w);
          if (!(v > 0.005)) return;
          const line = A.svg("line", {
            x1: colW, y1: y(q) + offset, x2: W - colW, y2: y(j) + offset,
            stroke: colours[h % colours.length], "stroke-width": Math.max(1, v * lane),
            "stroke-opacity": 0.35 + 0.55 * v, "stroke-linecap": "round", class: "al-hv-line",
          });
          line.setAttribute("data-line-head", String(h));
          line.dataset.hover = A.fill(labels.headview_hover, {
            head: heads[h].title, q: tokens[q], i: q, k: tokens[j], j: j, value: A.num(v, data.digits),
          });
          gLines.appendChild(line);
        });
      });
    }
    lines();
  };
})();
