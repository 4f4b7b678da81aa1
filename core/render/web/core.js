// Attention Lab's browser views: the shared part (DOM helpers, colours, tooltip, legend, mounting).
// Every text that comes from the server (tokens, titles, labels) is set with textContent: never parsed as HTML.
(function () {
  "use strict";
  const A = (window.AttnLab = window.AttnLab || { views: {} });

  // What the server decides once for Python and the browser alike (core.render.web.config): the page's
  // <head> sets it before this file runs.
  A.config = window.AttnLabConfig;
  if (!A.config) throw new Error("Attention Lab views: window.AttnLabConfig is missing (core.render.web.head sets it)");
  // Chinese, Japanese or Korean: stands upright in a vertical label instead of lying on its side.
  A.CJK = new RegExp("[" + A.config.upright + "]", "u");
  A.palette = A.config.palette; // the categorical colours (Okabe-Ito), core.render.colors.CATEGORICAL

  // A view file names the shared helpers it uses: loaded in the wrong order, it says so by name.
  A.needs = function (file, names) {
    const missing = names.filter((n) => A[n] === undefined);
    if (missing.length) throw new Error(`${file} needs ${missing.join(", ")} from core.js, loaded before it`);
  };

  const MAX_LABEL = 12; // characters of a token shown in a label (the hover shows it whole)
  A.short = function (token) {
    const chars = Array.from(String(token));
    return chars.length > MAX_LABEL ? chars.slice(0, MAX_LABEL - 1).join("") + "…" : chars.join("");
  };
  // An axis label: "position token", or the position alone where the tokens would repeat the positions.
  A.tokenLabel = (token, i, positionOnly) => (positionOnly ? String(i) : `${i} ${A.short(token)}`);

  A.el = function (tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) {
      e.textContent = String(text);
      if (A.CJK.test(e.textContent)) e.classList.add("al-cjk");
    }
    return e;
  };

  A.svg = function (tag, attrs) {
    const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  };

  // "{q} ({i})" with values from a dict; unknown names stay as they are. The result is plain text.
  A.fill = function (template, values) {
    return String(template || "").replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  };

  A.num = function (v, digits) {
    if (v === null || v === undefined || Number.isNaN(v)) return "";
    if (v === "-inf" || v === -Infinity) return "-∞";
    if (v === "inf" || v === Infinity) return "∞";
    return Number(v).toFixed(digits === undefined ? 2 : digits);
  };

  // Hex stops "#rrggbb" -> a function t in [0, 1] -> [r, g, b], linear between stops (a 1024-entry table).
  A.colormap = function (stops) {
    const rgb = stops.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));
    const N = 1024, lut = [];
    for (let n = 0; n < N; n++) {
      const x = (n / (N - 1)) * Math.max(rgb.length - 1, 0);
      const i = Math.min(Math.floor(x), Math.max(rgb.length - 2, 0)), f = x - i;
      const a = rgb[i], b = rgb[Math.min(i + 1, rgb.length - 1)];
      lut.push([0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * f)));
    }
    return function (t) {
      if (!(t >= 0)) t = 0;
      if (t > 1) t = 1;
      return lut[Math.round(t * (N - 1))];
    };
  };

  // A matrix from the server as rows: nested lists ("-inf"/"inf" strings, null) or packed
  // {"f32" | "u8": base64, "shape": [R, C]} (one string: cheap for Gradio and the page at any size).
  A.unpack = function (m) {
    if (!m) return null;
    if (Array.isArray(m)) {
      return m.map((row) => row.map((v) => (v === "-inf" ? -Infinity : v === "inf" ? Infinity : v === null ? NaN : Number(v))));
    }
    const bin = atob(m.f32 || m.u8 || "");
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const flat = m.f32 ? new Float32Array(bytes.buffer) : bytes;
    const [R, C] = m.shape;
    const out = [];
    for (let i = 0; i < R; i++) out.push(flat.subarray(i * C, (i + 1) * C));
    return out;
  };

  // The heads of a view with their matrices unpacked once per head object (a redraw reuses them).
  const unpackedHeads = new WeakMap();
  A.unpackHeads = function (heads) {
    return (heads || []).map((h) => {
      if (h.unpacked) return h; // computed by the page (softmax.js): rows already
      let rows = unpackedHeads.get(h);
      if (!rows) {
        rows = { values: A.unpack(h.values), blocked: A.unpack(h.blocked), extra: A.unpack(h.extra) };
        unpackedHeads.set(h, rows);
      }
      return Object.assign({}, h, rows);
    });
  };

  A.css = (c) => `rgb(${c[0]},${c[1]},${c[2]})`;

  // Every view carries one tooltip, positioned next to the pointer; its text is plain text.
  A.tooltip = function (root) {
    let tip = root.querySelector(":scope > .al-tip");
    if (!tip) {
      tip = A.el("div", "al-tip");
      tip.setAttribute("role", "tooltip");
      tip.hidden = true;
      root.appendChild(tip);
    }
    return {
      show(text, ev) {
        tip.textContent = text;
        tip.hidden = false;
        const r = root.getBoundingClientRect();
        const x = ev.clientX - r.left + 14, y = ev.clientY - r.top + 14;
        tip.style.left = Math.min(x, Math.max(0, root.clientWidth - tip.offsetWidth - 4)) + "px";
        tip.style.top = y + "px";
      },
      hide() {
        tip.hidden = true;
      },
      el: tip,
    };
  };

  // A phone or 400 % zoom: the window (not a view, which may be a projector's half column) is under 600 CSS px.
  A.NARROW = 600;
  A.narrow = () => window.innerWidth < A.NARROW;

  // A colour scale with its numbers: a gradient bar and ticks (the scale's min, max and between). On a phone the
  // bar fits the view (its title over it) and numbers that would run together are thinned, the ends kept.
  A.BESIDE_GAP = 8; // px between a phone's scale title and its numbers' half-width margin
  A.BESIDE_BAR = 160; // px: a phone's bar no shorter than this beside its title, else the title goes over it
  A.scaleLegend = function (scale, title, width) {
    const box = A.el("div", "al-scale");
    const head = A.el("span", "al-scale-title", title);
    box.appendChild(head);
    const bar = A.el("span", "al-scale-bar");
    bar.style.background = `linear-gradient(to right, ${scale.stops.join(", ")})`;
    const ticks = A.el("span", "al-scale-ticks");
    const digits = scale.digits === undefined ? 2 : scale.digits;
    const wide = Math.max(0, ...scale.ticks.map((t) => A.num(t, digits).length)) * 8.5 + 8; // px a number needs
    let barW = width && A.narrow() ? Math.max(100, Math.min(260, width - wide - 8)) : 0;
    const titleW = barW && A.axes ? A.axes.textWidth(String(title || ""), `15px ${getComputedStyle(document.body).fontFamily}`) : 0;
    const beside = barW ? Math.min(260, width - titleW - A.BESIDE_GAP - wide - 8) : 0;
    if (beside >= A.BESIDE_BAR) { // a short title ("weight", "value"): still beside the bar, a line less
      barW = beside;
      bar.style.width = barW + "px";
      box.classList.add("al-scale-beside");
      box.style.gap = A.BESIDE_GAP + Math.ceil(wide / 2) + "px";
    } else if (barW) { // the title over the bar, not beside it; half a number's room each side of the bar
      bar.style.width = barW + "px";
      box.classList.add("al-scale-narrow");
      box.style.marginLeft = Math.ceil(wide / 2) + "px";
      head.style.marginLeft = -Math.ceil(wide / 2) + "px";
    }
    const room = (barW || 180) / Math.max(1, scale.ticks.length - 1); // px between two numbers
    const every = Math.max(1, Math.ceil(wide / room));
    scale.ticks.forEach((t, n) => {
      if (n % every !== 0 && n !== scale.ticks.length - 1) return;
      if (n !== scale.ticks.length - 1 && scale.ticks.length - 1 - n < every) return; // (the last one is kept)
      const s = A.el("span", "al-tick", A.num(t, digits));
      s.style.left = ((100 * (t - scale.min)) / (scale.max - scale.min || 1)) + "%";
      ticks.appendChild(s);
    });
    bar.appendChild(ticks);
    box.appendChild(bar);
    return box;
  };

  // The legend line of a view: the colour scale and each swatch ("blocked", a colour) with its words.
  A.legend = function (items, scale, width) {
    const row = A.el("div", "al-legend");
    for (const it of items || []) {
      if (it.swatch === "scale") {
        if (scale) row.appendChild(A.scaleLegend(scale, it.text, width));
        continue;
      }
      const item = A.el("span", "al-legend-item");
      const sw = A.el("span", "al-swatch" + (it.swatch === "blocked" ? " al-blocked" : ""));
      if (it.line || it.dash) {
        sw.classList.add("al-line");
        sw.style.borderTopColor = it.swatch;
        if (it.dash) sw.classList.add("al-dash");
      } else if (it.swatch !== "blocked") sw.style.background = it.swatch;
      item.append(sw, A.el("span", null, it.text));
      row.appendChild(item);
    }
    return row;
  };

  // A lesson's view takes the window's height less what the rest of its screen needs (data.window_reserve px),
  // never less than the height it was sent with: the same step fills a 1080 p projector and fits 768 p. Presented
  // (core/render/web/lesson.js: no header, no tabs), the rest of the screen is the lesson's bar and the view's legend,
  // and a short screen (150 % zoom: 683×512) gets a view that fits it.
  A.PRESENT_RESERVE = 240;
  A.presenting = () => document.documentElement.classList.contains("al-present");
  // Under the step's text on a phone (data.room, A.room), no taller than the room left above the foot's Back and
  // Next, nor than what the last try took less what overflowed (data.cap: the view's legend, titles, labels).
  A.MIN_ROOM = 120; // px: a budget never squeezed below this (a view too tall then scrolls, Next still in reach)
  A.fitHeight = function (sent, data) {
    if (!data.window_reserve) return sent;
    const presenting = A.presenting();
    const reserve = presenting ? Math.min(data.window_reserve, A.PRESENT_RESERVE) : data.window_reserve;
    const fit = Math.max(presenting ? 0 : sent || 0, window.innerHeight - reserve);
    return data.room ? Math.max(A.MIN_ROOM, Math.min(fit, data.room, data.cap || Infinity)) : fit;
  };

  // A lesson's view stacked under its step's text (a phone, a tablet held upright: lesson.css sets --al-foot on the
  // step's box, .al-screen, to the px its fixed Back and Next take at the screen's foot): the px from the view's top
  // to that bar when the step's text is at the screen's top; 0 anywhere else (beside the text, presented, a lab tab).
  A.room = function (root, data) {
    const screen = data && data.window_reserve && root.closest(".al-screen");
    const foot = screen ? parseFloat(getComputedStyle(screen).getPropertyValue("--al-foot")) : NaN;
    if (!(foot >= 0)) return 0;
    return Math.floor(window.innerHeight - foot - (root.getBoundingClientRect().top - screen.getBoundingClientRect().top));
  };
  A.SQUEEZES = 3; // tries at most: a smaller budget may wrap a title or turn labels upright (not quite linear)

  // The views Python can send: data.kind picks one; each draws into `root` at the width it has.
  // A view that computes its own weights (data.softmax) names what it drew in ctx.painted; the server's
  // answer for the same settings then changes nothing (skipSame), so a toggle paints once.
  A.draw = function (root, data, ctx, skipSame) {
    const view = data && A.views[data.kind];
    if (!view) {
      root.replaceChildren();
      ctx.painted = null;
      return;
    }
    const key = A.paintKey ? A.paintKey(data) : null;
    if (skipSame && key && key === ctx.painted) {
      root.dataset.stamp = key;
      return;
    }
    // in a room (a phone): drawn, then drawn again with the budget less what overflowed (the budget is the grid's or
    // the plot's; the view's legend, titles and labels come on top of it)
    const room = (ctx.room = A.room(root, data));
    const fit = (more) => {
      ctx.used = 0; // (a view in a room says how much of its budget it took: the next try takes the overflow off that)
      view(root, room ? Object.assign({}, data, { room: room }, more) : data, ctx);
      for (let i = 1, over; room && ctx.used && i < A.SQUEEZES && (over = root.offsetHeight - room) > 1; i++) {
        const cap = ctx.used - over;
        ctx.used = 0;
        view(root, Object.assign({}, data, { room: room, cap: cap }, more), ctx);
      }
    };
    fit({});
    // still too tall at its least: the page may give it more room (lesson.js: the step's text a size smaller, and it
    // says so); when it cannot, the rows go below their labels' pitch (every other label written), once
    const tight = () => new CustomEvent("al-tight", { bubbles: true, cancelable: true });
    if (room && root.offsetHeight - room > 1 && root.dispatchEvent(tight())) fit({ thin: true });
    ctx.painted = key;
    root.dataset.stamp = key || data.stamp || "";
  };

  // Called by each gr.HTML's js_on_load: draw now, again when Python sends a new value or the width changes.
  A.mount = function (element, props, watch, trigger) {
    let root = element.querySelector(".al-root");
    if (!root) {
      root = A.el("div", "al-root");
      element.appendChild(root);
    }
    const ctx = { trigger: trigger, state: {}, props: props };
    ctx.repaint = (skipSame) => { if (root.clientWidth) A.draw(root, props.value, ctx, skipSame); };
    if (A.follow) A.follow(ctx);
    let width = -1, pending = false;
    const redraw = (force) => {
      const w = root.clientWidth;
      if (!w || (!force && w === width)) return; // hidden (another tab) or unchanged
      width = w;
      A.draw(root, props.value, ctx);
    };
    const later = () => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        redraw(false);
      });
    };
    watch("value", () => {
      ctx.state = ctx.state || {};
      width = root.clientWidth;
      if (width) A.draw(root, props.value, ctx, true);
      else width = -1;
    });
    new ResizeObserver(later).observe(root);
    const screen = root.closest(".al-screen"); // a lesson's step: its text grew or shrank, the view's room with it
    if (screen) new ResizeObserver(() => { if (A.room(root, props.value) !== (ctx.room || 0)) redraw(true); }).observe(screen);
    redraw(true);
  };
})();
