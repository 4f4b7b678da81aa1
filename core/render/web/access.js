// The views without sight or mouse, one place for every view kind: a table of a head's numbers a screen reader reads
// (and a sighted reader opens: "Numbers" under the head), a live region that says what changed, black or white ink
// chosen by WCAG contrast, the head colours of the page's scheme, and Esc to close a tooltip. Every word comes
// from the server (data.labels: core.render.access); tokens and numbers are text, never HTML.
(function () {
  "use strict";
  const A = window.AttnLab;
  if (!A || !A.needs) throw new Error("access.js needs core.js, loaded before it");
  A.needs("access.js", ["el", "fill", "num", "config"]);

  // WCAG 2.1 relative luminance and contrast ratio (core.render.colors computes the same in Python).
  const lin = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  A.luminance = (c) => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  A.contrast = function (a, b) {
    const la = A.luminance(a), lb = A.luminance(b);
    return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
  };
  A.rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  // The text colour for a number on colour c: black or white, whichever contrasts more (never under 4.58:1).
  A.ink = (c) => (A.contrast(c, [0, 0, 0]) >= A.contrast(c, [255, 255, 255]) ? "#000" : "#fff");

  // The page's scheme: Gradio marks a dark page with .dark on <body> (a notebook is light).
  A.dark = (el) => !!(el && el.closest ? el.closest(".dark") : document.body && document.body.classList.contains("dark"));
  // A head's colour for this scheme: the server sends the light palette; a dark page swaps each for its twin
  // (core.render.colors.HEADS_DARK: 3:1 and more on the dark page, as the light ones are on white).
  const darkOf = {};
  (A.config.palette || []).forEach((c, i) => { darkOf[c.toLowerCase()] = (A.config.palette_dark || [])[i] || c; });
  A.schemed = function (colours, el) {
    if (!A.dark(el)) return colours;
    return colours.map((c) => darkOf[String(c).toLowerCase()] || c);
  };

  // The view's live region: kept across redraws (a region made anew is not read), said again if the same text comes.
  A.live = function (root) {
    let live = root.querySelector(":scope > .al-live");
    if (!live) {
      live = A.el("div", "al-live al-sr");
      live.setAttribute("aria-live", "polite");
      live.setAttribute("aria-atomic", "true");
      root.appendChild(live);
    }
    return live;
  };
  A.say = function (root, text) {
    const live = A.live(root);
    live.textContent = "";
    clearTimeout(live.alTimer);
    live.alTimer = setTimeout(() => { live.textContent = String(text || ""); }, 30);
  };

  // "Numbers" under a head: a <details> whose table (caption, a header cell per column and per row, named by their
  // tokens) is built when it is first opened, so 8 heads of 64 tokens cost nothing until someone reads them.
  // spec: {summary, caption, rows: [label], cols: [label], cell(i, j) -> text, open, onToggle(open)}
  A.numbers = function (spec) {
    const box = A.el("details", "al-numbers");
    const summary = A.el("summary", "al-numbers-summary", spec.summary);
    box.appendChild(summary);
    let built = false;
    const build = () => {
      if (built) return;
      built = true;
      const wrap = A.el("div", "al-numbers-wrap");
      wrap.tabIndex = 0; // a table wider than its column scrolls inside its own region, by keyboard too
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-label", spec.caption);
      const table = A.el("table", "al-table");
      table.appendChild(A.el("caption", null, spec.caption));
      const head = A.el("thead"), tr = A.el("tr");
      tr.appendChild(A.el("td", "al-corner"));
      spec.cols.forEach((c) => {
        const th = A.el("th", null, c);
        th.scope = "col";
        tr.appendChild(th);
      });
      head.appendChild(tr);
      const body = A.el("tbody");
      spec.rows.forEach((r, i) => {
        const row = A.el("tr"), th = A.el("th", null, r);
        th.scope = "row";
        row.appendChild(th);
        spec.cols.forEach((_, j) => row.appendChild(A.el("td", null, spec.cell(i, j))));
        body.appendChild(row);
      });
      table.append(head, body);
      wrap.appendChild(table);
      box.appendChild(wrap);
    };
    box.addEventListener("toggle", () => {
      if (box.open) build();
      if (spec.onToggle) spec.onToggle(box.open);
    });
    if (spec.open) {
      build();
      box.open = true;
    }
    return box;
  };

  // Esc closes every tooltip (WCAG 1.4.13: content shown on hover or focus can be dismissed without moving).
  if (!A.escWired) {
    A.escWired = true;
    document.addEventListener("keydown", (ev) => {
      if (ev.key !== "Escape") return;
      document.querySelectorAll(".al-tip").forEach((t) => { t.hidden = true; });
    });
  }
})();
