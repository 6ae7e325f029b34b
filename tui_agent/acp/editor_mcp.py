"""Provides `with_editor_servers`: the MCP servers an editor sends with `session/new` (or `session/load`) added to
the settings that session's engine is built from, as `[mcp_servers.NAME]` entries.

An editor (Zed's context servers, for one) passes the MCP servers its user configured so the agent can use their
tools: a stdio server (`command`, `args`, `env`) or a streamable-HTTP one (`url`, `headers`). They start as the
config's do (the same minimal environment, timeouts and approval: each tool asks, and the question goes to the
editor). A server the config already names keeps the config's entry (the user's own file wins); an SSE or
MCP-over-ACP server, which `initialize` does not offer, is left out with a notice saying so.
"""

from __future__ import annotations

from collections.abc import Sequence

from acp.schema import AcpMcpServer, HttpMcpServer, McpServerStdio, SseMcpServer
from pydantic import ValidationError

from tui_agent.config import McpServerSettings, Settings

EditorServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio


def with_editor_servers(settings: Settings, servers: Sequence[EditorServer] | None) -> tuple[Settings, list[str]]:
    """`settings` with the editor's `servers` added, and a notice for each one left out (and why)."""
    added: dict[str, McpServerSettings] = {}
    notices: list[str] = []
    for server in servers or ():
        name = server.name
        if name in settings.mcp_servers or name in added:
            notices.append(f"The editor's MCP server {name!r} is not started: the config has a server of that name.")
            continue
        entry, why = _entry(server)
        if entry is None:
            notices.append(f"The editor's MCP server {name!r} is not started: {why}.")
            continue
        added[name] = entry
    if not added:
        return settings, notices
    return settings.model_copy(update={"mcp_servers": {**settings.mcp_servers, **added}}), notices


def _entry(server: EditorServer) -> tuple[McpServerSettings | None, str]:
    """The config entry for one editor server, or None and why it cannot be one."""
    try:
        if isinstance(server, McpServerStdio):
            env = {variable.name: variable.value for variable in server.env}
            return McpServerSettings(command=server.command, args=list(server.args), env=env), ""
        if isinstance(server, HttpMcpServer):
            headers = {header.name: header.value for header in server.headers}
            return McpServerSettings(url=server.url, headers=headers), ""
    except ValidationError as error:
        return None, f"its entry is not valid ({error.errors()[0]['msg']})"
    kind = "an SSE server" if isinstance(server, SseMcpServer) else "an MCP-over-ACP server"
    return None, f"it is {kind}, which tui-agent does not connect to (stdio and streamable HTTP only)"
