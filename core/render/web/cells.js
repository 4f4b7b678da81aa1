// A head's cells on a canvas: one colour per cell from the scale, blocked cells hatched, the mask's edge drawn, and
// the numbers written in black or white by contrast (access.js A.ink). Heatmaps and the lesson's thumbnails draw
// with it; the data contract is documented in core/render/matrix.py.
(function () {
  "use strict";
  const A = window.AttnLab;
  if (!A || !A.needs) throw new Error("cells.js needs core.js, loaded before it");
  A.needs("cells.js", ["num", "ink", "axes"]);
  const { textWidth } = A.axes;
  let hatch = null;
  function blockedPattern(ctx) {
    if (!hatch) {
      hatch = document.createElement("canvas");
      hatch.width = hatch.height = 8;
      const h = hatch.getContext("2d");
      h.fillStyle = "#d4d4d4";
      h.fillRect(0, 0, 8, 8);
      h.strokeStyle = "#8c8c8c";
      h.lineWidth = 1.5;
      h.beginPath();
      h.moveTo(-2, 10); h.lineTo(10, -2); h.moveTo(-2, 2); h.lineTo(2, -2); h.moveTo(6, 10); h.lineTo(10, 6);
      h.stroke();
    }
    return ctx.createPattern(hatch, "repeat");
  }


  function cellValue(v) {
    if (v === "-inf") return -Infinity;
    if (v === "inf") return Infinity;
    return v === null || v === undefined ? NaN : Number(v);
  }

  // cell: px of a column; tall: px of a row (a presented map stretched to the screen's height), else square
  function drawCells(canvas, head, data, cell, cmap, showValues, tall) {
    const nR = head.values.length, nC = nR ? head.values[0].length : 0, ch = tall || cell;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(nC * cell * dpr);
    canvas.height = Math.round(nR * ch * dpr);
    canvas.style.width = nC * cell + "px";
    canvas.style.height = nR * ch + "px";
    const ctx = canvas.getContext("2d");
    ctx.scale(dpr, dpr);
    const s = data.scale, span = s.max - s.min || 1;
    const blocked = head.blocked;
    const nanRgb = data.nan_color ? [1, 3, 5].map((k) => parseInt(data.nan_color.slice(k, k + 2), 16)) : null;
    // One pixel per cell in an ImageData, scaled up without smoothing: no per-cell fill style to parse.
    const img = new ImageData(Math.max(nC, 1), Math.max(nR, 1));
    const colours = [];
    for (let i = 0; i < nR; i++) {
      const row = [];
      for (let j = 0; j < nC; j++) {
        const k = 4 * (i * nC + j);
        if (blocked && blocked[i][j]) { row.push(null); continue; } // transparent: hatched below
        const v = cellValue(head.values[i][j]);
        const c = Number.isNaN(v) && nanRgb ? nanRgb : cmap(v === -Infinity ? 0 : v === Infinity ? 1 : (v - s.min) / span);
        img.data[k] = c[0]; img.data[k + 1] = c[1]; img.data[k + 2] = c[2]; img.data[k + 3] = 255;
        row.push(c);
      }
      colours.push(row);
    }
    const small = document.createElement("canvas");
    small.width = Math.max(nC, 1);
    small.height = Math.max(nR, 1);
    small.getContext("2d").putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(small, 0, 0, nC * cell, nR * ch);
    if (blocked) {
      ctx.beginPath();
      for (let i = 0; i < nR; i++) for (let j = 0; j < nC; j++) if (blocked[i][j]) ctx.rect(j * cell, i * ch, cell, ch);
      ctx.fillStyle = blockedPattern(ctx);
      ctx.fill();
    }
    if (blocked && data.boundary) { // the mask's edge: where "may attend" meets "blocked"
      ctx.strokeStyle = "#111";
      ctx.lineWidth = Math.max(2, cell / 14);
      ctx.beginPath();
      for (let i = 0; i < nR; i++) {
        for (let j = 0; j < nC; j++) {
          if (j + 1 < nC && blocked[i][j] !== blocked[i][j + 1]) { ctx.moveTo((j + 1) * cell, i * ch); ctx.lineTo((j + 1) * cell, (i + 1) * ch); }
          if (i + 1 < nR && blocked[i][j] !== blocked[i + 1][j]) { ctx.moveTo(j * cell, (i + 1) * ch); ctx.lineTo((j + 1) * cell, (i + 1) * ch); }
        }
      }
      ctx.stroke();
    }
    if (showValues) {
      // 16 px and up where the cell has room for its number (read from the back), down to 13 px where it has not
      let px = Math.max(16, Math.min(22, Math.floor(cell * 0.36)));
      const fam = getComputedStyle(canvas).fontFamily || "sans-serif";
      let lead = true;
      const widest = A.num(s.min < 0 ? -9.99 : 0.99, data.digits);
      const fits = (text) => textWidth(text, `${px}px ${fam}`) <= cell - 4 && px <= Math.min(cell, ch) - 4;
      while (px > 13 && !fits(widest)) px--;
      if (!fits(widest)) lead = false;
      if (!lead && !fits(widest.replace("0.", "."))) return;
      ctx.font = `${px}px ${fam}`;
      canvas.dataset.valuePx = String(px); // (what a test reads: the numbers' size is not in the DOM)
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      for (let i = 0; i < nR; i++) {
        for (let j = 0; j < nC; j++) {
          const c = colours[i][j];
          if (!c) continue;
          let t = nanRgb && Number.isNaN(cellValue(head.values[i][j])) ? "NaN" : A.num(head.values[i][j], data.digits);
          if (!lead) t = t.replace(/^(-?)0\./, "$1.");
          ctx.fillStyle = A.ink(c);
          ctx.fillText(t, j * cell + cell / 2, i * ch + ch / 2 + 1);
        }
      }
    }
  }

  A.cellValue = cellValue;
  A.drawCells = drawCells; // (heatmaps.js, and the thumbnails of thumbs.js)
})();
