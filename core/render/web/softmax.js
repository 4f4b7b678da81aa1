// The page's own softmax: a view that carries the raw scores (data.softmax, core.render.matrix.softmax_inputs)
// is redrawn by the page when the causal or √d checkbox moves, without waiting for the server: scale by
// 1/√head_dim, -inf where the mask blocks, then a numerically stable softmax (the row's maximum subtracted).
// The server sends the scores only for variants whose weights are exactly that (core.lab.page_softmax).
(function () {
  "use strict";
  const A = window.AttnLab;
  if (!A || !A.needs) throw new Error("softmax.js needs core.js, loaded before it");
  A.needs("softmax.js", ["unpack", "fill"]);

  const unpacked = new WeakMap(); // data.softmax -> its matrices, unpacked once
  function inputs(sm) {
    let u = unpacked.get(sm);
    if (!u) {
      u = { scores: sm.scores.map(A.unpack), causal: A.unpack(sm.allowed.causal), full: A.unpack(sm.allowed.full) };
      unpacked.set(sm, u);
    }
    return u;
  }

  // What the page's checkboxes say now (the server's settings when a checkbox is not on this page).
  A.toggles = function (sm) {
    const out = {};
    for (const name of ["causal", "scaled"]) {
      const box = sm.controls && sm.controls[name] ? document.querySelector(sm.controls[name]) : null;
      out[name] = box ? !!box.checked : !!sm[name];
    }
    return out;
  };

  // Each head's weights (H rows of T), blocked flags and scaled scores (the hover's second number).
  A.softmaxHeads = function (data, causal, scaled) {
    const sm = data.softmax, u = inputs(sm);
    const allowed = causal ? u.causal : u.full;
    const k = scaled ? 1 / Math.sqrt(sm.head_dim) : 1;
    return u.scores.map((S, h) => {
      const T = S.length, values = [], blocked = [], extra = [];
      let any = false;
      for (let i = 0; i < T; i++) {
        const s = new Float64Array(T), w = new Float64Array(T), b = new Uint8Array(T);
        let top = -Infinity;
        for (let j = 0; j < T; j++) {
          if (allowed[i][j]) {
            s[j] = S[i][j] * k;
            if (s[j] > top) top = s[j];
          } else {
            s[j] = -Infinity;
            b[j] = 1;
            any = true;
          }
        }
        let sum = 0;
        for (let j = 0; j < T; j++) {
          w[j] = b[j] ? 0 : Math.exp(s[j] - top);
          sum += w[j];
        }
        for (let j = 0; j < T; j++) w[j] /= sum;
        values.push(w);
        blocked.push(b);
        extra.push(s);
      }
      return Object.assign({}, data.heads[h], { values, blocked: any ? blocked : null, extra, unpacked: true });
    });
  };

  const g2 = (x) => String(Number(x.toPrecision(2))); // Python's f"{x:.2g}" for the numbers a check line holds

  // The check line under the heads, measured on the weights drawn (core.lab.session.RowCheck.line's words).
  A.checkLine = function (heads, labels) {
    let error = 0, above = 0, onBlocked = 0, rows = 0;
    for (const head of heads) {
      head.values.forEach((row, i) => {
        let sum = 0;
        for (let j = 0; j < row.length; j++) {
          const v = Number(row[j]);
          sum += v;
          if (j > i) above += v;
          if (head.blocked && head.blocked[i][j]) onBlocked += v;
        }
        error = Math.max(error, Math.abs(sum - 1));
        rows += 1;
      });
    }
    if (!Number.isFinite(error)) return labels.check_nonfinite;
    const r = error < 1e-5 ? labels.check_rows : A.fill(labels.check_rows_off, { error: g2(error) });
    const future = above === 0 ? labels.check_zero : A.fill(labels.check_leak, { value: g2(above / rows) });
    if (onBlocked === 0) return A.fill(labels.check_line, { rows: r, future: future });
    return A.fill(labels.check_line_blocked, { rows: r, future: future,
      blocked: A.fill(labels.check_mean, { value: g2(onBlocked / rows) }) });
  };

  // A colour scale fitted to the weights drawn: 0 to their 95th percentile, rounded up to 0.05 (the first rows'
  // large weights drawn at full colour); core.render.matrix.fitted_scale computes the same.
  A.fittedScale = function (scale, heads) {
    const all = [];
    for (const head of heads) for (const row of head.values) for (const v of row) if (v > 0) all.push(Number(v));
    all.sort((a, b) => a - b);
    const top = all.length ? all[Math.floor(0.95 * (all.length - 1))] : 1;
    const max = Math.min(1, Math.max(0.05, Math.ceil(top * 20 - 1e-9) / 20));
    const ticks = [0, 1, 2, 3, 4].map((n) => Math.round((max * n) / 4 * 1e6) / 1e6);
    return Object.assign({}, scale, { min: 0, max: max, ticks: ticks });
  };

  // What a softmax view draws: its scores and sentence (data.softmax.key) and the checkboxes' settings now.
  A.paintKey = function (data) {
    const sm = data && data.softmax;
    if (!sm || !sm.key) return null;
    const t = A.toggles(sm);
    return `${sm.key}:${t.causal ? 1 : 0}${t.scaled ? 1 : 0}`;
  };

  // The views that follow a checkbox: redrawn by the page the moment it changes. Gradio hears of the change
  // only after that frame is painted (its own work on an event, a walk over every output the page's events
  // ever had, runs in the same task and would otherwise hold the paint back): the browser's input and change
  // events are held, then dispatched again, in order, once the new weights are on screen.
  const followers = new Set();
  A.follow = function (ctx) { followers.add(ctx); };
  const following = (t) => {
    const out = [];
    for (const ctx of followers) {
      const data = ctx.props && ctx.props.value, sm = data && data.softmax;
      if (sm && sm.controls && Object.values(sm.controls).some((sel) => t.matches(sel))) out.push(ctx);
    }
    return out;
  };
  let held = null; // the events held back from Gradio until the paint: [target, [types]]
  const hold = (ev) => {
    const t = ev.target;
    if (!ev.isTrusted || !t || !t.matches) return; // (our own re-dispatch goes through)
    const views = following(t);
    if (!views.length) return;
    ev.stopImmediatePropagation();
    if (held && held[0] === t) { held[1].push(ev.type); return; }
    held = [t, [ev.type]];
    for (const ctx of views) ctx.repaint();
    const release = () => {
      const [target, types] = held;
      held = null;
      for (const type of types) target.dispatchEvent(new Event(type, { bubbles: true }));
    };
    // two frames: the new weights are painted (and a check waiting for that frame has run) before Gradio's turn
    requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(release, 0)));
  };
  document.addEventListener("input", hold, true);
  document.addEventListener("change", hold, true);
})();
