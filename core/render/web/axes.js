// Axes of the heatmaps: token labels (every one when the cells allow it), titles that wrap instead of being
// cut, the highlight bands, and the sizes they need: what heatmaps.js lays out around its cells.
(function () {
  "use strict";
  const A = window.AttnLab;
  if (!A || !A.needs) throw new Error("axes.js needs core.js, loaded before it");
  A.needs("axes.js", ["el", "tokenLabel"]);
  const LABEL_PITCH = 1.15; // a label needs this many times its font size along the axis
  const MIN_LABEL_PX = 15; // a label is never smaller (a projector's back row); below it, every other label
  const MIN_PHONE_PX = 12; // ... but on a phone (core.js A.narrow), 12 px before thinning
  const TAP = 24; // px: a label a finger taps on a phone (WCAG 2.5.8)
  const TITLE_LINE = 21; // px per line of a head title that wraps
  let measureCtx = null;

  function textWidth(text, font) {
    measureCtx = measureCtx || document.createElement("canvas").getContext("2d");
    measureCtx.font = font;
    return measureCtx.measureText(text).width;
  }

  function labelsFor(tokens, font, positionOnly) {
    const text = tokens.map((t, i) => A.tokenLabel(t, i, positionOnly));
    const width = Math.min(220, Math.max(0, ...text.map((s) => textWidth(s, font))) + 10);
    return { text, width };
  }

  // The labels of one axis. `hit` (px, a phone's): each label shown is a tap target at least that big, so labels
  // are thinned until `hit` px separate them (the rule docs/accessibility.md states); 0 on a wide screen.
  function axisLabels(texts, full, cell, vertical, px, cls, widthOrHeight, hit) {
    const box = A.el("div", "al-axis " + cls);
    const every = Math.max(1, Math.ceil((px * LABEL_PITCH) / cell), hit ? Math.ceil(hit / cell - 1e-9) : 1);
    const size = Math.max(cell, Math.min(hit || 0, every * cell)); // px along the axis a label may take
    texts.forEach((t, i) => {
      const span = A.el("span", "al-label", t);
      const pos = String(i) + " ";
      if (t.startsWith(pos) && t.length > pos.length) { // position and token told apart: "1" at 0 is not "0 1"
        span.replaceChildren(A.el("span", "al-pos", String(i)), document.createTextNode(" " + t.slice(pos.length)));
      }
      span.dataset.index = i;
      span.title = full[i]; // the whole token, as text
      span.style.fontSize = px + "px";
      if (i % every !== 0) span.classList.add("al-thin");
      if (vertical) {
        span.style.left = i * cell + cell / 2 + "px";
        span.classList.add("al-vertical");
        if (hit) span.style.width = span.style.lineHeight = size + "px";
      } else if (cls === "al-x") {
        span.style.left = i * cell - (size - cell) / 2 + "px";
        span.style.width = size + "px";
        if (hit) span.style.minHeight = hit + "px";
      } else {
        span.style.top = i * cell - (size - cell) / 2 + "px";
        span.style.height = size + "px";
        span.style.lineHeight = size + "px";
      }
      box.appendChild(span);
    });
    if (cls === "al-x") box.style.height = widthOrHeight + "px";
    else box.style.width = widthOrHeight + "px";
    box.style[cls === "al-x" ? "width" : "height"] = texts.length * cell + "px";
    return box;
  }

  // One row band and one column band per head, moved to the clicked token (never T of each: 64 tokens x 8 heads
  // would be a thousand elements to build on every redraw). `col`: another column than the row's token (the
  // keyboard's cell cursor lights its row and its column).
  function highlight(root, index, col) {
    root.querySelectorAll(".al-on").forEach((e) => e.classList.remove("al-on"));
    root.querySelectorAll(".al-hl").forEach((e) => (e.hidden = true));
    if (index === null || index === undefined) return;
    if (col === undefined || col === null) col = index;
    root.querySelectorAll(`.al-y .al-label[data-index="${index}"], .al-x .al-label[data-index="${col}"]`)
      .forEach((e) => e.classList.add("al-on"));
    root.querySelectorAll(".al-hl").forEach((band) => {
      const cell = Number(band.dataset.cell), n = Number(band.dataset.n), row = band.classList.contains("al-hl-row");
      const at = row ? index : col;
      if (at >= n) return;
      band.dataset.index = String(at);
      band.style[row ? "top" : "left"] = at * cell + "px";
      band.hidden = false;
    });
  }

  // The label size for a cell: the wanted size, or smaller (never under `least`: MIN_LABEL_PX on a projector,
  // MIN_PHONE_PX on a phone) so every label fits.
  function labelPx(cell, wanted, least) {
    least = least || MIN_LABEL_PX;
    if (wanted <= least) return wanted;
    return Math.min(wanted, Math.max(least, Math.floor(cell / LABEL_PITCH)));
  }

  // The title lines of a row of heads, each `width` px wide, counted as the browser wraps them (at spaces; a word
  // wider than the head, "SelfAttention_v2's", broken anywhere): the title's box is that tall, no line under the cells.
  function titleLines(titles, width, font) {
    const w = Math.max(width - 4, 1);
    const lines = (title) => {
      let n = 1, line = 0;
      for (const word of String(title || "").split(/(?<= )/u)) {
        const ww = textWidth(word, font);
        if (line && line + ww > w) { n++; line = 0; }
        if (ww > w) { n += Math.ceil(ww / w) - 1; line = ww % w; } else line += ww;
      }
      return n;
    };
    return Math.max(1, ...titles.map(lines));
  }

  A.axes = { textWidth, labelsFor, axisLabels, highlight, labelPx, titleLines, LABEL_PITCH, MIN_LABEL_PX, MIN_PHONE_PX,
    TAP, TITLE_LINE };
})();
