"""Provides the registry of tool sources, `TOOL_SOURCES`, and `ToolSet`: the sources of one run started into one
`ToolRegistry`, waited for, reported and closed together.

The app and `-p` (through `services.build_agent`), `plugins` and `doctor` all start their tools here. A new
source is its module (a `tools.source.ToolSource` with a `from_settings` factory) and one entry below.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any

from tui_agent.agent.endpoint import OFFLINE_MODEL, EndpointChoice
from tui_agent.agent.skill_tools import SkillSource
from tui_agent.config import Settings
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.mcp.source import McpSource
from tui_agent.tools.plugin_source import PluginSource
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.source import Finding, Listener, Redact, SourceFactory, ToolSource
from tui_agent.tools.web.source import WebSource

TOOL_SOURCES: dict[str, SourceFactory] = {
    "plugins": PluginSource.from_settings,  # first: the shipped tools and plugins keep their names
    "mcp": McpSource.from_settings,
    "web": WebSource.from_settings,
    "skills": SkillSource.from_settings,
}
"""Every source of tools by name, in the order they are started (an earlier one keeps a name both offer)."""


class ToolSet:
    """The run's tools: its registry and the sources that fill it."""

    def __init__(self, registry: ToolRegistry, sources: list[ToolSource]) -> None:
        self.registry, self.sources = registry, sources

    @classmethod
    async def start(
        cls, settings: Settings, redact: Redact, *, only: Collection[str] | None = None, offline_model: bool = False
    ) -> ToolSet:
        """Make every source (`only` those named) from `settings` and start them in order; what a source starts in
        the background goes on meanwhile (`settled` waits for it). `offline_model`: the offline model answers, so
        its demo tool is offered too (unless `[tools] demo_tools` says otherwise)."""
        settings = with_demo_tools(settings, offline_model)
        tools = cls(ToolRegistry(settings.tools), [])
        try:
            for name, factory in TOOL_SOURCES.items():
                if only is None or name in only:
                    source = factory(settings, redact)
                    tools.sources.append(source)
                    await source.start(tools.registry)
        except BaseException:
            await tools.close()
            raise
        return tools

    def source(self, name: str) -> ToolSource | None:
        """The source called `name`, if it runs."""
        return next((source for source in self.sources if source.name == name), None)

    @property
    def mcp_servers(self) -> McpServers | None:
        """The MCP servers (what the MCP screen shows and restarts); None without that source."""
        source = self.source("mcp")
        return source.servers if isinstance(source, McpSource) else None

    async def settled(self) -> None:
        """Wait until no source is still starting (each bounds its own wait)."""
        await asyncio.gather(*(source.settled() for source in self.sources))

    async def close(self) -> None:
        """Close every source (concurrently; one that fails does not keep the others open)."""
        await asyncio.gather(*(source.close() for source in self.sources), return_exceptions=True)

    def watch(self, listener: Listener) -> None:
        """Tell `listener` every source's notices during the run."""
        for source in self.sources:
            source.watch(listener)

    def notices(self) -> list[str]:
        """What the sources say once at start."""
        return [notice for source in self.sources for notice in source.notices()]

    def summary(self) -> dict[str, list[dict[str, Any]]]:
        """The rows the sources add to `tui-agent plugins --json`."""
        return {key: rows for source in self.sources for key, rows in source.summary().items()}

    def findings(self) -> list[Finding]:
        """What `doctor` says about each source, in the order they started."""
        return [finding for source in self.sources for finding in source.findings()]


def with_demo_tools(settings: Settings, offline_model: bool) -> Settings:
    """`settings` with `[tools] demo_tools` decided: when it is "auto" (the default), the offline model's demo tool
    (invented weather) is offered only to the offline model, never to a real one."""
    if settings.tools.demo_tools != "auto":
        return settings
    return settings.model_copy(update={"tools": settings.tools.model_copy(update={"demo_tools": offline_model})})


def answered_offline(choice: EndpointChoice, model: str) -> bool:
    """Whether the offline model answers: the built-in one, or one `tui-agent serve` runs, asked for its own model."""
    return choice.offline or model == OFFLINE_MODEL
