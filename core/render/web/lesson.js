// The lesson's screen in the browser: a clicker's keys wherever the focus is, the address that follows the step,
// the presenting mode, the outline, the speaker notes and the handout. Loaded by the Lesson tab (core/ui/lesson_tab.py);
// every text it shows comes from the server's HTML (escaped there) or is set with textContent.
(function () {
  "use strict";
  if (window.AttnLabLesson) return;
  const L = (window.AttnLabLesson = {});
  const NEXT = ["ArrowRight", "PageDown", " "], BACK = ["ArrowLeft", "PageUp"];
  // Keys of a lab link (core/ui/lab_link.py): a lesson's address drops them, they would open the lab instead.
  const LAB_KEYS = ["sentence", "variant", "causal", "scaled", "heads", "d_model", "seed", "options", "tab", "weights", "z"];
  const root = document.documentElement;
  const query = () => new URLSearchParams(location.search);
  L.presenting = () => root.classList.contains("al-present");

  // How the focused element got the focus: a pointer (the teacher clicked a checkbox, a button, a head) or the
  // keyboard (Tab). A clicker's key after a click moves the lesson; a keyboard user's Space keeps its own meaning.
  let pointerAt = 0, pointed = null;
  const byPointer = new WeakSet();
  window.addEventListener("pointerdown", (ev) => { pointerAt = Date.now(); pointed = ev.target; }, true);
  window.addEventListener("focusin", (ev) => { // the clicked element, its label's box, or what a click redrew
    const t = ev.target, near = pointed && (!pointed.isConnected || t.contains(pointed) || pointed.contains(t) ||
      (pointed.closest && pointed.closest("label") && pointed.closest("label").contains(t)));
    if (Date.now() - pointerAt < 800 && near) byPointer.add(t); else byPointer.delete(t);
  }, true);

  // A field that takes typed text keeps every key (the picker's search box, the sentence, a number).
  function typing(t) {
    if (!t || !t.tagName) return false;
    if (t.isContentEditable || t.tagName === "TEXTAREA" || t.tagName === "SELECT") return true;
    return t.tagName === "INPUT" && !["checkbox", "radio", "button", "submit", "reset"].includes((t.type || "").toLowerCase());
  }

  function press(id) {
    const b = document.getElementById(id);
    if (b && !b.disabled) b.click();
  }

  // The step to show, by its index from 0 (or "end"), sent to the server through the hidden #lesson-jump.
  L.jump = function (k) {
    L.jumpTo = String(k);
    L.outline(false);
    press("lesson-jump");
  };

  L.outline = function (open) {
    const on = open === undefined ? !root.classList.contains("al-outline-on") : !!open;
    root.classList.toggle("al-outline-on", on);
    if (on) {
      const here = document.querySelector("#lesson-outline .al-jump[aria-current=step]") ||
        document.querySelector("#lesson-outline .al-jump");
      if (here) here.focus();
    }
  };
  L.notes = () => root.classList.toggle("al-notes-on");
  L.present = function (on) {
    const now = on === undefined ? !L.presenting() : !!on;
    root.classList.toggle("al-present", now);
    window.dispatchEvent(new Event("resize")); // (the views fit their new room)
    L.address();
  };

  window.addEventListener("keydown", (ev) => {
    const lesson = document.getElementById("lesson");
    if (!lesson || !lesson.offsetParent || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const t = ev.target;
    if (typing(t)) return;
    const outline = root.classList.contains("al-outline-on");
    if (outline && (ev.key === "ArrowDown" || ev.key === "ArrowUp")) { // through the outline's steps
      const items = [...document.querySelectorAll("#lesson-outline .al-jump")];
      const i = items.indexOf(document.activeElement) + (ev.key === "ArrowDown" ? 1 : -1);
      if (items.length) items[Math.max(0, Math.min(items.length - 1, i))].focus();
      ev.preventDefault();
      return;
    }
    if (ev.key === "Escape" && outline) { L.outline(false); ev.preventDefault(); return; }
    const letter = ev.key.length === 1 ? ev.key.toLowerCase() : "";
    if (letter === "o" || letter === "n" || letter === "p") {
      ({ o: () => L.outline(), n: L.notes, p: () => L.present() })[letter]();
      ev.preventDefault();
      return;
    }
    const next = NEXT.includes(ev.key), back = BACK.includes(ev.key);
    if (!next && !back) return;
    const pointer = t && byPointer.has(t);
    if (!pointer && t && t.closest) {
      // the keyboard's own: a head's cell cursor takes the arrows; Space presses the focused button or ticks the box
      if (t.closest("[role=application]") && ev.key !== "PageDown" && ev.key !== "PageUp") return;
      const own = t.matches("button, a[href], summary, [role=button], input[type=checkbox], input[type=radio]");
      if (ev.key === " " && own) {
        if (t.getAttribute("role") === "button" && t.tagName !== "BUTTON") { ev.preventDefault(); t.click(); }
        return;
      }
    }
    if (outline) L.outline(false);
    ev.preventDefault(); // (a radio's arrows, a checkbox's Space, a button's Space: the clicker's here)
    ev.stopPropagation();
    if (pointer && t.blur) t.blur(); // the next key is the clicker's too
    press(next ? "lesson-next" : "lesson-back");
  }, true);

  document.addEventListener("click", (ev) => {
    const j = ev.target.closest && ev.target.closest(".al-jump");
    if (j && j.dataset.k !== undefined) { ev.preventDefault(); L.jump(j.dataset.k); }
  });

  // The address of the step shown: ?lesson=NAME&step=N (or step=end), the presenting mode and the page's other
  // lesson keys kept, a lab link's keys dropped; replaced, not pushed (Back leaves the lesson, as it came).
  L.address = function () {
    const l = document.getElementById("lesson");
    if (!l || !l.dataset.lesson || !l.dataset.step) return;
    const q = query();
    LAB_KEYS.forEach((k) => q.delete(k));
    q.set("lesson", l.dataset.lesson);
    q.set("step", l.dataset.step);
    if (L.presenting()) q.set("present", "1"); else q.delete("present");
    const url = location.pathname + "?" + q.toString().replace(/%2C/g, ",");
    if (url !== location.pathname + location.search) history.replaceState(history.state, "", url);
  };

  // After each move (core/ui/lesson_tab.py MARK_JS wrote #lesson's data attributes, the public contract): the
  // address. first: the page's first step, whose address (bare, a lab link's ?sentence=..., a handout's) is kept.
  let before = ""; // the place marked last: "lesson/step/phase"
  L.marked = function (first) {
    const l = document.getElementById("lesson"), place = l ? [l.dataset.lesson, l.dataset.step].join("/") : "";
    // a question revealed here (same step, its "ask" phase over) is revealed to a live class's pages too (#34)
    if (l && before === place + "/ask" && !l.dataset.phase && window.AttnLabClass) window.AttnLabClass.reveal(true);
    before = l ? place + "/" + (l.dataset.phase || "") : "";
    const q = query();
    if (first && !q.has("lesson")) return; // the bare address (or a lab link's) stays until the presenter moves
    if (first && q.get("print") === "1") return;
    L.address();
  };

  // A step's check too long for the screen beside its view (its expectations measured under it; presenting, the
  // words' column is a third of the screen): a size smaller, down to 16 px, rather than push itself or the step's
  // controls under it past the screen's foot; still too long, the step's text a size smaller too. Each new check starts
  // at the full size. Not on a phone: there the view, under the text, says when it is too tall (below).
  const FIT = ["", "18", "16"];
  let fitting = 0;
  const foot = (words) => Math.max(0, ...[...words.children].filter((e) => e.offsetParent)
    .map((e) => e.getBoundingClientRect().bottom)) + scrollY;
  function fitCheck() {
    fitting = 0;
    const c = document.getElementById("lesson-check"), words = document.getElementById("lesson-words");
    if (!c || !words) return;
    c.dataset.fit = words.dataset.fit = "";
    if (!c.offsetParent || innerWidth <= 820) return;
    for (let i = 1; i < FIT.length && foot(words) > innerHeight; i++) c.dataset.fit = FIT[i];
    for (const px of ["18", "17"]) if (foot(words) > innerHeight) words.dataset.fit = px; // then the step's text
  }
  L.fitCheck = () => { if (!fitting) fitting = requestAnimationFrame(fitCheck); };
  // (the step's words changed, not its view redrawn: the view's own redraws never reset the size they asked for)
  const words = (t) => t.closest && t.closest("#lesson-step") && !t.closest("#lesson-view");
  new MutationObserver((records) => {
    if (records.some((r) => words(r.target.nodeType === 1 ? r.target : r.target.parentElement || {}))) L.fitCheck();
  }).observe(document.documentElement, { childList: true, subtree: true, characterData: true });

  // A phone or a tablet upright (the view under the step's text, core.js A.room): a view too tall for the room left
  // above Back and Next, even at its least, has the step's text and check a size smaller, down to 15 px.
  const TIGHT = ["16", "15"];
  document.addEventListener("al-tight", (ev) => {
    const w = document.getElementById("lesson-words");
    if (!w || !ev.target.closest || !ev.target.closest("#lesson-view") || innerWidth > 820) return;
    const next = TIGHT[TIGHT.indexOf(w.dataset.fit || "") + 1];
    if (next) { w.dataset.fit = next; ev.preventDefault(); } // (taken: the view waits for its new room)
  });
  window.addEventListener("resize", L.fitCheck);

  if (query().get("present") === "1") root.classList.add("al-present");
  if (query().get("print") === "1") root.classList.add("al-print");
  L.marked(true); // (the first step may have come before this file)
})();
