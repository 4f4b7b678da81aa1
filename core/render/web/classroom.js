// Attention Lab's live class (issue 34): the teacher's page presents, every page opened on ?class=CODE follows.
// It talks to the app's own /class/ routes (core/serve/class_routes.py): a few JSON posts and one EventSource per
// page. The lesson itself moves through the panel's `submit` event (core/ui/class_panel.py), so a follower's page
// draws a step exactly as the teacher's does. Every text it shows comes from the panel's value (the page's language)
// or from the server (a sentence in the page's language); all of it is set with textContent, never parsed as HTML.
// Nothing is stored but the teacher's secret (sessionStorage, this tab only); a follower is a random id per page.
(function () {
  "use strict";
  if (window.AttnLabClass) return;
  const C = (window.AttnLabClass = {});
  const params = new URLSearchParams(location.search);
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  const pageId = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const KEY = "attention-lab-class-"; // sessionStorage: the secret (and link, QR) of a class this tab started

  let say = {}, element = null, root = null, trigger = null;
  let cls = null; // {code, teacher, secret, link, qr}
  let state = null; // the class's state as the server last sent it (core.serve.classroom.Class.public)
  let es = null, retry = null, landed = false, following = true, hidden = false;
  let mine = null; // [lesson, step] the page shows (#lesson's data-lesson / data-step)
  let pending = null; // [lesson, step] the page was asked to go to
  let problem = "", connection = "";
  let askedAbout = ""; // "lesson/step" whose question the panel was last asked for
  const mineAnswered = {}; // "lesson/step" -> the label this page answered (kept in the page only)

  const at = (path) => new URL(path, location.href).toString();
  const { el, button, fill, qrSvg, codeBox } = window.AttnLabClassDraw; // (class_draw.js, loaded before this file)
  const chart = (a) => window.AttnLabClassDraw.chart(a, state.counts || {}, say);
  const same = (a, b) => a && b && a[0] === b[0] && Number(a[1]) === Number(b[1]);
  const where = () => (state ? [state.lesson, state.step] : null);

  async function post(path, body) {
    const r = await fetch(at(path), { method: "POST", headers: { "content-type": "application/json" },
                                      body: JSON.stringify(body), credentials: "same-origin" });
    let data = {};
    try { data = await r.json(); } catch (e) { data = {}; }
    if (!r.ok) throw new Error(data.detail || say.lost || "");
    return data;
  }

  // --- the page's lesson: what it shows, and moving it ---
  function lessonNow() {
    const l = document.getElementById("lesson");
    return l && l.dataset.lesson && l.dataset.step ? [l.dataset.lesson, Number(l.dataset.step)] : null;
  }

  function watchLesson() {
    const l = document.getElementById("lesson");
    if (!l) { setTimeout(watchLesson, 200); return; }
    new MutationObserver(moved).observe(l, { attributes: true, attributeFilter: ["data-lesson", "data-step"] });
    moved();
  }

  function moved() {
    const now = lessonNow();
    if (!now || same(now, mine)) return;
    mine = now;
    if (pending && same(pending, mine)) pending = null;
    if (!cls) {
      if (params.get("class") && params.get("class").toLowerCase() === "new" && !C.starting) C.start();
      return;
    }
    if (!landed && state && !state.ended) { // the page's own first step is drawn: now it goes to the class's
      landed = true;
      go(where());
    } else if (cls.teacher) {
      if (landed && state && !state.ended && !same(mine, where())) {
        hidden = true; // the lesson goes on: the code shrinks to a corner ("Show the code" brings it back)
        tell(mine);
      }
    } else if (!pending && landed) {
      following = !!same(mine, where());
    }
    render();
  }

  function go(target) {
    if (!target || !trigger) return;
    if (same(target, mine)) { learn(target); return; }
    pending = target;
    askedAbout = target.join("/");
    draw(target, 0);
  }

  // The event that draws the class's step; a server too busy to answer it (a refused request leaves the page where it
  // was) gets it again after 3-5 s, three times at most.
  function draw(target, tries) {
    const revealed = !!(state && state.revealed && same(target, where())); // (its question answered: the view too)
    trigger("submit", { lesson: target[0], step: target[1], draw: true, revealed: revealed });
    clearTimeout(C.again);
    C.again = setTimeout(() => {
      if (tries < 3 && pending && same(pending, target) && !same(mine, target)) draw(target, tries + 1);
    }, 3000 + Math.random() * 2000);
  }

  // What the class's step asks, in this page's language: the panel's value comes back with it (say.ask).
  function learn(target) {
    if (!target || !trigger || askedAbout === target.join("/")) return;
    askedAbout = target.join("/");
    trigger("submit", { lesson: target[0], step: target[1], draw: false });
  }
  const asked = () => (say.ask && state && say.ask.lesson === state.lesson && say.ask.step === state.step ? say.ask : null);

  function declare() { // the teacher's page tells the class what its step asks (once the panel knows)
    const a = asked();
    if (!cls || !cls.teacher || !a || !state || state.ask === a.kind) return;
    post(`class/${cls.code}/step`, { secret: cls.secret, lesson: state.lesson, step: state.step,
                                     ask: { kind: a.kind, n: a.kind === "number" ? 0 : a.choices.length } })
      .then((d) => { state = d; render(); }, (e) => { problem = e.message; render(); });
  }

  async function tell(position) {
    try {
      state = await post(`class/${cls.code}/step`, { secret: cls.secret, lesson: position[0], step: position[1] });
      problem = "";
      learn(position);
    } catch (e) { problem = e.message; }
    render();
  }

  C.reveal = async function (shown) { // (also for the lesson's own reveal of an ask step: nothing without a class)
    if (!cls || !cls.teacher || !state || !state.ask) return;
    try {
      state = await post(`class/${cls.code}/reveal`, { secret: cls.secret, shown: shown });
    } catch (e) { problem = e.message; }
    render();
  };

  async function answer(value, label) {
    const key = state.lesson + "/" + state.step;
    try {
      state = await post(`class/${cls.code}/answer`, { page: pageId, step: state.step, value: value });
      mineAnswered[key] = label;
      problem = "";
    } catch (e) { problem = e.message; }
    render();
  }

  // --- the class: start, follow, end ---
  C.start = async function () {
    if (cls) { hidden = false; render(); return; }
    const now = lessonNow();
    if (!now) { setTimeout(C.start, 200); return; }
    C.starting = true;
    try {
      const made = await post("class/new", { lesson: now[0], step: now[1], base: location.origin + location.pathname });
      cls = { code: made.code, teacher: true, secret: made.secret, link: made.link, qr: made.qr };
      sessionStorage.setItem(KEY + made.code, JSON.stringify(cls));
      state = made;
      landed = true;
      problem = "";
      learn(now);
      const p = new URLSearchParams(location.search);
      p.set("class", made.code);
      p.set("lesson", now[0]);
      p.delete("step");
      history.replaceState(null, "", "?" + p.toString());
      connect();
    } catch (e) { problem = e.message; }
    C.starting = false;
    render();
  };

  function join(code) {
    let kept = null;
    try { kept = JSON.parse(sessionStorage.getItem(KEY + code) || "null"); } catch (e) { kept = null; }
    cls = kept && kept.secret ? kept : { code: code, teacher: false };
    connect();
    render();
  }

  function connect() {
    clearTimeout(retry);
    if (es) es.close();
    connection = "connecting";
    const role = cls.teacher ? "&role=teacher" : "";
    es = new EventSource(at(`class/${encodeURIComponent(cls.code)}/events?page=${pageId}${role}`));
    es.onopen = () => { connection = ""; render(); };
    es.onmessage = (ev) => {
      connection = "";
      state = JSON.parse(ev.data);
      arrived();
    };
    es.addEventListener("refused", (ev) => {
      const d = JSON.parse(ev.data);
      stop(d.detail);
      if (d.status === 503 || (d.status === 429 && cls && cls.teacher)) retry = setTimeout(connect, 15000);
    });
    es.onerror = () => {
      if (!es) return;
      connection = "lost";
      if (es.readyState === EventSource.CLOSED) { // refused by a limit before the stream began: ask why, then again
        es = null;
        retry = setTimeout(recheck, 2000 + Math.random() * 2000);
      }
      render();
    };
  }

  async function recheck() {
    try {
      const r = await fetch(at(`class/${encodeURIComponent(cls.code)}`), { credentials: "same-origin" });
      const d = await r.json().catch(() => ({}));
      if (r.ok) { connect(); return; }
      stop(d.detail);
      if (r.status === 429 || r.status >= 500) retry = setTimeout(recheck, 10000); // busy: it says so, then tries again
    } catch (e) { retry = setTimeout(recheck, 5000); }
  }

  function stop(sentence) {
    if (es) es.close();
    es = null;
    problem = sentence || "";
    connection = "";
    render();
  }

  function arrived() {
    if (state.ended) {
      const sentence = state.ended === "expired" ? say.expired : say.ended;
      if (cls.teacher) { sessionStorage.removeItem(KEY + cls.code); unaddress(); }
      stop(sentence);
      cls.over = true;
      render();
      return;
    }
    if (!landed) { // the first state: a follower (and a teacher's reloaded page) lands on the class's step, once
      if (mine) { // the page has drawn its own first step (else moved() does this when it has)
        landed = true;
        go(where());
      }
    } else if (!cls.teacher && following) {
      go(where());
      const l = document.getElementById("lesson");
      const key = where().join("/");
      if (state.revealed && same(mine, where()) && l && l.dataset.phase === "ask" && C.shownAt !== key) {
        C.shownAt = key; // (once per step: the answers' counts come again and again)
        draw(where(), 0); // the teacher's reveal: this page's view and check too
      }
    } else {
      learn(where());
    }
    render();
  }

  C.follow = function () {
    following = true;
    go(where());
    render();
  };

  function unaddress() { // the teacher's address forgets a class that is over
    const p = new URLSearchParams(location.search);
    if (!p.has("class")) return;
    p.delete("class");
    history.replaceState(history.state, "", p.toString() ? "?" + p.toString() : location.pathname);
  }

  C.end = async function () {
    if (!cls || !cls.teacher) return;
    try {
      await post(`class/${cls.code}/end`, { secret: cls.secret });
      sessionStorage.removeItem(KEY + cls.code);
      if (es) es.close();
      es = null;
      unaddress();
      cls = null; state = null; problem = "";
    } catch (e) { problem = e.message; }
    render();
  };

  // --- drawing ---
  function teaching(panel) { // the teacher's count of answers, the reveal, and the chart once revealed
    const a = asked();
    if (!a || !state.ask) return;
    panel.appendChild(window.AttnLabClassDraw.teaching(a, state, say, () => C.reveal(!state.revealed)));
  }

  function render() {
    if (!element) return;
    root = element.querySelector(".al-class-root") || element; // (Gradio may draw its template anew)
    document.body.classList.toggle("al-class-follower", !!(cls && !cls.teacher));
    document.body.classList.toggle("al-class-on", !!(cls && !cls.over));
    const parts = [];
    if (cls && cls.teacher && !cls.over) {
      const panel = el("div", "al-class-panel al-class-teacher" + (hidden ? " al-class-hidden" : ""));
      panel.setAttribute("role", "region");
      panel.setAttribute("aria-label", say.code || "");
      if (hidden) {
        panel.appendChild(codeBox(cls.code, say, false));
        if (state) panel.appendChild(el("span", "al-class-count", fill(say.followers, { n: state.followers })));
        panel.appendChild(button(say.show, "class-show", () => { hidden = false; render(); }));
        teaching(panel);
      } else {
        panel.appendChild(el("div", "al-class-label", say.code));
        panel.appendChild(codeBox(cls.code, say, true));
        panel.appendChild(el("div", "al-class-label", say.open));
        const link = el("div", "al-class-link", cls.link || "");
        panel.appendChild(link);
        if (cls.qr) panel.appendChild(qrSvg(cls.qr, say.qr));
        if (state) panel.appendChild(el("div", "al-class-count", fill(say.followers, { n: state.followers })));
        teaching(panel);
        const bar = el("div", "al-class-actions");
        bar.appendChild(button(say.hide, "class-hide", () => { hidden = true; render(); }));
        bar.appendChild(button(say.end, "class-end", C.end));
        panel.appendChild(bar);
      }
      parts.push(panel);
    } else if (cls && !cls.teacher) {
      const bar = el("div", "al-class-panel al-class-bar");
      bar.appendChild(codeBox(cls.code, say, false));
      let line = "";
      if (cls.over || problem) line = problem;
      else if (connection === "lost") line = say.lost;
      else if (!state) line = say.connecting;
      else if (following) line = say.following;
      else line = fill(say.away, { mine: mine ? mine[1] : "", theirs: state.step });
      const text = el("span", "al-class-status", line);
      text.id = "class-status";
      if (problem) text.setAttribute("role", "alert");
      bar.appendChild(text);
      if (state && !following && !cls.over && !problem) bar.appendChild(button(say.follow, "class-follow", C.follow, true));
      const a = asked();
      if (a && state.ask && !cls.over) {
        bar.appendChild(state.revealed ? chart(a)
          : window.AttnLabClassDraw.answering(a, mineAnswered[state.lesson + "/" + state.step], say, answer));
      }
      parts.push(bar);
    }
    if (!cls || cls.over && cls.teacher) parts.unshift(button(say.start, "class-start", C.start));
    if (problem && !(cls && !cls.teacher)) {
      const p = el("div", "al-class-panel al-class-problem", problem);
      p.id = "class-problem";
      p.setAttribute("role", "alert");
      parts.push(p);
    }
    // One dock holds it all: the start button alone sits in the page's top corner (a "corner"); a panel makes a
    // column at the window's right (a phone: a strip at its top). place() keeps the lesson out from under either.
    const dock = el("div", "al-class-dock");
    dock.id = "class-dock";
    const column = parts.some((p) => p.classList.contains("al-class-panel"));
    dock.classList.add(column ? "al-class-column" : "al-class-corner");
    if (cls && cls.teacher && !cls.over && !hidden) dock.classList.add("al-class-wide");
    dock.replaceChildren(...parts);
    const focused = document.activeElement && document.activeElement.id;
    root.replaceChildren(...(parts.length ? [dock] : []));
    if (focused && root.querySelector("#" + focused)) root.querySelector("#" + focused).focus();
    window.AttnLabClassDock.watch(dock); // (class_dock.js: the lesson is never under it)
  }

  // Called by the panel's js_on_load (core/ui/class_panel.py): its value holds the texts in the page's language.
  C.mount = function (host, props, watch, trig) {
    element = host;
    trigger = trig;
    say = props.value || {};
    watch("value", () => { say = props.value || {}; declare(); render(); });
    const code = params.get("class");
    if (code && code.toLowerCase() !== "new" && !cls) join(code.trim().toUpperCase());
    watchLesson();
    render();
  };
})();
