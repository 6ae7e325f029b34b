"""Provides the report of `tui-agent plugins` (the command is `tui_agent.plugins_cli`): every tool found, its
source, policy and status, and every load problem.

Configured MCP servers are started (concurrently, each bounded by its `startup_timeout`), listed with
their state, their tools listed with the server as the source, and stopped again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tui_agent import paths
from tui_agent.config import McpServerSettings, resolve_settings
from tui_agent.tools.mcp.log import Redact
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry


def collect(extra_dirs: Sequence[Path], redact: Redact) -> dict[str, Any]:
    """Load the plugins as a chat would (`extra_dirs` first, then the config's `plugin_dirs`), start the MCP
    servers (their stderr logged through `redact`) and describe what came of it."""
    settings, notices = resolve_settings({}, paths.config_file())
    registry = ToolRegistry.from_plugins([*extra_dirs, *settings.plugin_dirs], settings.tools)
    if settings.mcp_servers:
        return asyncio.run(_with_servers(registry, settings.mcp_servers, notices, redact))
    return describe(registry, notices)


async def _with_servers(
    registry: ToolRegistry, configured: dict[str, McpServerSettings], notices: list[str], redact: Redact
) -> dict[str, Any]:
    """Start the MCP servers, wait for them and describe everything; the servers are stopped afterwards."""
    servers = McpServers(configured, registry, paths.data_dir() / "mcp", redact=redact)
    try:
        servers.start()
        await registry.settled()
        return describe(registry, notices, servers.summary())
    finally:
        await servers.close()


def describe(
    registry: ToolRegistry, notices: list[str] | None = None, servers: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The registry as plain data (the `--json` output)."""
    tools = [
        {
            "name": entry.spec.name,
            "source": entry.spec.source,
            "plugin": entry.spec.plugin,
            "approval": registry.approval_for(entry.spec.name) if entry.status == "enabled" else entry.spec.approval,
            "status": entry.status,
            "replaced_by": entry.replaced_by,
            "description": entry.spec.description,
        }
        for entry in registry.entries
    ]
    problems = [{"file": problem.file, "message": problem.message} for problem in registry.problems]
    hooks = [{"kind": kind, "hook": name} for kind, found in registry.hooks.by_kind.items() for name, _ in found]
    return {
        "tools": tools,
        "hooks": hooks,
        "problems": problems,
        "notices": list(notices or []),
        "mcp_servers": list(servers or []),
    }


def render(report: dict[str, Any]) -> str:
    """A plain-text table of tools followed by the problems."""
    rows = [("TOOL", "APPROVAL", "STATUS", "SOURCE")]
    rows += [(tool["name"], tool["approval"], tool["status"], tool["source"]) for tool in report["tools"]]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)) + "  " + row[3]
        for row in rows
    ]
    if not report["tools"]:
        lines.append("(no tools found)")
    lines.extend(f"note: {notice}" for notice in report["notices"])
    if report.get("hooks"):
        lines += ["", "Hooks:", *(f"- {hook['kind']}: {hook['hook']}" for hook in report["hooks"])]
    if report.get("mcp_servers"):
        lines.append("")
        lines.append("MCP servers:")
        for server in report["mcp_servers"]:
            log = f" (log: {server['log']})" if server["reason"] else ""
            lines.append(f"- {server['name']}: {server['status']}{log}")
    if report["problems"]:
        lines.append("")
        lines.append(f"{len(report['problems'])} problem(s) while loading plugins:")
        lines.extend(f"- {problem['file']}: {problem['message']}" for problem in report["problems"])
    return "\n".join(lines)
