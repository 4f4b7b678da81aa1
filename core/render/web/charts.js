// Charts: line panels (linear or log axes) and bar panels, drawn as SVG at the panel's width, 15 px text,
// axis titles with units, a legend, and hover values. The data contract is documented in core/render/charts.py.
(function () {
  "use strict";
  const A = window.AttnLab;
  if (!A || !A.needs) throw new Error("charts.js needs core.js, loaded before it");
  A.needs("charts.js", ["el", "fill", "num", "svg", "legend", "tooltip", "CJK", "palette", "schemed", "numbers"]);
  const M = { top: 40, right: 18, bottom: 74, left: 84 };
  const TICK_CHAR_PX = 8.5; // a tick number's digit at 14 px (.al-tick-text), for spacing them

  function niceTicks(lo, hi, n) {
    if (!(hi > lo)) return [lo];
    const raw = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((s) => s * mag).find((s) => s >= raw) || raw;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
    return out;
  }

  function logTicks(lo, hi, base) {
    const out = [];
    for (let e = Math.floor(Math.log(lo) / Math.log(base)); Math.pow(base, e) <= hi * (1 + 1e-9); e++) {
      const v = Math.pow(base, e);
      if (v >= lo * (1 - 1e-9)) out.push(v);
    }
    if (out.length > 10) return out.filter((_, i) => i % Math.ceil(out.length / 8) === 0);
    return out;
  }

  function fmt(v) {
    const a = Math.abs(v);
    if (a === 0) return "0";
    if (a >= 10000) return v.toExponential(0).replace("e+", "e");
    if (a >= 100) return String(Math.round(v));
    if (a >= 1) return String(Number(v.toPrecision(3)));
    if (a >= 0.001) return String(Number(v.toPrecision(2)));
    return v.toExponential(0);
  }

  function scale(axis, values, size, flip) {
    const finite = values.filter((v) => Number.isFinite(v) && (!axis.log || v > 0));
    let lo = axis.min !== undefined && axis.min !== null ? axis.min : Math.min(...finite);
    let hi = axis.max !== undefined && axis.max !== null ? axis.max : Math.max(...finite);
    if (!finite.length) { lo = axis.log ? 1 : 0; hi = axis.log ? 10 : 1; }
    if (hi === lo) { hi = axis.log ? hi * 2 : hi + 1; lo = axis.log ? lo / 2 : lo - (lo ? 1 : 0); }
    if (!axis.log && axis.min === undefined && lo > 0 && lo < hi * 0.3) lo = 0; // bars and losses start at 0
    let ticks = axis.ticks || (axis.log ? logTicks(lo, hi, axis.log) : niceTicks(lo, hi, 5));
    if (!axis.log && !axis.ticks && (axis.max === undefined || axis.max === null) && ticks.length > 1) {
      const step = ticks[1] - ticks[0]; // round the top up to a tick, so the largest value has a number beside it
      if (ticks[ticks.length - 1] < hi - 1e-12) { hi = Number((ticks[ticks.length - 1] + step).toPrecision(12)); ticks = ticks.concat([hi]); }
    }
    const f = axis.log
      ? (v) => (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo))
      : (v) => (v - lo) / (hi - lo);
    return { at: (v) => (flip ? size * (1 - f(v)) : size * f(v)), ticks: ticks.filter((t) => t >= lo - 1e-12 && t <= hi * (1 + 1e-9)), lo, hi };
  }

  // A panel's title in lines no wider than the panel (a phone's 300 px): at spaces, or between CJK characters.
  let measure = null;
  let family = "sans-serif"; // the view's own font (set by A.views.chart: the page's body may have another)
  function titleLines(title, width) {
    measure = measure || document.createElement("canvas").getContext("2d");
    measure.font = "600 16px " + family;
    const words = String(title || "").split(/(?<= )|(?=[\u3000-\u9fff\uff00-\uffef])/u);
    const lines = [];
    let line = "";
    for (const w of words) {
      if (line && measure.measureText(line + w).width > width) { lines.push(line.trim()); line = w; } else line += w;
    }
    if (line.trim()) lines.push(line.trim());
    return lines.length ? lines : [""];
  }
  const TITLE_LINE = 19; // px per line of a panel's title

  // Centred over the plot, moved left or right only as far as keeps its widest line inside the panel (w px).
  function panelTitle(g, iw, lines, w) {
    const half = Math.max(0, ...lines.map((l) => measure.measureText(l).width)) / 2 + 2;
    const cx = Math.max(half - M.left, Math.min(iw / 2, w - M.left - half));
    lines.forEach((l, k) => g.appendChild(text(cx, -14 - (lines.length - 1 - k) * TITLE_LINE, l, "al-panel-title",
      { "text-anchor": "middle" })));
  }

  function text(x, y, s, cls, attrs) {
    const t = A.svg("text", Object.assign({ x: x, y: y, class: cls }, attrs || {}));
    t.textContent = s;
    return t;
  }

  // An axis title along y: turned a quarter (English), or upright characters top to bottom (CJK).
  // A CJK title longer than the plot is tall goes in two columns (read right, then left), never past the plot.
  // (SVG's own vertical writing set "每词 bits" with "bits" across the characters above it, and lost "（": each
  // run is placed here instead, a CJK character upright, a Latin word or a bracket turned a quarter clockwise.)
  const BRACKETS = "（）()【】「」《》"; // turned with the Latin words: they read along the column
  function runs(t) {
    const up = A.config.upright;
    return (t.match(new RegExp(`[${BRACKETS}]|[${up}]|[^\\s${up}${BRACKETS}]+`, "gu")) || [])
      .map((r) => { const upright = !BRACKETS.includes(r) && A.CJK.test(r); return { r, upright, px: upright ? 16 : r.length * 8.5 + 2 }; });
  }
  function vertical(t, cx, y) {
    const parts = runs(t), total = parts.reduce((n, p) => n + p.px, 0), g = A.svg("g", {});
    let at = y - total / 2;
    for (const p of parts) {
      const cy = at + p.px / 2, attrs = { "text-anchor": "middle", "dominant-baseline": "central" };
      if (!p.upright) attrs.transform = `rotate(90 ${cx} ${cy})`;
      g.appendChild(text(cx, cy, p.r, "al-axis-text", attrs));
      at += p.px;
    }
    return g;
  }
  function yTitle(x, y, s, room) {
    if (!A.CJK.test(s || "")) return text(x, y, s, "al-axis-text", { "text-anchor": "middle", transform: `rotate(-90 ${x} ${y})` });
    const chars = Array.from(s);
    if (!room || runs(s).reduce((n, p) => n + p.px, 0) <= room) return vertical(s, x, y);
    const mid = Math.ceil(chars.length / 2), space = s.lastIndexOf(" ", s.length / 2 + 4);
    const cut = space > 0 && Math.abs(Array.from(s.slice(0, space)).length - mid) <= 4 ? space : mid;
    const [a, b] = space === cut ? [s.slice(0, cut), s.slice(cut + 1)] : [chars.slice(0, cut).join(""), chars.slice(cut).join("")];
    const g = A.svg("g", {});
    g.append(vertical(a, x + 9, y), vertical(b, x - 9, y));
    return g;
  }

  const DASHES = { true: "9 6", 1: "9 6", 2: "2 6", 3: "12 5 2 5", 4: "18 6" }; // s.dash: true or a pattern's index
  const MARKERS = ["circle", "square", "triangle", "diamond", "ring"]; // s.marker: an index
  // a marker of its own per line (s.marker), so a line is told apart without its colour
  function marker(index, x, y, colour) {
    const r = 5.5, shape = MARKERS[index || 0];
    if (shape === "square") return A.svg("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: colour });
    if (shape === "triangle") return A.svg("polygon", { points: `${x},${y - r - 1} ${x + r + 1},${y + r} ${x - r - 1},${y + r}`, fill: colour });
    if (shape === "diamond") return A.svg("polygon", { points: `${x},${y - r - 2} ${x + r + 2},${y} ${x},${y + r + 2} ${x - r - 2},${y}`, fill: colour });
    if (shape === "ring") return A.svg("circle", { cx: x, cy: y, r: r, fill: "#fff", stroke: colour, "stroke-width": 3 });
    return A.svg("circle", { cx: x, cy: y, r: r - 1, fill: colour });
  }

  // The legend of lines with markers: each entry drawn as its line is, dash and marker (read without colour).
  function styledLegend(items) {
    const row = A.el("div", "al-legend");
    for (const it of items) {
      const item = A.el("span", "al-legend-item");
      const sw = A.svg("svg", { width: 44, height: 18, class: "al-legend-line" });
      if (it.line !== false) {
        sw.appendChild(A.svg("line", { x1: 2, x2: 42, y1: 9, y2: 9, stroke: it.swatch, "stroke-width": 3,
          "stroke-dasharray": it.dash ? DASHES[it.dash] || "9 6" : "" }));
      }
      if (it.marker !== undefined) sw.appendChild(marker(it.marker, 22, 9, it.swatch));
      item.append(sw, A.el("span", null, it.text));
      row.appendChild(item);
    }
    return row;
  }

  // Each line's name at its right end, moved apart so no two overlap (p.direct_labels).
  function directLabels(g, ends, iw, ih) {
    ends.sort((a, b) => a.y - b.y);
    const gap = 17;
    for (let i = 1; i < ends.length; i++) ends[i].y = Math.max(ends[i].y, ends[i - 1].y + gap);
    const over = ends.length ? ends[ends.length - 1].y - (ih + 20) : 0;
    if (over > 0) for (const e of ends) e.y -= over;
    for (let i = ends.length - 2; i >= 0; i--) ends[i].y = Math.min(ends[i].y, ends[i + 1].y - gap);
    for (const e of ends) {
      g.appendChild(A.svg("line", { x1: e.px + 4, x2: iw + 8, y1: e.py, y2: e.y, stroke: e.colour, "stroke-width": 1.5 }));
      g.appendChild(text(iw + 12, e.y, e.name, "al-tick-text al-direct", { "dominant-baseline": "middle" })); // (text in the
      // text colour, 4.5:1; the line's colour is its leader's)
    }
  }

  function linePanel(svg, p, w, h, colours, labels, tip, digits, root) {
    const right = p.direct_labels ? p.direct_labels : M.right;
    const iw = w - M.left - right, lines = titleLines(p.title, w - 8), top = M.top + (lines.length - 1) * TITLE_LINE;
    const ih = h - top - M.bottom;
    const xs = p.series.flatMap((s) => s.x), ys = p.series.flatMap((s) => s.y).concat((p.hlines || []).map((l) => l.y));
    const sx = scale(p.x, xs, iw, false), sy = scale(p.y, ys, ih, true);
    const g = A.svg("g", { transform: `translate(${M.left},${top})` });
    for (const t of sy.ticks) {
      g.appendChild(A.svg("line", { x1: 0, x2: iw, y1: sy.at(t), y2: sy.at(t), class: "al-gridline" }));
      g.appendChild(text(-8, sy.at(t), fmt(t), "al-tick-text", { "text-anchor": "end", "dominant-baseline": "middle" }));
    }
    let shownTo = -Infinity; // where the last number written under the x axis ends (px): none may touch the next
    for (const t of sx.ticks) {
      g.appendChild(A.svg("line", { y1: 0, y2: ih, x1: sx.at(t), x2: sx.at(t), class: "al-gridline" }));
      const half = (fmt(t).length * TICK_CHAR_PX) / 2; // (14 px digits: a narrow panel's "128 256 512" ran together)
      if (sx.at(t) - half < shownTo + 6) continue; // its gridline stays; the table under the panel has every value
      g.appendChild(text(sx.at(t), ih + 20, fmt(t), "al-tick-text", { "text-anchor": "middle" }));
      shownTo = sx.at(t) + half;
    }
    g.appendChild(A.svg("rect", { x: 0, y: 0, width: iw, height: ih, class: "al-plot-frame" }));
    const points = [], ends = [];
    for (const l of p.hlines || []) {
      g.appendChild(A.svg("line", { x1: 0, x2: iw, y1: sy.at(l.y), y2: sy.at(l.y), stroke: "#555", "stroke-dasharray": "2 5", "stroke-width": 2 }));
    }
    p.series.forEach((s) => {
      const colour = colours[(s.color || 0) % colours.length];
      const pts = s.x.map((x, i) => [x, s.y[i]]).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!p.x.log || x > 0) && (!p.y.log || y > 0));
      if (!s.markers_only && pts.length > 1) {
        g.appendChild(A.svg("polyline", {
          points: pts.map(([x, y]) => `${sx.at(x)},${sy.at(y)}`).join(" "), fill: "none", stroke: colour,
          "stroke-width": s.width || 3, "stroke-dasharray": s.dash ? DASHES[s.dash] || "9 6" : "",
        }));
      }
      if (s.markers || s.markers_only) {
        for (const [x, y] of pts) g.appendChild(marker(s.marker, sx.at(x), sy.at(y), colour));
      }
      if (p.direct_labels && pts.length) {
        const [x, y] = pts[pts.length - 1];
        ends.push({ name: s.short || s.name, colour, px: sx.at(x), py: sy.at(y), y: sy.at(y) });
      }
      for (const [x, y] of pts) points.push({ x, y, px: sx.at(x), py: sy.at(y), name: s.name, colour });
    });
    if (ends.length) directLabels(g, ends, iw, ih);
    g.appendChild(text(iw / 2, ih + 52, p.x.label, "al-axis-text", { "text-anchor": "middle" }));
    g.appendChild(yTitle(-62, ih / 2, p.y.label, ih));
    panelTitle(g, iw, lines, w);
    const dot = A.svg("circle", { r: 8, class: "al-hover-dot", visibility: "hidden" });
    g.appendChild(dot);
    const hit = A.svg("rect", { x: 0, y: 0, width: iw, height: ih, fill: "transparent", class: "al-hit" });
    hit.addEventListener("mousemove", (ev) => {
      const b = hit.getBoundingClientRect();
      const mx = ev.clientX - b.left, my = ev.clientY - b.top;
      let best = null, bd = Infinity;
      for (const q of points) {
        const d = (q.px - mx) ** 2 + (q.py - my) ** 2;
        if (d < bd) { bd = d; best = q; }
      }
      if (!best || bd > 60 * 60) { dot.setAttribute("visibility", "hidden"); return tip.hide(); }
      dot.setAttribute("cx", best.px); dot.setAttribute("cy", best.py); dot.setAttribute("stroke", best.colour);
      dot.setAttribute("visibility", "visible");
      tip.show(A.fill(labels.hover, { series: best.name, x_label: p.x.label, x: fmt(best.x), y_label: p.y.label, y: A.num(best.y, digits) }), ev);
    });
    hit.addEventListener("mouseleave", () => { dot.setAttribute("visibility", "hidden"); tip.hide(); });
    g.appendChild(hit);
    svg.appendChild(g);
  }

  function barPanel(svg, p, w, h, colours, labels, tip, digits) {
    const cats = p.x.categories || [];
    const longest = Math.max(0, ...cats.map((c) => Array.from(c).length));
    const iw = w - M.left - M.right;
    const bottom = iw / Math.max(1, cats.length) >= longest * 9 + 12 ? 50 : Math.min(150, 30 + longest * 8.5);
    const lines = titleLines(p.title, w - 8), top = M.top + (lines.length - 1) * TITLE_LINE;
    const ih = h - top - bottom;
    const vals = p.series[0].y;
    const sy = scale(p.y, vals.concat([0]), ih, true);
    const g = A.svg("g", { transform: `translate(${M.left},${top})` });
    for (const t of sy.ticks) {
      g.appendChild(A.svg("line", { x1: 0, x2: iw, y1: sy.at(t), y2: sy.at(t), class: "al-gridline" }));
      g.appendChild(text(-8, sy.at(t), fmt(t), "al-tick-text", { "text-anchor": "end", "dominant-baseline": "middle" }));
    }
    const bw = iw / Math.max(1, cats.length);
    const every = Math.max(1, Math.ceil(20 / bw));
    const flat = bw >= longest * 9 + 12; // room to write the categories level
    cats.forEach((c, i) => {
      const v = Number(vals[i]) || 0;
      const colour = i === p.highlight ? colours[1 % colours.length] : colours[0];
      const bar = A.svg("rect", { x: i * bw + bw * 0.12, width: bw * 0.76, y: sy.at(Math.max(v, 0)), height: Math.max(1, Math.abs(sy.at(0) - sy.at(v))), fill: colour, class: "al-bar" });
      bar.dataset.index = i;
      bar.addEventListener("mousemove", (ev) => tip.show(A.fill(labels.hover, { series: p.series[0].name, x_label: p.x.label, x: c, y_label: p.y.label, y: A.num(v, digits) }), ev));
      bar.addEventListener("mouseleave", () => tip.hide());
      g.appendChild(bar);
      if (i % every === 0) {
        const x = i * bw + bw / 2;
        const cls = "al-tick-text" + (i === p.highlight ? " al-strong" : "");
        if (flat) g.appendChild(text(x, ih + 22, c, cls, { "text-anchor": "middle" }));
        else g.appendChild(text(x, ih + 10, c, cls, { "text-anchor": "end", "dominant-baseline": "middle", transform: `rotate(-60 ${x} ${ih + 10})` }));
      }
    });
    g.appendChild(A.svg("line", { x1: 0, x2: iw, y1: sy.at(0), y2: sy.at(0), stroke: "#333", "stroke-width": 1.5 }));
    g.appendChild(yTitle(-62, ih / 2, p.y.label, ih));
    panelTitle(g, iw, lines, w);
    svg.appendChild(g);
  }

  // A panel's numbers as a table under it: one row per category (bars) or per x (lines), one column per series.
  function panelTable(p, labels, digits, caption) {
    const series = p.series || [];
    if (!labels.numbers || !series.length) return null;
    const bars = p.type === "bars";
    const xs = bars ? (p.x.categories || []).map((_, i) => i)
      : [...new Set(series.flatMap((s) => s.x))].filter(Number.isFinite).sort((a, b) => a - b);
    const at = series.map((s) => { const m = new Map(); s.x.forEach((x, i) => m.set(x, s.y[i])); return m; });
    return A.numbers({
      summary: labels.numbers, caption: caption,
      rows: xs.map((x) => (bars ? String(p.x.categories[x]) : fmt(x))),
      cols: series.map((s) => String(s.name || p.y.label || "")),
      cell: (i, j) => { const v = at[j].get(xs[i]); return v === null || v === undefined ? "" : A.num(v, digits); },
    });
  }

  A.views.chart = function (root, data, ctx) {
    const W = root.clientWidth;
    const cols = Math.max(1, Math.min(data.columns || 1, W < (data.window_reserve ? 440 : 700) ? 1 : 4)); // (a lesson's
    // view is narrower than a tab's: two of its panels side by side down to 440 px)
    const pw = Math.floor((W - (cols - 1) * 16) / cols);
    // presented, a lesson's panel takes the screen's height (up to a square), not a page's 0.62 of its width
    const shown = A.presenting() && data.window_reserve, aspect = shown ? 1 : 0.62;
    const least = shown ? 220 : data.room ? 180 : 300; // (a phone: under the step's text, above Back and Next)
    let ph = Math.max(least, Math.min(A.fitHeight(data.height || 440, data), Math.round(pw * aspect)));
    const rows = Math.ceil((data.panels || []).length / cols);
    const shared = data.window_reserve && rows > 1; // a lesson's panels one under another (a narrow view) share its height
    if (shared) ph = Math.max(150, Math.floor(A.fitHeight(data.height || 440, data) / rows));
    ctx.used = shared ? ph * rows : ph; // (of its budget: core.js A.draw takes what overflowed off it)
    const colours = A.schemed(data.colors || A.palette, root); // 3:1 on the page, light or dark
    family = getComputedStyle(root).fontFamily || "sans-serif";
    const labels = data.labels || {};
    const keep = root.querySelector(":scope > .al-tip");
    const frag = document.createDocumentFragment();
    if (labels.title) frag.appendChild(A.el("div", "al-view-title", labels.title));
    if (data.legend && data.legend.length) {
      const items = data.legend.map((it) => Object.assign({}, it, { swatch: typeof it.color === "number" ? colours[it.color % colours.length] : it.swatch }));
      frag.appendChild(items.some((it) => it.marker !== undefined) ? styledLegend(items) : A.legend(items, null));
    }
    const grid = A.el("div", "al-charts");
    grid.style.gridTemplateColumns = `repeat(${cols}, ${pw}px)`;
    frag.appendChild(grid);
    root.replaceChildren(frag);
    if (keep) root.appendChild(keep);
    const tip = A.tooltip(root);
    for (const p of data.panels || []) {
      const svg = A.svg("svg", { width: pw, height: ph, class: "al-chart", role: "img" });
      const name = p.title || labels.title || (p.y && p.y.label) || "";
      svg.setAttribute("aria-label", name); // (its numbers: the table under it)
      if (p.type === "bars") barPanel(svg, p, pw, ph, colours, labels, tip, data.digits);
      else linePanel(svg, p, pw, ph, colours, labels, tip, data.digits, root);
      const box = A.el("div", "al-chart-box");
      box.appendChild(svg);
      const table = panelTable(p, labels, data.digits, name);
      if (table) box.appendChild(table);
      grid.appendChild(box);
    }
  };
})();
