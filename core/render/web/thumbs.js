// Thumbnails of the heads beside one focused head: a lesson's screen where every head side by side would be too
// small for its labels. Each thumbnail is the head's matrix at a few px per cell; a click (or Enter) focuses it.
(function () {
  "use strict";
  const A = window.AttnLab;
  if (!A || !A.needs) throw new Error("thumbs.js needs core.js, loaded before it");
  if (!A.drawCells) throw new Error("thumbs.js needs cells.js, loaded before it");
  A.needs("thumbs.js", ["el"]);
  const SIDE = 64, MIN_SIDE = 32; // px of a thumbnail: as big as the focused head's height allows
  const PAD = 12, CAPTION = 2 * 18 + 14; // px around a thumbnail; its caption (two lines at most) and gaps

  function columns(n) { return n > 4 ? 2 : 1; }

  // The strip's width for n heads (heatmaps.js gives the focused head the rest).
  A.thumbStripWidth = function (n) {
    return columns(n) * (SIDE + 2 * PAD);
  };

  // A head's short name for its caption: the part of its title before " · " (the whole title is its tooltip).
  function caption(title) {
    return String(title || "").split(" · ")[0];
  }

  A.thumbStrip = function (heads, data, cmap, focused, pick, height) {
    const n = heads.length, per = Math.floor((height - 30) / Math.ceil(n / columns(n)));
    const side = Math.max(MIN_SIDE, Math.min(SIDE, per - CAPTION));
    const strip = A.el("div", "al-thumbs");
    strip.style.width = A.thumbStripWidth(n) + "px";
    strip.style.gridTemplateColumns = `repeat(${columns(n)}, 1fr)`;
    heads.forEach((head, h) => {
      const nR = head.values.length, nC = nR ? head.values[0].length : 0;
      const cell = Math.max(1, Math.floor(side / Math.max(nR, nC, 1)));
      const box = A.el("div", "al-thumb" + (h === focused ? " al-thumb-on" : ""));
      box.dataset.thumb = String(h);
      box.tabIndex = 0;
      box.setAttribute("role", "button");
      box.setAttribute("aria-pressed", String(h === focused));
      box.setAttribute("aria-label", String(head.title || h)); // (an attribute: text, never HTML)
      const canvas = A.el("canvas", "al-canvas");
      A.drawCells(canvas, head, Object.assign({}, data, { boundary: false }), cell, cmap, false);
      box.title = String(head.title || h);
      box.append(canvas, A.el("div", "al-thumb-title", caption(head.title) || String(h)));
      box.addEventListener("click", () => pick(h));
      box.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter") { ev.preventDefault(); ev.stopPropagation(); pick(h); }
      });
      strip.appendChild(box);
    });
    return strip;
  };
})();
