"""Provides `Cors`: which web pages may call the server from a browser (none unless `serve --cors-origin` says).

Without CORS headers a browser lets no page read the server's answers; that is the default, and it is safe.
Origins named with `--cors-origin` (exact, as a browser sends `Origin`: `https://app.example.com`, or `*` for any)
get `Access-Control-Allow-Origin` on every response to their requests and an answer to their preflight
(`OPTIONS`), which allows the headers OpenAI clients send (`Authorization` for the key, `Content-Type`...). The
guard's checks (`Host`, the key) apply to a browser's requests as to any other.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui_agent.offline.http import Request

ALLOWED_HEADERS = "Authorization, Content-Type, X-Api-Key, OpenAI-Organization, OpenAI-Project, X-Stainless-*"
"""What a preflight may ask for (the openai SDK adds its `x-stainless-*` headers; any asked are echoed back)."""
ALLOWED_METHODS = "GET, POST, OPTIONS"


@dataclass(frozen=True)
class Cors:
    """The origins allowed; empty: no browser page may read answers (no CORS headers at all)."""

    origins: frozenset[str] = frozenset()

    def allows(self, origin: str | None) -> bool:
        return origin is not None and ("*" in self.origins or origin in self.origins)

    def headers_for(self, request: Request) -> dict[str, str]:
        """The CORS headers for a response to `request` (none when its origin is not allowed)."""
        origin = request.headers.get("origin")
        if not self.allows(origin):
            return {}
        assert origin is not None
        return {
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Expose-Headers": "X-Request-Id, X-Tui-Agent-Session",
            "Vary": "Origin",
        }

    def preflight(self, request: Request) -> dict[str, str] | None:
        """The answer's headers to an allowed origin's preflight, None when it is not one."""
        if not self.allows(request.headers.get("origin")) or "access-control-request-method" not in request.headers:
            return None
        asked = request.headers.get("access-control-request-headers", "")
        return {
            "Access-Control-Allow-Methods": ALLOWED_METHODS,
            "Access-Control-Allow-Headers": asked or ALLOWED_HEADERS,
            "Access-Control-Max-Age": "600",
        }
