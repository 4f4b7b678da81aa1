// Heatmaps: one matrix per head, square cells that fill the panel, token labels on both axes, values in
// the cells for short sentences, blocked cells hatched, the mask's edge drawn, hover and click-to-highlight; each
// head focusable, named, with its keyboard cursor (cursor.js) and its table of numbers (access.js). The cells
// themselves: cells.js. The data contract is documented in core/render/matrix.py.
(function () {
  "use strict";
  const A = window.AttnLab;
  if (!A || !A.needs) throw new Error("heatmaps.js needs core.js, loaded before it");
  A.needs("heatmaps.js", ["el", "fill", "num", "colormap", "legend", "tooltip", "unpackHeads", "tokenLabel", "axes",
    "numbers", "drawCells", "cellValue", "cellText", "keyboard"]);
  const { drawCells, cellValue, cellText, keyboard } = A;
  const { textWidth, labelsFor, axisLabels, highlight } = A.axes;
  const GAP = 18; // px between heads
  const TITLE_H = 30; // px: a head's title line
  const MIN_TALL = 12; // px: the height budget never makes cells smaller than this ...
  const MIN_TALL_LABELLED = 18; // ... or this, up to 24 tokens: a 15 px label per row and column
  const MIN_ROW = 12; // px: a phone's rows, shrunk to the room under the step's text, never flatter than this (MIN_TALL)
  const STRETCH = 2.5; // presented: a row up to this many times its column's width (Q, K, V: 8 columns each)

  // Presented (a lesson's screen alone), maps side by side are as wide as the view allows; their rows then grow
  // into the height the screen has left (a strip of maps across it would leave half the screen empty).
  // Under the step's text on a phone (data.room: core.js A.room), the columns keep the width they had and the rows
  // shrink to the room left, never below a label's pitch or a finger's tap (least): no label is thinned out for it.
  function rowHeight(data, cell, rowsOfHeads, nRows, over, least) {
    const room = () => Math.floor((A.fitHeight(data.height_budget, data) / rowsOfHeads - over) / nRows);
    if (data.room) return Math.max(Math.min(cell, least), Math.min(cell, room()));
    if (!A.presenting() || !data.window_reserve) return cell;
    return Math.max(cell, Math.min(Math.floor(STRETCH * cell), room()));
  }
  // The grid's budget before any room: the columns' width comes from it (a phone's room then takes it from the rows).
  const gridBudget = (data) => A.fitHeight(data.height_budget, data.room ? Object.assign({}, data, { room: 0 }) : data);
  // A lesson's maps of a few columns under a long title ("SelfAttention_v1's output, after the copy") get wider
  // columns, as far as the title then takes two lines and the view's width allows (room: px for one map's cells).
  // Under the step's text on a phone (data.room), the columns as wide as the view allows (up to STRETCH): the rows
  // give the height back, the titles wrap less and the tokens under the map may lie flat.
  function columnWidth(data, cell, title, nCols, room) {
    if (data.room) return Math.max(cell, Math.min(Math.floor(STRETCH * cell), Math.floor(room / nCols)));
    if (!data.window_reserve || A.narrow()) return cell; // (a phone: its own layout, every px of width taken)
    return Math.max(cell, Math.min(Math.floor(STRETCH * cell), Math.floor(room / nCols), Math.ceil(title / (2 * nCols))));
  }

  // How many heads side by side: the largest square cells (within the width and the height budget).
  A.gridLayout = function (W, H, nRows, nCols, labelW, xLabelH, opts) {
    const budget = opts.budget || Math.max(420, 0.9 * window.innerHeight);
    const maxCell = opts.maxCell || 160, minCell = opts.minCell || 6;
    let best = null;
    // (a lesson's screen asks for its heads side by side: min_columns)
    for (let c = Math.min(H, opts.minColumns || 1); c <= Math.max(1, Math.min(H, opts.maxColumns || H)); c++) {
      const rowsOfHeads = Math.ceil(H / c);
      const cellW = Math.floor((W - labelW - (c - 1) * GAP - 2) / (c * nCols));
      const cellH = Math.floor((budget / rowsOfHeads - TITLE_H - xLabelH(cellW) - GAP) / nRows);
      // the viewport's height never squeezes a cell below MIN_TALL px (a long sentence makes a tall page instead)
      const tall = nRows <= 24 ? MIN_TALL_LABELLED : MIN_TALL; // up to 24 tokens every label must fit
      const cell = Math.max(minCell, Math.min(maxCell, cellW, Math.max(cellH, tall)));
      if (!best || cell > best.cell) best = { columns: c, cell: cell };
    }
    // A head never smaller than opts.minHead px (a projector's back row): fewer heads side by side, rows wrap.
    const target = Math.min(opts.minHead || 0, W - labelW - 2);
    if (best.cell * nCols < target) { // ... and no taller than the window (less its title and labels) beyond that
      const need = Math.ceil(target / nCols), tallest = Math.max(target, window.innerHeight - 160);
      for (let c = H; c >= 1; c--) {
        const wide = Math.floor((W - labelW - (c - 1) * GAP - 2) / (c * nCols));
        if (wide >= need || c === 1) {
          const cell = Math.min(wide, Math.max(need, Math.min(maxCell, Math.floor(tallest / nRows))));
          return { columns: c, cell: Math.max(minCell, cell) };
        }
      }
    }
    return best;
  };


  let uid = 0;
  A.views.heatmaps = function (root, data, ctx) {
    const state = ctx.state;
    const rows = data.rows || [], cols = data.cols || rows, colsAreTokens = !data.cols || data.col_tokens;
    let heads = A.unpackHeads(data.heads);
    const labels = data.labels || {};
    let legendItems = labels.legend, said = labels.check_text;
    if (data.softmax) { // the page's own weights for the checkboxes as they are now (softmax.js)
      const sm = data.softmax, t = A.toggles(sm), key = A.setting(t);
      heads = A.softmaxHeads(data, t.causal, t.scaled);
      said = sm.checks ? sm.checks[key] : said; // the server's check line for this setting (core.lab.session)
      if (sm.scales) { // a long sentence: the colours fitted to these weights (core.render.matrix), and said so
        data = Object.assign({}, data, { scale: sm.scales[key] });
        legendItems = (legendItems || []).map((it) => (it.swatch === "scale" && sm.legends
          ? Object.assign({}, it, { text: sm.legends[key] }) : it));
      }
      const anyBlocked = heads.some((h) => h.blocked); // the "blocked" swatch only while the mask blocks something
      legendItems = (legendItems || []).filter((it) => it.swatch !== "blocked" || anyBlocked);
      data = Object.assign({}, data, { heads: heads });
    }
    const tip = A.tooltip(root);
    const fam = getComputedStyle(root).fontFamily || "sans-serif";
    const yTitle = 26;
    const W = root.clientWidth;
    if (data.counts && data.counts.items && data.height_budget) { // the counts' line above the maps: out of their height
      const said = [data.counts.title, ...data.counts.items.map((it) => A.fill(it.text, { value: it.value }))];
      const wide = said.reduce((sum, text) => sum + textWidth(String(text || ""), `15px ${fam}`) + 14, 0);
      const countsH = 22 * Math.max(1, Math.ceil(wide / Math.max(1, W))) + 4; // (its lines, and its margin)
      data = Object.assign({}, data, { height_budget: Math.max(0, data.height_budget - countsH),
        window_reserve: data.window_reserve ? data.window_reserve + countsH : data.window_reserve });
    }
    const narrow = A.narrow(); // a phone: labels down to 12 px before any is thinned out, 24 px tap targets
    const gap = narrow ? 8 : GAP, hit = narrow ? A.axes.TAP : 0;
    root.classList.toggle("al-narrow", narrow);
    // The labels at a size, and the grid they leave for n heads in `width` px.
    const size = (px, width, n, minColumns, maxColumns) => {
      const font = `${px}px ${fam}`;
      const yl = labelsFor(rows, font, data.position_labels);
      const xl = colsAreTokens ? labelsFor(cols, font, data.position_labels) : { text: cols.map(String), width: 0 };
      if (!colsAreTokens) xl.width = Math.max(...xl.text.map((s) => textWidth(s, font))) + 10;
      const xLabelH = (cell) => (cell >= xl.width ? px * 1.6 : xl.width + 12) + 28;
      const labelW = yl.width + yTitle + 8 + gap; // the y column: labels, title (and its CJK margin) and the gap
      const lay = A.gridLayout(width, n, rows.length, cols.length, labelW, xLabelH, {
        maxColumns: maxColumns || data.max_columns, minColumns: minColumns, budget: gridBudget(data),
        maxCell: data.max_cell, minHead: data.min_head,
      });
      return { px, yl, xl, xLabelH, labelW, lay };
    };
    // cells too small for the wanted labels: smaller ones (never under the minimum), and the grid again
    const fitted = (width, n, minColumns, maxColumns) => {
      const wanted = data.font_px || (narrow ? 13 : 15), first = size(wanted, width, n, minColumns, maxColumns);
      const px = A.axes.labelPx(first.lay.cell, wanted, narrow ? A.axes.MIN_PHONE_PX : A.axes.MIN_LABEL_PX);
      return px === wanted ? first : size(px, width, n, minColumns, maxColumns);
    };
    let sz = fitted(W, heads.length, data.min_columns);
    let order = heads.map((_, h) => h); // the heads drawn big, in their order
    const labelled = (z) => rows.length > 24 || z.lay.cell * 1.001 >= z.px * A.axes.LABEL_PITCH;
    if (data.side_by_side && heads.length > 1 && !labelled(sz)) {
      // a lesson's maps compared at a glance, too small in one row for every label: onto more rows, where every
      // label keeps its size and the rows stay within the view's height; else one big map and the others as
      // thumbnails beside it (every map still in sight, none with a label thinned out)
      const budget = gridBudget(data), titleFont = `600 16px ${fam}`;
      const tall = (z) => { // px of the grid: per row of maps its title, cells, x labels, table toggle and gap
        const per = Math.ceil(heads.length / z.lay.columns), width = cols.length * z.lay.cell;
        const lines = A.axes.titleLines(heads.map((h) => h.title), width, titleFont);
        const titleH = lines > 1 ? lines * A.axes.TITLE_LINE + 6 : TITLE_H;
        return per * (titleH + rows.length * z.lay.cell + z.xLabelH(z.lay.cell) + gap + (labels.numbers ? 28 : 0));
      };
      let best = null;
      for (let c = heads.length - 1; c >= 1; c--) {
        const z = fitted(W, heads.length, c, c);
        if (labelled(z) && tall(z) <= budget && (!best || z.lay.cell > best.lay.cell)) best = z;
      }
      if (best) sz = best;
    }
    const focus = (data.focus || data.side_by_side) && heads.length > 1 && !labelled(sz) && A.thumbStrip; // (a lesson's screen)
    if (focus) { // one head big with every label, the others as thumbnails beside it: a click focuses one
      const shape = rows.join("\u0000") + "\u0001" + heads.length; // another sentence or step: head 0 again
      if (state.focusOf !== shape || !(Number.isInteger(state.focus) && state.focus < heads.length)) state.focus = 0;
      state.focusOf = shape;
      order = [state.focus];
      sz = fitted(W - A.thumbStripWidth(heads.length) - GAP, 1, 1);
    }
    const { px, yl, xl, xLabelH, labelW, lay } = sz;
    const used = (focus ? W - A.thumbStripWidth(heads.length) - GAP : W) - labelW - (lay.columns - 1) * GAP - 2;
    const widest = Math.max(0, ...order.map((h) => textWidth(String(heads[h].title || ""), `600 16px ${fam}`))) + 8;
    const cell = columnWidth(data, lay.cell, widest, cols.length, used / lay.columns), vertical = cell < xl.width;
    // a phone, one map a row: its title across the view (over the token labels too), not wrapped to the map's width
    const spread = narrow && lay.columns === 1 && !focus, titleW = spread ? W - 2 : cols.length * cell;
    const titled = A.axes.titleLines(order.map((h) => heads[h].title), titleW, `600 16px ${fam}`);
    // (a row's least on a phone: what its label, or every k-th label as the square cells already showed them, needs)
    const pitch = Math.max(hit, px * A.axes.LABEL_PITCH), every = Math.max(1, Math.ceil(pitch / lay.cell - 1e-9));
    const rowsOfHeads = Math.ceil(order.length / lay.columns);
    const around = (titled > 1 ? titled * A.axes.TITLE_LINE + 6 : TITLE_H) + xLabelH(cell) + gap; // (px a row of maps
    const tall = rowHeight(data, lay.cell, rowsOfHeads, rows.length, around, // adds to its cells; tall: px of a row)
      data.thin ? MIN_ROW : Math.max(MIN_ROW, Math.ceil(pitch / every))); // (thin: no room for every label)
    ctx.used = rowsOfHeads * (rows.length * tall + around); // (of the budget, as rowHeight counts it: core.js A.draw)
    const cmap = A.colormap(data.scale.stops);
    const showValues = !!data.show_values;

    const frag = document.createDocumentFragment();
    if (labels.title) frag.appendChild(A.el("div", "al-view-title", labels.title));
    if (labels.warning) frag.appendChild(A.el("div", "al-warning", labels.warning));
    if (data.counts && data.counts.items) { // two numbers counted on real layers (a lesson's `count:`), each written
      const counts = A.el("div", "al-counts"); // into its own text: what `count ratio` reads is what is drawn
      counts.append(A.el("span", "al-counts-title", data.counts.title || ""));
      for (const item of data.counts.items) {
        const one = A.el("span", "al-count", A.fill(item.text, { value: item.value }));
        one.dataset.value = String(item.value);
        counts.append(one);
      }
      frag.appendChild(counts);
    }
    frag.appendChild(A.legend(legendItems, data.scale, W));
    // what a head shows, for its name and its table: the colour scale's words, else the view's title
    const scaleItem = (legendItems || []).find((it) => it.swatch === "scale");
    const what = (scaleItem && scaleItem.text) || labels.title || "";
    const helpId = "al-keys-" + ++uid; // the keys, said once per head when it takes the focus
    const help = A.el("div", null, labels.keys_help);
    help.id = helpId;
    help.hidden = true; // (a description read from a hidden element: never drawn)
    frag.appendChild(help);
    const focused = root.contains(document.activeElement) && document.activeElement.dataset
      ? document.activeElement.dataset.focusHead : undefined; // a redraw gives the keyboard back where it was
    state.numbersOpen = state.numbersOpen || {};
    const rowNames = rows.map((t, i) => (data.position_labels ? String(i) : `${i} ${t}`));
    const colNames = colsAreTokens ? cols.map((t, i) => (data.position_labels ? String(i) : `${i} ${t}`)) : cols.map(String);
    const grid = A.el("div", "al-grid");
    const xTitleRow = !!labels.x && textWidth(labels.x, `15px ${fam}`) + 8 > cols.length * cell; // one per row
    for (let r = 0; r * lay.columns < order.length; r++) {
      const line = A.el("div", "al-grid-row");
      if (narrow) line.style.gap = gap + "px";
      const ybox = A.el("div", "al-ycol");
      const these = order.slice(r * lay.columns, (r + 1) * lay.columns);
      const lines = A.axes.titleLines(these.map((h) => heads[h].title), titleW, `600 16px ${fam}`);
      const titleH = lines > 1 ? lines * A.axes.TITLE_LINE + 6 : TITLE_H; // a long title wraps, never cut
      ybox.style.paddingTop = titleH + "px";
      const ytitle = A.el("div", "al-axis-title al-ytitle", labels.y);
      ytitle.style.height = rows.length * tall + "px";
      ytitle.style.width = yTitle + "px";
      const ylab = axisLabels(yl.text, rows, tall, false, px, "al-y", yl.width, hit);
      const yinner = A.el("div", "al-yinner");
      yinner.append(ytitle, ylab);
      ybox.appendChild(yinner);
      line.appendChild(ybox);
      for (const h of these) {
        const head = heads[h];
        const hb = A.el("div", "al-head");
        hb.dataset.head = String(h);
        hb.style.width = cols.length * cell + "px";
        const title = A.el("div", "al-head-title", head.title);
        title.style.height = titleH + "px";
        if (spread) title.style.width = titleW + "px"; // (moved over the labels once laid out, below)
        if (lines > 1) title.classList.add("al-wrap");
        const stage = A.el("div", "al-cells");
        stage.tabIndex = 0; // Tab reaches each head; the arrows then move within it
        stage.dataset.focusHead = String(h);
        stage.setAttribute("role", "application");
        stage.setAttribute("aria-label", A.fill(labels.head_name, { title: head.title, what: what, rows: rows.length,
          cols: cols.length }));
        stage.setAttribute("aria-describedby", helpId);
        const canvas = A.el("canvas", "al-canvas");
        canvas.setAttribute("aria-hidden", "true"); // (its numbers: the table under the head)
        stage.appendChild(canvas);
        drawCells(canvas, head, data, cell, cmap, showValues, tall);
        const cursor = A.el("div", "al-cursor");
        cursor.hidden = true;
        stage.appendChild(cursor);
        keyboard(stage, cursor, h, head, ctx, root, data, labels, rows, cols, cell, tip, tall);
        for (const [cls, n] of [["al-hl-row", rows.length], ["al-hl-col", colsAreTokens ? cols.length : 0]]) {
          if (!n) continue;
          const band = A.el("div", "al-hl " + cls); // the highlight band, placed on click
          band.dataset.cell = cls === "al-hl-row" ? tall : cell;
          band.dataset.n = n;
          band.style[cls === "al-hl-row" ? "height" : "width"] = band.dataset.cell + "px";
          band.hidden = true;
          stage.appendChild(band);
        }
        canvas.addEventListener("mousemove", (ev) => {
          const b = canvas.getBoundingClientRect();
          const j = Math.floor((ev.clientX - b.left) / cell), i = Math.floor((ev.clientY - b.top) / tall);
          if (i < 0 || j < 0 || i >= rows.length || j >= cols.length) return tip.hide();
          const isBlocked = head.blocked && head.blocked[i][j];
          const template = isBlocked ? labels.hover_blocked : labels.hover;
          tip.show(A.fill(template, {
            q: rows[i], i: i, k: cols[j], j: j, head: h,
            value: data.nan_color && Number.isNaN(cellValue(head.values[i][j])) ? "NaN" : A.num(head.values[i][j], data.digits),
            extra: head.extra ? A.num(head.extra[i][j], data.digits) : "",
          }), ev);
        });
        canvas.addEventListener("mouseleave", () => tip.hide());
        canvas.addEventListener("click", (ev) => {
          const b = canvas.getBoundingClientRect();
          const i = Math.floor((ev.clientY - b.top) / tall);
          state.highlight = state.highlight === i ? null : i;
          highlight(root, state.highlight);
        });
        const xbox = A.el("div", "al-xbox");
        xbox.appendChild(axisLabels(xl.text, cols, cell, vertical, px, "al-x", xLabelH(cell) - 28, hit));
        if (!xTitleRow) xbox.appendChild(A.el("div", "al-axis-title al-xtitle", labels.x));
        const table = labels.numbers ? A.numbers({ // the head's numbers as a table (lesson, lab and notebook alike)
          summary: labels.numbers, rows: rowNames, cols: colNames, open: !!state.numbersOpen[h],
          caption: A.fill(labels.table_caption, { title: head.title, what: what, y: labels.y, x: labels.x }),
          cell: (i, j) => cellText(head, data, labels, i, j),
          onToggle: (open) => { state.numbersOpen[h] = open; },
        }) : null;
        hb.append(title, stage, xbox);
        if (table) hb.appendChild(table);
        line.appendChild(hb);
      }
      if (focus && r === 0) line.appendChild(A.thumbStrip(heads, data, cmap, state.focus, (h) => {
        state.focus = h;
        A.views.heatmaps(root, data, ctx);
        const again = root.querySelector(`.al-thumb[data-thumb="${h}"]`);
        if (again) again.focus(); // (a keyboard stays on the thumbnail it pressed)
      }, titleH + rows.length * tall + xLabelH(cell))); // (no taller than the focused head)
      grid.appendChild(line);
      if (xTitleRow) { // heads narrower than "key (attended to)": one title under the row, not one cut per head
        const t = A.el("div", "al-axis-title al-xtitle al-xtitle-row", labels.x);
        t.style.marginLeft = labelW + "px";
        t.style.minWidth = these.length * cols.length * cell + (these.length - 1) * GAP + "px";
        t.style.maxWidth = Math.max(0, W - labelW) + "px"; // (as wide as its text, within the view)
        grid.appendChild(t);
      }
    }
    frag.appendChild(grid);
    if (labels.note) frag.appendChild(A.el("div", "al-note", labels.note)); // under the heads: they come first
    if (data.check && said) { // measured on the weights drawn (by the server, for each setting of the toggles)
      // a live region (polite): kept from one drawing to the next, so a screen reader says each new check
      let check = state.checkLine;
      if (!check) {
        check = state.checkLine = A.el("div", "al-check");
        check.setAttribute("role", "status");
        check.setAttribute("aria-live", "polite");
        check.append(A.el("span", "al-check-title"), A.el("span", "al-check-text"));
      }
      const [t1, t2] = check.children;
      if (t1.textContent !== (labels.check_title || "")) t1.textContent = labels.check_title || "";
      if (t2.textContent !== said) t2.textContent = said;
      check.classList.toggle("al-cjk", A.CJK.test(said));
      frag.appendChild(check);
    }
    grid.addEventListener("click", (ev) => {
      const label = ev.target.closest(".al-label");
      if (!label || (!colsAreTokens && label.closest(".al-x"))) return;
      const i = Number(label.dataset.index);
      state.highlight = state.highlight === i ? null : i;
      highlight(root, state.highlight);
    });
    const keep = root.querySelector(":scope > .al-tip"), live = A.live(root);
    root.replaceChildren(frag);
    if (keep) root.appendChild(keep);
    root.appendChild(live);
    tip.hide();
    if (spread) { // each title spread across the view starts at the view's left edge
      const left = root.getBoundingClientRect().left;
      for (const t of grid.querySelectorAll(".al-head-title")) t.style.marginLeft = left - t.parentElement.getBoundingClientRect().left + "px";
    }
    // a new sentence, or a new row the data names (a lesson's next step): nothing highlighted, or that row
    const shown = rows.join("\u0000") + "\u0001" + (Number.isInteger(data.highlight) ? data.highlight : "");
    if (state.rows !== shown) {
      state.highlight = Number.isInteger(data.highlight) && data.highlight < rows.length ? data.highlight : null;
    }
    state.rows = shown;
    highlight(root, state.highlight);
    if (focused !== undefined) { // the keyboard was in a head: back in it, its cursor shown, not said again
      const again = root.querySelector(`.al-cells[data-focus-head="${focused}"]`);
      if (again) { state.refocus = Number(focused); again.focus({ preventScroll: true }); }
    }
    if (data.headview && A.views.headview) {
      const hv = A.el("div", "al-headview-box");
      root.insertBefore(hv, root.querySelector(":scope > .al-tip"));
      A.views.headview(hv, data, ctx, W); // its width given: reading it would lay out all of the above first
    }
  };
})();
