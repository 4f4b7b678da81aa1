// A head's keyboard cursor and what it says: a cell's value as the table and the keyboard say it, and the arrows,
// Home/End, Enter/Space and Esc in a focused head (heatmaps.js gives each head one). Its words come from the server
// (core.render.access.LABELS, in data.labels).
(function () {
  "use strict";
  const A = window.AttnLab;
  if (!A || !A.needs) throw new Error("cursor.js needs core.js, loaded before it");
  A.needs("cursor.js", ["fill", "num", "say", "axes", "cellValue"]);
  const cellValue = A.cellValue;

  // A cell's value as the table and the keyboard say it ("NaN" where the view paints NaN, "blocked" where masked).
  function cellText(head, data, labels, i, j) {
    if (head.blocked && head.blocked[i][j]) return labels.blocked_cell || "";
    const v = head.values[i][j];
    return data.nan_color && Number.isNaN(cellValue(v)) ? "NaN" : A.num(v, data.digits);
  }

  A.cellText = cellText;

  // The keyboard's cell cursor in one head: arrows move it (its row and column lit in every head, its numbers said
  // and shown), Home/End go to the row's ends, Enter or Space picks its row's token as a click does, Esc hides the
  // tooltip. The state keeps it across redraws.
  A.keyboard = function (stage, cursor, h, head, ctx, root, data, labels, rows, cols, cell, tip, tall) {
    const state = ctx.state, ch = tall || cell; // (px of a row: a presented map may be taller than wide)
    const spoken = (i, j) => A.fill(head.blocked && head.blocked[i][j] ? labels.cell_blocked : labels.cell, {
      q: rows[i], i: i, k: cols[j], j: j, value: cellText(head, data, labels, i, j), head: head.title });
    const show = (quiet) => {
      const c = state.cursor;
      cursor.style.top = c.i * ch + "px";
      cursor.style.left = c.j * cell + "px";
      cursor.style.width = cell + "px";
      cursor.style.height = ch + "px";
      cursor.hidden = false;
      A.axes.highlight(root, c.i, c.j);
      const b = stage.getBoundingClientRect();
      tip.show(spoken(c.i, c.j), { clientX: b.left + (c.j + 1) * cell, clientY: b.top + (c.i + 1) * ch - 8 });
      if (!quiet) A.say(root, spoken(c.i, c.j));
    };
    const here = () => {
      const c = state.cursor;
      if (!c || c.head !== h || c.i >= rows.length || c.j >= cols.length) {
        const i = Number.isInteger(state.highlight) && state.highlight < rows.length ? state.highlight : 0;
        state.cursor = { head: h, i: i, j: 0 };
      }
      return state.cursor;
    };
    stage.addEventListener("focus", () => {
      if (!stage.matches(":focus-visible")) return; // (a click: the mouse's own highlight, no cursor)
      here();
      show(state.refocus === h); // (back after a redraw: shown, not said again)
      state.refocus = null;
    });
    stage.addEventListener("blur", () => {
      cursor.hidden = true;
      tip.hide();
      A.axes.highlight(root, state.highlight);
    });
    stage.addEventListener("keydown", (ev) => {
      const c = here(), last = [rows.length - 1, cols.length - 1];
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
      if (moves[ev.key]) {
        c.i = Math.max(0, Math.min(last[0], c.i + moves[ev.key][0]));
        c.j = Math.max(0, Math.min(last[1], c.j + moves[ev.key][1]));
        show(false);
      } else if (ev.key === "Home" || ev.key === "End") {
        c.j = ev.key === "Home" ? 0 : last[1];
        show(false);
      } else if (ev.key === "Enter" || ev.key === " ") {
        state.highlight = c.i;
        show(true);
        A.say(root, A.fill(labels.picked, { q: rows[c.i], i: c.i }));
      } else if (ev.key === "Escape") {
        tip.hide();
      } else return;
      ev.preventDefault();
      ev.stopPropagation(); // (a lesson's clicker keys are the page's: not while a head has the keyboard)
    });
  };
})();
