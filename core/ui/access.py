"""What makes the whole page usable without sight, mouse or a wide screen: the theme's colours (WCAG 2.1 AA in the
light and the dark scheme), the page's CSS (focus rings, reflow) and the announcer (what changes is said)."""

from __future__ import annotations

import gradio as gr

from core.render import web

CSS_PATHS = [web.ASSETS.joinpath("page.css")]  # focus rings, code colours, the phone layout: the page's, not a view's
LIVE = "al-live"  # elem_classes of a block whose changes a screen reader says (a lesson's step, its check)
# The page's announcer: one polite region (a step, a live block) and one alert region (every error: the problem box
# a fast event writes, a toast). Each is said again even when the same sentence comes back.
ANNOUNCER_JS = """<script>(function () {
  if (window.alAnnouncer) return;
  function region(id, role, live) {
    var e = document.createElement("div");
    e.id = id; e.className = "al-sr"; e.setAttribute("role", role); e.setAttribute("aria-live", live);
    e.setAttribute("aria-atomic", "true");
    document.body.appendChild(e);
    return e;
  }
  var polite = null, alert = null, said = new WeakMap();
  function say(el, text) {
    el.textContent = "";
    setTimeout(function () { el.textContent = text; }, 60);
  }
  window.alAnnouncer = {
    polite: function (text) { if (polite && text) say(polite, text); },
    alert: function (text) { if (alert && text) say(alert, text); }
  };
  function look() {
    document.querySelectorAll(".LIVE").forEach(function (b) {
      if (!b.hasAttribute("aria-live")) { b.setAttribute("aria-live", "polite"); b.setAttribute("aria-atomic", "true"); }
    });
    document.querySelectorAll(".al-problem textarea").forEach(function (t) {
      var was = said.get(t) || "", now = t.value.trim();
      if (now !== was) { said.set(t, now); if (now) window.alAnnouncer.alert(now); }
    });
  }
  function start() {
    polite = region("al-announcer", "status", "polite");
    alert = region("al-alert", "alert", "assertive");
    new MutationObserver(function (changes) {
      changes.forEach(function (c) {
        c.addedNodes.forEach(function (n) {
          if (!n.querySelectorAll) return;
          var toasts = n.matches && n.matches("[data-testid=toast-body]") ? [n] : n.querySelectorAll("[data-testid=toast-body]");
          toasts.forEach(function (t) {
            var text = t.querySelector("[data-testid=toast-text]");
            window.alAnnouncer.alert(((text || t).textContent || "").trim());
          });
        });
      });
    }).observe(document.body, {childList: true, subtree: true});
    setInterval(look, 250);
    look();
  }
  if (document.body) start(); else document.addEventListener("DOMContentLoaded", start);
})();</script>""".replace("LIVE", LIVE)


def theme() -> gr.themes.Base:
    """Gradio's default theme, local fonts only, its colours moved to WCAG 2.1 AA: white text on the primary buttons
    4.5:1 and more (the orange was 2.8:1), help text and the footer 4.5:1 (1.9:1), a focused field's ring 3:1 (1.8:1),
    the selected tab's text 4.5:1 (2.8:1), in the light and the dark scheme."""
    return gr.themes.Default(font=["ui-sans-serif", "system-ui", "sans-serif"],
                             font_mono=["ui-monospace", "monospace"]).set(  # no Google Fonts download
        body_text_color_subdued="*neutral_600", body_text_color_subdued_dark="*neutral_400",
        block_label_text_color="*neutral_600",
        color_accent="*primary_700",  # (it has no dark twin: page.css lightens the selected tab on a dark page)
        border_color_accent="*primary_700", border_color_accent_dark="*primary_500",
        button_primary_background_fill="*primary_700", button_primary_background_fill_dark="*primary_700",
        button_primary_background_fill_hover="*primary_800", button_primary_background_fill_hover_dark="*primary_800",
        button_primary_border_color="*primary_700", button_primary_border_color_dark="*primary_700",
        button_primary_border_color_hover="*primary_800", button_primary_border_color_hover_dark="*primary_800",
        input_border_color_focus="*secondary_700", input_border_color_focus_dark="*secondary_400",
        input_shadow_focus="0 0 0 2px *secondary_700", input_shadow_focus_dark="0 0 0 2px *secondary_400",
        link_text_color="*secondary_700", link_text_color_dark="*secondary_400",
        link_text_color_visited="*secondary_800", link_text_color_visited_dark="*secondary_300",
        link_text_color_hover="*secondary_800", link_text_color_active="*secondary_800",
    )
