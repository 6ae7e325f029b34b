"""Provides `ServerOverview`: one MCP server as the MCP screen details it — how it is reached, its state in a
sentence, and the tools it offers the model, each with the first line of its description.

And its prompts (name, arguments, description) and resources (URI and description; templates with their
parameters), which tui-agent reads from the server with its tools.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from tui_agent.tools.mcp.server import McpServer
from tui_agent.tools.mcp.specs import callable_tools, first_line


@dataclass(frozen=True)
class ToolLine:
    """A tool the server offers: its name (the server's own) and the first line of its description."""

    name: str
    description: str


@dataclass(frozen=True)
class ServerOverview:
    """What the MCP screen shows of one server under the list."""

    name: str
    state: str
    """starting, ready, crashed, failed, disabled or stopped."""
    status: str
    """The state as a sentence, with why it failed ("failed: the command 'x' was not found")."""
    reached_by: str
    """ "stdio: <command line>" or "http: <url>"."""
    tools: list[ToolLine]
    """The tools offered to the model (`enabled_tools`/`disabled_tools` applied), in the server's order."""
    left_out: int
    """Tools the server has that are not offered (turned off in the config, or needing task support)."""
    log: str
    """Where its stderr is written."""
    prompts: list[ToolLine] = field(default_factory=list)
    """Its prompts: `name(argument, optional?)` and the first line of the description."""
    resources: list[ToolLine] = field(default_factory=list)
    """Its resources and resource templates: the URI (template) and the first line of the description."""
    sign_in: str | None = None
    """Its OAuth sign-in ("signed in", "not signed in"); None for a server OAuth does not apply to."""


def overview(server: McpServer) -> ServerOverview:
    """The server as its screen details it now."""
    settings = server.settings
    if settings.command is not None:
        reached_by = f"stdio: {shlex.join([settings.command, *settings.args])}"
    else:
        reached_by = f"http: {str(settings.url).split('?')[0]}"  # a query may carry a key: not on screen
    offered = set(server.offered())
    tools: list[Any] = [tool for tool in callable_tools(server.tools) if tool.name in offered]
    lines = [ToolLine(tool.name, first_line(tool.description or getattr(tool, "title", None))) for tool in tools]
    prompts = [
        ToolLine(f"{prompt.name}({_arguments(prompt)})", first_line(prompt.description)) for prompt in server.prompts
    ]
    resources = [ToolLine(str(item.uri), first_line(item.description or item.name)) for item in server.resources]
    resources += [
        ToolLine(str(item.uri_template), first_line(item.description or item.name)) for item in server.templates
    ]
    return ServerOverview(
        name=server.name,
        state=server.state.value,
        status=server.describe(),
        reached_by=reached_by,
        tools=lines,
        left_out=len(server.tools) - len(lines),
        log=str(server.log_path),
        prompts=prompts,
        resources=resources,
    )


def _resource_line(uri: str, item: Any) -> ToolLine:
    return ToolLine(uri, first_line(item.description or item.name))


def _arguments(prompt: Any) -> str:
    return ", ".join(f"{arg.name}{'' if arg.required else '?'}" for arg in prompt.arguments or [])
