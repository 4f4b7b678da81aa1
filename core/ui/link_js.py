"""The page's side of a lab link: the address Copy link writes and Open in the lab leaves in the address bar.

Every address the page writes opens: the server reads at most MAX_URL_BYTES of path and query (core.serve.errors,
414 past it). A state whose plain address (`?sentence=…&variant=…`, readable, docs/app.md) is longer than PLAIN
bytes is written as one parameter, `?z=`: the same keys as JSON, deflated (the browser's CompressionStream,
"deflate-raw") and base64url-encoded, which core/ui/lab_link.py reads back with a cap on what it inflates to. A
state too long even so (a sentence of thousands of characters no compression shortens enough) is not written:
Copy link says so in one sentence, and Open in the lab leaves the address as it was.
"""

from __future__ import annotations

import json

from core.i18n import languages, mark, speaking, t
from core.serve.errors import MAX_URL_BYTES

from . import trained_panel

PLAIN = 2000  # bytes: up to this a link stays readable (?sentence=…); past it, ?z=
TEXT = {"copy": mark("Copy link"), "done": mark("Link copied"), "fallback": mark("Copy this link:"),
        "field": mark("Link to this view"), "warning": mark("Lab link"),  # (the warning's title)
        "long": mark("This view's link would be longer than the {n} bytes the lab reads, because its sentence is "
                     "long; shorten the sentence to share it.")}

# (values, tab) -> a promise of the address of that state on this page (null: too long for any address): every key
# percent-encoded (UTF-8: a Chinese sentence reads back as typed), options only when it holds some, booleans as
# true/false; past PLAIN bytes, the same as ?z= (JSON, deflate-raw, base64url).
LINK_JS = """(async (v, tab) => {
  const kept = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === undefined || x === "") continue;
    if (k === "options" && String(x).replace(/\\s/g, "") === "{}") continue;
    kept[k] = String(x);
  }
  if (tab) kept.tab = tab;
  const bytes = (s) => new TextEncoder().encode(s).length;
  const query = Object.entries(kept).map(([k, x]) => k + "=" + encodeURIComponent(x)).join("&");
  if (bytes(location.pathname) + bytes(query) <= PLAIN) return location.origin + location.pathname + "?" + query;
  const zipped = new Blob([JSON.stringify(kept)]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const raw = new Uint8Array(await new Response(zipped).arrayBuffer());
  let s = "";
  for (let i = 0; i < raw.length; i += 8192) s += String.fromCharCode.apply(null, raw.subarray(i, i + 8192));
  const z = btoa(s).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  if (bytes(location.pathname) + 2 + z.length > MAX) return null;
  return location.origin + location.pathname + "?z=" + z;
})"""

# ?z= back into the parameters it holds (for the page's own code: which tab a link opens).
UNZIP_JS = """(async (z) => {
  const s = atob(z.replace(/-/g, "+").replace(/_/g, "/"));
  const raw = Uint8Array.from(s, (c) => c.charCodeAt(0));
  const text = await new Response(new Blob([raw]).stream().pipeThrough(new DecompressionStream("deflate-raw"))).text();
  return new URLSearchParams(JSON.parse(text));
})"""

# Copy link: the address of what the Attention tab shows, to the clipboard when the page may write it (https or
# localhost), else in a read-only field, selected; a short confirmation that fades; a link too long for any address
# is not written, and the note says why. Drawn in the page's own element (text and value only: a sentence is never
# read as HTML), never an output of an event.
COPY_JS = """async (sentence, variant, causal, scaled, heads, d_model, seed, options, switch_) => {
  const weights = switch_ === TRAINED ? "trained" : undefined;  // written only when the trained model is shown
  const url = await LINK({sentence, variant, causal, scaled, heads, d_model, seed, options, weights}, "attention");
  const words = TEXT, lang = (document.documentElement.lang || "en").toLowerCase();
  const say = words[Object.keys(words).find((k) => lang === k.toLowerCase())
                    || Object.keys(words).find((k) => lang.split("-")[0] === k.toLowerCase().split("-")[0]) || "en"];
  let pop = document.getElementById("lab-link-pop");
  if (!pop) {
    pop = document.createElement("div");
    pop.id = "lab-link-pop";
    pop.className = "al-link-pop";
    const note = document.createElement("span"), box = document.createElement("input");
    note.className = "al-link-note";
    note.setAttribute("role", "status");
    box.id = "lab-link-url";
    box.readOnly = true;
    box.addEventListener("focus", () => box.select());
    pop.append(note, box);
    document.body.append(pop);
    const hide = () => pop.classList.remove("al-shown");
    document.addEventListener("keydown", (e) => { if (e.key === "Escape") hide(); });
    document.addEventListener("pointerdown", (e) => {
      if (!pop.contains(e.target) && !(e.target.closest && e.target.closest(".al-link-copy"))) hide();
    });
  }
  const [note, box] = pop.children;
  box.value = url || "";
  box.hidden = !url;
  box.setAttribute("aria-label", say.field);
  const show = (text, stays) => {
    note.textContent = text;
    const b = document.getElementById(BUTTON), r = b ? b.getBoundingClientRect() : {right: innerWidth, bottom: 0};
    pop.style.top = (r.bottom + scrollY + 4) + "px";
    pop.style.left = Math.max(8, Math.min(r.right, document.documentElement.clientWidth - 8) - pop.offsetWidth) + scrollX + "px";
    pop.classList.add("al-shown");
    clearTimeout(pop.fading);
    if (stays && url) { box.focus(); box.select(); } else if (!stays) pop.fading = setTimeout(() => pop.classList.remove("al-shown"), 2500);
  };
  if (!url) { show(say.long, true); return; }
  const by_hand = () => show(say.fallback, true);
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(url).then(() => show(say.done, false), by_hand);
  else by_hand();
}"""


def link_js() -> str:
    """LINK_JS with its limits filled in."""
    return LINK_JS.replace("PLAIN", str(PLAIN)).replace("MAX", str(MAX_URL_BYTES))


def words() -> dict[str, dict[str, str]]:
    """Copy link's words in every language the app speaks (the page picks by its <html lang>)."""
    out = {}
    for language in languages():
        with speaking(language):
            out[language] = {k: t(v, n=f"{MAX_URL_BYTES:,}") for k, v in TEXT.items()}
    return out


def copy_js(button: str = "lab-link-copy") -> str:
    """The Copy link button's page code, its words in every language (the page picks by <html lang>); the link's
    note is placed under `button` (an element id: each side of the Weights switch has its own button)."""
    return (COPY_JS.replace("LINK", link_js(), 1).replace("TEXT", json.dumps(words(), ensure_ascii=False), 1)
            .replace("BUTTON", json.dumps(button), 1).replace("TRAINED", json.dumps(trained_panel.TRAINED), 1))


def replace_js(names: dict[str, str | None]) -> str:
    """Open in the lab's page code, after it: the address bar holds the lab link of that state, weights=trained when
    the step shows the trained model (a teacher copies it from the browser); a state too long for an address leaves
    the address as it was. `names`: a lesson view -> the name of the tab a link opens for it."""
    return """async (lab) => {
      if (!lab || !lab.sentence) return;
      const o = lab.options && Object.keys(lab.options).length ? JSON.stringify(lab.options) : undefined;
      const weights = lab.weights === "trained" ? "trained" : undefined;  // the step's trained model, kept
      const url = await LINK({sentence: lab.sentence, variant: lab.variant, causal: lab.causal, scaled: lab.scaled,
                              heads: lab.heads, d_model: lab.d_model, seed: lab.seed, options: o, weights},
                             NAMES[lab.view || "heatmaps"]);
      if (url) history.replaceState(history.state, "", url);
    }""".replace("LINK", link_js(), 1).replace("NAMES", json.dumps(names))
