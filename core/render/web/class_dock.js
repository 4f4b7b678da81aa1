// Where the live class's dock sits (classroom.js draws it): the lesson (its Back, Next, Present and view) is never
// under it.
(function () {
  "use strict";
  if (window.AttnLabClassDock) return;
  // A column (wide windows): the page gives up the column's width on its right. A strip (a phone): the page starts
  // below it. The corner (the start button alone): the header (presenting: the lesson's bar) stops short of it, and
  // it scrolls with the page. Nothing is reserved while the Lesson tab is hidden (the dock is then not drawn).
  const PHONE = window.matchMedia("(max-width: 820px)");
  const reserved = {};
  function reserve(name, px) {
    const v = Math.max(0, Math.ceil(px)) + "px";
    if (reserved[name] === v) return;
    reserved[name] = v;
    document.documentElement.style.setProperty(name, v);
  }
  function place() {
    const dock = document.getElementById("class-dock");
    const r = dock && dock.getClientRects().length ? dock.getBoundingClientRect() : null;
    const shown = !!(r && r.width && r.height);
    const column = shown && dock.classList.contains("al-class-column");
    const corner = shown && !column;
    if (dock) dock.style.transform = corner ? `translateY(${-window.scrollY}px)` : "";
    reserve("--al-class-right", column && !PHONE.matches ? innerWidth - r.left : 0);
    reserve("--al-class-top", column && PHONE.matches ? r.bottom + 6 : 0);
    const beside = (id) => { // how far the element's right end reaches under the corner (its padding stops it short)
      const e = document.getElementById(id);
      if (!corner || !e || !e.getClientRects().length) return 0;
      return e.getBoundingClientRect().right - (r.left - 10);
    };
    reserve("--al-class-header", beside("app-header"));
    reserve("--al-class-lesson-bar", beside("lesson-bar"));
  }
  let dockSeen = null, lessonSeen = null;
  const sized = typeof ResizeObserver === "function" ? new ResizeObserver(() => place()) : null;
  function watchDock(dock) { // its size (a tab hidden or shown changes it too) and the lesson's
    if (!sized) return;
    if (dockSeen && dockSeen !== dock) sized.unobserve(dockSeen);
    dockSeen = dock;
    sized.observe(dock);
    const l = document.getElementById("lesson");
    if (l && l !== lessonSeen) { lessonSeen = l; sized.observe(l); }
  }
  window.addEventListener("resize", () => place());
  new MutationObserver(() => place()).observe(document.documentElement, { attributes: true, attributeFilter: ["class"] });
  window.addEventListener("scroll", () => {
    const dock = document.querySelector("#class-dock.al-class-corner");
    if (dock) dock.style.transform = `translateY(${-window.scrollY}px)`;
  }, { passive: true });

  window.AttnLabClassDock = { watch: (dock) => { watchDock(dock); place(); }, place };
})();
