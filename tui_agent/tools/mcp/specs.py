"""Provides `tool_specs`: an MCP server's tools as `ToolSpec`s, so the runner treats them like Python tools.

The model sees the server's own JSON schema. Arguments are not validated here: the server validates them
and answers a bad call with an error, which becomes a failed call the model can correct, as for a Python
tool. The call itself goes to `McpServer.call`, which reaches the server through its live session.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import BaseModel, ConfigDict

from tui_agent.config import McpServerSettings
from tui_agent.tools.results import ToolResult
from tui_agent.tools.spec import ToolSpec

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
MAX_NAME = 64


class _AnyArguments(BaseModel):
    """Placeholder arguments model: an MCP tool's arguments are described by its JSON schema instead."""

    model_config = ConfigDict(extra="allow")


@dataclass(frozen=True)
class McpToolSpec(ToolSpec):
    """A tool of an MCP server: its schema is the server's; `remote_name` is the name the server knows."""

    server: str = ""
    remote_name: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=dict)

    def parameters_schema(self) -> dict[str, Any]:
        schema = copy.deepcopy(dict(self.input_schema))
        schema["type"] = "object"  # the chat API insists on an object schema with properties
        schema.setdefault("properties", {})
        return schema

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        return dict(arguments)


def safe_name(name: str) -> str:
    """A name the chat API accepts (letters, digits, _ and -; at most 64)."""
    return (_UNSAFE.sub("_", name) or "_")[:MAX_NAME]


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


def tool_specs(
    server: str, settings: McpServerSettings, tools: Sequence[Any], call: Callable[..., Awaitable[str | ToolResult]]
) -> list[McpToolSpec]:
    """Specs for the server's offered tools (those that need task support left out: they would always fail);
    `call(remote_name, **arguments)` runs one."""
    tools = callable_tools(tools)
    wanted = set(offered(settings, [tool.name for tool in tools]))
    return [
        McpToolSpec(
            name=safe_name(tool.name),
            description=tool.description or tool.title or tool.name,
            approval=settings.approval,
            func=partial(call, tool.name),
            arguments_model=_AnyArguments,
            is_async=True,
            source=source_of(server),
            plugin=plugin_of(server),
            timeout=settings.tool_timeout,
            server=server,
            remote_name=tool.name,
            input_schema=dict(tool.input_schema or {}),
        )
        for tool in tools
        if tool.name in wanted
    ]
