// The live class's pieces (core/render/web/classroom.js draws the panel with them): elements whose every text is set
// with textContent (never parsed as HTML), the class's QR code as SVG, its answers as bars, its code.
(function () {
  "use strict";
  if (window.AttnLabClassDraw) return;
  const fill = (text, values) => String(text || "").replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  };
  const button = (text, id, onclick, primary) => {
    const b = el("button", "al-class-button" + (primary ? " al-class-primary" : ""), text);
    b.type = "button";
    if (id) b.id = id;
    b.addEventListener("click", onclick);
    return b;
  };

  function qrSvg(rows, label) {
    const n = rows.length, q = 4, size = n + 2 * q, ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
    svg.setAttribute("class", "al-class-qr");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label || "");
    svg.setAttribute("shape-rendering", "crispEdges");
    const bg = document.createElementNS(ns, "rect");
    bg.setAttribute("width", size);
    bg.setAttribute("height", size);
    bg.setAttribute("fill", "#ffffff");
    svg.appendChild(bg);
    let d = "";
    rows.forEach((row, y) => {
      for (let x = 0; x < row.length; x++) if (row[x] === "1") d += `M${x + q} ${y + q}h1v1h-1z`;
    });
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", d);
    path.setAttribute("fill", "#000000");
    svg.appendChild(path);
    return svg;
  }

  // The class's answers as bars, each labelled in this page's language and with its count as text.
  function chart(a, counts, say) {
    const box = el("div", "al-class-chart");
    box.id = "class-chart";
    box.appendChild(el("div", "al-class-label", say.chart));
    let rows;
    if (a.kind === "number") {
      rows = Object.keys(counts).map((k) => [k, counts[k]]).sort((x, y) => Number(x[0]) - Number(y[0])).slice(0, 12);
    } else {
      rows = a.choices.map((label, i) => [label, counts[String(i)] || 0]);
    }
    const most = Math.max(1, ...rows.map((r) => r[1]));
    if (!rows.some((r) => r[1])) box.appendChild(el("div", "al-class-note", say.no_answers));
    rows.forEach(([label, n]) => {
      const row = el("div", "al-class-row");
      row.appendChild(el("span", "al-class-choice", label));
      const track = el("span", "al-class-track");
      track.setAttribute("aria-hidden", "true");
      const bar = el("span", "al-class-bar-fill");
      bar.style.width = `${(100 * n) / most}%`;
      track.appendChild(bar);
      row.appendChild(track);
      row.appendChild(el("span", "al-class-n", n));
      box.appendChild(row);
    });
    return box;
  }

  // A follower's question and its choices (or a number); once answered (mine: its label), what it sent.
  function answering(a, mine, say, answer) {
    const box = el("div", "al-class-ask");
    box.appendChild(el("div", "al-class-question", a.question));
    if (mine !== undefined) {
      box.appendChild(el("div", "al-class-note", fill(say.sent, { answer: mine })));
      return box;
    }
    const row = el("div", "al-class-choices");
    if (a.kind === "number") {
      const input = el("input", "al-class-number");
      input.type = "number";
      input.step = "any";
      input.id = "class-number";
      input.setAttribute("aria-label", say.number);
      row.appendChild(input);
      row.appendChild(button(say.send, "class-send", () => {
        if (input.value !== "" && Number.isFinite(Number(input.value))) answer(Number(input.value), input.value);
      }, true));
    } else {
      a.choices.forEach((label, i) => row.appendChild(button(label, `class-choice-${i}`, () => answer(i, label))));
    }
    box.appendChild(row);
    return box;
  }

  // The teacher's count of answers, the reveal (or conceal) button, and the chart once revealed.
  function teaching(a, state, say, reveal) {
    const box = el("div", "al-class-teaching");
    const line = el("div", "al-class-count", fill(say.answered, { n: state.answered, m: state.followers }));
    line.id = "class-answered";
    box.appendChild(line);
    if (state.revealed) box.appendChild(chart(a, state.counts || {}, say));
    box.appendChild(button(state.revealed ? say.conceal : say.reveal, "class-reveal", reveal, !state.revealed));
    return box;
  }

  function codeBox(code, say, big) {
    const box = el("div", big ? "al-class-code al-class-big" : "al-class-code", code);
    box.id = "class-code";
    box.dataset.code = code;
    box.setAttribute("aria-label", fill(say.code_said, { code: code.split("").join(" ") }));
    return box;
  }

  window.AttnLabClassDraw = { el, button, fill, qrSvg, chart, codeBox, answering, teaching };
})();
