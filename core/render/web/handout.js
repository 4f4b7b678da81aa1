// A lesson's handout (?lesson=NAME&print=1, core/ui/lesson_handout.py): every step on a page of its own, its text,
// its question, its view and its check. Each step's view is drawn by its own kind's function, at the page's width.
// The text and the check come as trees of the Markdown renderer's elements (core.render.lesson_html.tree: its own
// elements and attributes only), built here with createElement and textContent: no string becomes markup.
(function () {
  "use strict";
  const A = window.AttnLab;
  if (!A || !A.needs) throw new Error("handout.js needs core.js, loaded before it");
  A.needs("handout.js", ["el", "views"]);

  // [tag, {attribute: value}, child, ...] -> an element; a child string is text
  function built(node) {
    if (typeof node === "string") return document.createTextNode(node);
    const [tag, attrs, ...children] = node;
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    children.forEach((c) => e.appendChild(built(c)));
    return e;
  }

  A.views.handout = function (root, data, ctx) {
    root.replaceChildren();
    ctx.parts = ctx.parts || [];
    (data.steps || []).forEach((step, k) => {
      const page = A.el("section", "al-handout-step");
      page.dataset.step = String(k + 1);
      page.appendChild(A.el("div", "al-handout-n", step.head));
      const text = built(step.text);
      text.className = "al-handout-text";
      page.appendChild(text);
      if (step.question) page.appendChild(A.el("p", "al-handout-question", step.question));
      const seen = A.el("div", "al-root al-handout-view");
      page.appendChild(seen);
      const check = built(step.check);
      check.className = "al-handout-check";
      page.appendChild(check);
      root.appendChild(page);
      const view = step.view && A.views[step.view.kind];
      if (view) view(seen, step.view, ctx.parts[k] = { state: {}, props: {} });
    });
  };
})();
