"""The app's Content-Security-Policy: a page of the lab loads images, media, frames and form targets from the lab only.

Lesson text reaches the page only as markdown-it's HTML (core.render.lesson_html), and a lesson's images only from
the app (core.serve.lesson_images); this header is the backstop that holds if anything else ever slips through: the
browser itself refuses to fetch from, frame or submit a form to another host. What Gradio's own page needs, and only
that, is allowed besides 'self' (measured in Chromium, tests/test_browser_lesson_attack.py): its inline scripts and
the functions it builds from js= strings ('unsafe-inline', 'unsafe-eval'), inline styles, data: and blob: images
(icons, a canvas exported), data: fonts. No other host appears; frame-ancestors is left open, so a Space can
embed the app.
"""

from __future__ import annotations

from typing import Any

POLICY = "; ".join((
    "default-src 'self'",
    "script-src 'self' 'unsafe-inline' 'unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-src 'self'",
    "worker-src 'self' blob:",
    "form-action 'self'",
    "object-src 'none'",
    "base-uri 'self'",
))
HEADER = b"content-security-policy"


class ContentPolicy:
    """ASGI middleware: every answer carries POLICY (an answer that sets its own, stricter one keeps it)."""

    def __init__(self, app: Any, policy: str = POLICY) -> None:
        self.app, self.policy = app, policy.encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_policy(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                if not any(name.lower() == HEADER for name, _ in headers):
                    message = {**message, "headers": [*headers, (HEADER, self.policy)]}
            await send(message)

        await self.app(scope, receive, with_policy)
