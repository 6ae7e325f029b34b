"""Provides `WebSource`: the shipped `web_fetch` tool as a tool source, built from the `[web]` settings.

`web_fetch` asks first (approval `ask`). What "always" allows is the host of the address, for the session;
`[tools.web_fetch] allow = ["docs.python.org", "*.readthedocs.io"]` lets hosts matching a pattern be fetched
unasked. It reads and changes nothing here (`effect="read"`). `[web] enabled = false` (or "web" in `[tools]
disabled_plugins`) leaves it out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any
from urllib.parse import urlsplit

from tui_agent.config import EVERY_TOOL, Settings, WebSettings
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.source import Finding, Listener, Redact
from tui_agent.tools.spec import ToolOptions, ToolSpec, build_spec
from tui_agent.tools.web.fetch import Limits, Page, fetch

NAME = "web_fetch"


@dataclass(frozen=True)
class HostGrantedSpec(ToolSpec):
    """A tool whose "always" answer and `allow` patterns concern the host of its `url` argument."""

    def command_in(self, arguments: Mapping[str, Any]) -> str | None:
        return (urlsplit(str(arguments.get("url", ""))).hostname or "").lower() or None


def web_fetch_spec(settings: WebSettings) -> ToolSpec:
    """The `web_fetch` tool, fetching within `settings`' limits."""
    limits = Limits(settings.max_bytes, settings.timeout, settings.max_redirects)
    allow_private = tuple(settings.allow_private)

    async def web_fetch(url: str) -> str:
        """Fetch a web page (http or https) and return its content as Markdown (HTML) or text.

        Args:
            url: The full address, e.g. https://docs.python.org/3/library/asyncio.html
        """
        from tui_agent.tools.web.readable import readable  # deferred: BeautifulSoup and markdownify load on use

        page = await fetch(url, limits, allow_private)
        title, text = readable(page)
        return described(page, title, text, limits)

    options = ToolOptions(name=NAME, approval="ask", effect="read")
    spec = build_spec(web_fetch, options, source="tui_agent.tools.web", plugin="web")
    return HostGrantedSpec(**{field.name: getattr(spec, field.name) for field in fields(spec)})


def described(page: Page, title: str, text: str, limits: Limits) -> str:
    """The tool's answer: a heading naming the page and where it came from, then its content."""
    lines = [f"# {title}", f"Source: {page.url}"]
    if page.redirects:
        lines.append(f"Redirected from: {page.redirects[0]}")
    if page.status >= 400:
        lines.append(f"HTTP status: {page.status} (the server's error page follows)")
    if page.cut:
        lines.append(f"Cut at {limits.max_bytes:,} bytes: the page is longer.")
    return "\n".join(lines) + "\n\n" + (text or "(the page has no readable text)")


class WebSource:
    """The web tools of a run (today: `web_fetch`)."""

    name = "web"

    def __init__(self, settings: WebSettings) -> None:
        self.settings = settings

    @classmethod
    def from_settings(cls, settings: Settings, redact: Redact) -> WebSource:
        return cls(settings.web)

    async def start(self, registry: ToolRegistry) -> None:
        """Offer `web_fetch` unless `[web]` turns it off, `disabled_plugins` names "web", or an invalid
        `[tools]` table turns every tool off (as it leaves the plugins unloaded)."""
        tools = registry.settings
        off = EVERY_TOOL in tools.turned_off or "web" in tools.disabled_plugins
        if self.settings.enabled and not off:
            registry.add(web_fetch_spec(self.settings))

    async def settled(self) -> None:
        return None

    async def close(self) -> None:
        return None

    def watch(self, listener: Listener) -> None:
        return None

    def notices(self) -> list[str]:
        return []

    def summary(self) -> Mapping[str, list[dict[str, Any]]]:
        return {}

    def findings(self) -> list[Finding]:
        if not self.settings.enabled:
            return [Finding("ok", "web", "web_fetch is off ([web] enabled = false)")]
        private = ", ".join(self.settings.allow_private) or "none"
        return [Finding("ok", "web", f"web_fetch: public addresses only (private ones allowed: {private})")]
