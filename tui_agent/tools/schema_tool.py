"""Provides `SchemaToolSpec`: a tool described by a JSON schema instead of a Python signature, and `schema_tool`
to make one. Any source whose tools come as name, description and schema (MCP servers, a TOML file, later
OpenAPI operations) makes these, and the runner treats them like Python tools.

The model sees the schema as given. Arguments are not validated here: whatever runs the call validates them
and answers a bad call with an error, which becomes a failed call the model can correct.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from tui_agent.tools.arguments import ArgumentsModel
from tui_agent.tools.results import ToolResult
from tui_agent.tools.spec import Approval, Effect, ToolSpec, json_copy

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
MAX_NAME = 64


class AnyArguments(BaseModel):
    """Placeholder arguments model: a schema tool's arguments are described by its JSON schema instead."""

    model_config = ConfigDict(extra="allow")


@dataclass(frozen=True)
class SchemaToolSpec(ToolSpec):
    """A tool whose arguments are a JSON schema; `original_name` is the name its source knows it by."""

    original_name: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=dict)

    def parameters_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = json_copy(dict(self.input_schema))  # JSON from its source (MCP, TOML)
        schema["type"] = "object"  # the chat API insists on an object schema with properties
        schema.setdefault("properties", {})
        return schema

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        return dict(arguments)


def safe_name(name: str) -> str:
    """A name the chat API accepts (letters, digits, _ and -; at most 64)."""
    return (_UNSAFE.sub("_", name) or "_")[:MAX_NAME]


def schema_tool(
    name: str,
    description: str,
    input_schema: Mapping[str, Any],
    call: Callable[..., Awaitable[str | ToolResult]],
    *,
    source: str,
    plugin: str,
    approval: Approval = "ask",
    timeout: float | None = None,
    effect: Effect = "unknown",
) -> SchemaToolSpec:
    """A tool called `safe_name(name)` whose call is `await call(**arguments)`."""
    return SchemaToolSpec(
        name=safe_name(name),
        description=description,
        approval=approval,
        func=call,
        arguments=ArgumentsModel.of(AnyArguments),
        is_async=True,
        source=source,
        plugin=plugin,
        timeout=timeout,
        effect=effect,
        original_name=name,
        input_schema=dict(input_schema),
    )
