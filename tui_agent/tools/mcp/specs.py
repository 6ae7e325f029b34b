"""Provides `tool_specs`: an MCP server's tools as `SchemaToolSpec`s (tools described by a JSON schema), so
the runner treats them like Python tools.

The model sees the server's own JSON schema; the server validates the arguments. The call itself goes to
`McpServer.call`, which reaches the server through its live session.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any

from tui_agent.config import McpServerSettings
from tui_agent.tools.results import ToolResult
from tui_agent.tools.schema_tool import SchemaToolSpec, safe_name, schema_tool
from tui_agent.tools.spec import Effect

__all__ = ["callable_tools", "needs_tasks", "offered", "plugin_of", "safe_name", "source_of", "tool_specs"]


def source_of(server: str) -> str:
    """What `tui-agent plugins` shows as the source of a server's tools."""
    return f"MCP server {server}"


def plugin_of(server: str) -> str:
    """The registry's key for a server's tools (a source that can be replaced or removed as one)."""
    return f"mcp:{server}"


def offered(settings: McpServerSettings, names: Sequence[str]) -> list[str]:
    """The tool names `enabled_tools` and `disabled_tools` let through."""
    allowed = set(settings.enabled_tools) if settings.enabled_tools is not None else None
    return [name for name in names if (allowed is None or name in allowed) and name not in settings.disabled_tools]


def needs_tasks(tool: Any) -> bool:
    """Whether the tool can only be called as a task (`execution.taskSupport: "required"`, MCP 2025-11): a
    plain call is refused (-32601), and tui-agent does not make task-augmented calls yet."""
    return getattr(getattr(tool, "execution", None), "task_support", None) == "required"


def callable_tools(tools: Sequence[Any]) -> list[Any]:
    """The tools a plain `tools/call` can run (those that need task support left out)."""
    return [tool for tool in tools if not needs_tasks(tool)]


def effect_of(tool: Any) -> Effect:
    """`read` for a tool its server annotates as read-only (`readOnlyHint`); otherwise not declared."""
    return "read" if getattr(getattr(tool, "annotations", None), "readOnlyHint", None) is True else "unknown"


def tool_specs(
    server: str, settings: McpServerSettings, tools: Sequence[Any], call: Callable[..., Awaitable[str | ToolResult]]
) -> list[SchemaToolSpec]:
    """Specs for the server's offered tools (those that need task support left out: they would always fail);
    `call(remote_name, **arguments)` runs one."""
    tools = callable_tools(tools)
    wanted = set(offered(settings, [tool.name for tool in tools]))
    return [
        schema_tool(
            tool.name,
            tool.description or tool.title or tool.name,
            tool.input_schema or {},
            partial(call, tool.name),
            source=source_of(server),
            plugin=plugin_of(server),
            approval=settings.approval,
            timeout=settings.tool_timeout,
            effect=effect_of(tool),
        )
        for tool in tools
        if tool.name in wanted
    ]


RESOURCES_LISTED = 20
"""Resources (and templates) named in the description of a server's `read_*_resource` tool at most."""
URI_SCHEMA = {
    "type": "object",
    "properties": {"uri": {"type": "string", "description": "The resource's URI, e.g. notes://readme"}},
    "required": ["uri"],
}


def resource_tool_name(server: str) -> str:
    """`read_<server>_resource`: the tool that reads that server's resources."""
    return safe_name(f"read_{safe_name(server)}_resource")


def resource_spec(
    server: str,
    settings: McpServerSettings,
    resources: Sequence[Any],
    templates: Sequence[Any],
    read: Callable[[str], Awaitable[str | ToolResult]],
) -> SchemaToolSpec:
    """The tool that reads the server's resources by URI — those it lists, those its templates describe, and
    one a tool's result linked to (`[resource: NAME <URI>]`); approved like the server's other tools."""
    listed = [_described(item.uri, item.description) for item in resources]
    listed += [_described(item.uri_template, item.description) for item in templates]
    shown = "; ".join(listed[:RESOURCES_LISTED]) + ("; …" if len(listed) > RESOURCES_LISTED else "")
    description = (
        f"Read a resource of the MCP server {server} by its URI: one a tool's result linked to "
        f"([resource: NAME <URI>]) or one of its own" + (f": {shown}." if shown else ".")
    )

    async def call(uri: str) -> str | ToolResult:
        return await read(uri)

    return schema_tool(
        resource_tool_name(server),
        description,
        URI_SCHEMA,
        call,
        source=source_of(server),
        plugin=plugin_of(server),
        approval=settings.approval,
        timeout=settings.tool_timeout,
        effect="read",
    )


def _described(uri: Any, description: str | None) -> str:
    return f"{uri} ({first_line(description)})" if description else str(uri)


def first_line(text: str | None) -> str:
    """The first non-blank line of `text` (a description's summary)."""
    return next((line.strip() for line in (text or "").splitlines() if line.strip()), "")
