// The page's own softmax: a view that carries the raw scores (data.softmax, core.render.matrix.softmax_inputs)
// is redrawn by the page when the causal or √d checkbox moves, without waiting for the server: scale by
// 1/√head_dim, -inf where the mask blocks, then a numerically stable softmax (the row's maximum subtracted).
// The server sends the scores only for variants whose weights are exactly that (core.lab.page_softmax), with the
// check line and (a long sentence) the colour scale of each setting of the toggles, measured there: the page picks.
// A toggle of such a view is the page's alone: the Attention tab's gate sends it to the server only when the view
// on the page has no scores (core/ui/attention_tab.py, TOGGLE_JS), so the server never computes a view twice.
(function () {
  "use strict";
  const A = window.AttnLab;
  if (!A || !A.needs) throw new Error("softmax.js needs core.js, loaded before it");
  A.needs("softmax.js", ["unpack"]);

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

  // The key of one setting of the toggles in a softmax view's tables of check lines and colour scales
  // (core.render.matrix.setting: "10" = causal, not scaled).
  A.setting = function (t) { return `${t.causal ? 1 : 0}${t.scaled ? 1 : 0}`; };

  // What a softmax view draws: its scores and sentence (data.softmax.key) and the checkboxes' settings now.
  A.paintKey = function (data) {
    const sm = data && data.softmax;
    if (!sm || !sm.key) return null;
    return `${sm.key}:${A.setting(A.toggles(sm))}`;
  };

  // The views that follow a checkbox: redrawn by the page the moment it changes. Gradio hears of the change
  // only after that frame is painted (its own work on an event, a walk over every output the page's events
  // ever had, runs in the same task and would otherwise hold the paint back): the browser's input and change
  // events are held, then dispatched again, in order, once the new weights are on screen.
  const followers = new Set();
  A.follow = function (ctx) { followers.add(ctx); };
  // A toggle set by the page's code (a lab link, a lesson's "open in the lab") rather than a click: the views that
  // follow the checkboxes are drawn again for their state now (a view already drawn for it is left as it is).
  A.repaintFollowers = function () {
    for (const ctx of followers) {
      const data = ctx.props && ctx.props.value;
      if (data && data.softmax) ctx.repaint(true);
    }
  };
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
