"""Provides `McpSource`: the run's configured MCP servers as one tool source (`tools.source.ToolSource`).

`McpServers` does the work (started in the background, tools in and out of the registry as servers come and
go, notices); this says it in the builder's terms, and what `plugins` and `doctor` report of the servers.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tui_agent import paths
from tui_agent.config import McpServerSettings, Settings
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.source import Finding, Listener, Redact


class McpSource:
    """The MCP servers of `[mcp_servers]`; `servers` is None until started (the MCP screen reads it)."""

    name = "mcp"

    def __init__(self, configured: Mapping[str, McpServerSettings], log_dir: Path, *, redact: Redact) -> None:
        self.configured, self.log_dir, self.redact = dict(configured), log_dir, redact
        self.servers: McpServers | None = None
        self._registry: ToolRegistry | None = None

    @classmethod
    def from_settings(cls, settings: Settings, redact: Redact) -> McpSource:
        """Every configured server (a disabled one too: the MCP screen can turn it on); logs in the data dir."""
        return cls(settings.mcp_servers, paths.data_dir() / "mcp", redact=redact)

    async def start(self, registry: ToolRegistry) -> None:
        self._registry = registry
        self.servers = McpServers(self.configured, registry, self.log_dir, redact=self.redact)
        self.servers.start()  # in the background: a turn waits for servers still starting, each bounded

    async def settled(self) -> None:
        if self.servers is not None:
            await self.servers.settled()

    async def close(self) -> None:
        if self.servers is not None:
            await self.servers.close()

    def watch(self, listener: Listener) -> None:
        if self.servers is not None:
            self.servers.watch(listener)

    def notices(self) -> list[str]:
        return []  # the servers' notices come as they start (`watch`)

    def summary(self) -> Mapping[str, list[dict[str, Any]]]:
        return {"mcp_servers": self.servers.summary()} if self.servers is not None and self.configured else {}

    def findings(self) -> list[Finding]:
        """Each server's state and tools (a failed one fails), tools left out, descriptions cut, stray output."""
        if self.servers is None or not self.servers.servers:
            return [Finding("ok", "mcp", "no MCP servers configured")]
        servers, registry = list(self.servers.servers.values()), self._registry
        findings = [
            _state(server.name, server.state.value, server.describe(notes=False), server.offered(), server.log_path)
            for server in servers
        ]
        findings += [
            Finding(
                "warn",
                f"mcp {server.name}",
                f"{note}: {', '.join(server.needing_tasks())}",
                "they are left out; nothing to do unless you need them",
            )
            for server in servers
            if (note := server.tasks_note())
        ]
        if registry is not None:
            findings += [
                Finding(
                    "warn",
                    f"mcp {server.name}",
                    f"the description of {name} is {registry.capped[name]:,} characters; the model is sent the "
                    f"first {registry.settings.description_cap:,}",
                    "nothing to do; tools.description_cap sets how much is sent",
                )
                for server in servers
                for name in self.servers.capped(server.name)
            ]
        findings += [
            Finding(
                "warn", f"mcp {server.name}", f"it {server.stray_output} (skipped)", f"see its log {server.log_path}"
            )
            for server in servers
            if server.stray_output and server.state == "ready"
        ]
        return findings


def _state(name: str, state: str, said: str, tools: list[str], log: Path) -> Finding:
    if state == "ready":
        listed = ", ".join(tools[:8]) + (", ..." if len(tools) > 8 else "")
        return Finding("ok", f"mcp {name}", f"{said}{': ' + listed if listed else ''}")
    return Finding("fail", f"mcp {name}", said, f"see its log {log}, or set enabled = false in [mcp_servers.{name}]")
