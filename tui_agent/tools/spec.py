"""Provides `@tool` and `ToolSpec`: a typed, documented function described for the model.

`@tool` only marks the function (it stays a plain callable, and nothing can fail at the plugin's import);
`build_spec` turns a marked function into a `ToolSpec` when the registry loads it, so a tool whose schema
cannot be generated is reported and left out without affecting the rest of its plugin. A tool of plain
parameters gets its schema without pydantic and its pydantic model at its first call (`tools.arguments`).
"""

from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, TypeVar, overload

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from tui_agent.tools.arguments import ArgumentsModel
from tui_agent.tools.docstrings import parse_docstring
from tui_agent.tools.plain_schema import plain_schema

Approval = Literal["never", "ask", "deny"]
APPROVALS: tuple[Approval, ...] = ("never", "ask", "deny")
DEFAULT_APPROVAL: Approval = "ask"
Effect = Literal["read", "edit", "command", "unknown"]
"""What a tool can change, as it declares it: `read` changes nothing; `edit` changes files inside the working
directory only; `command` runs commands (anything a command can do); `unknown` (the default) is not declared and
is treated as able to change anything. Permission modes and the sandbox decide by it."""
EFFECTS: tuple[Effect, ...] = ("read", "edit", "command", "unknown")
TO_USER = "to_user"
TO_USER_SCHEMA = {
    "type": "string",
    "description": "Optional words for the user, shown to them while the tool runs (e.g. what you are doing and why).",
}
MARKER = "__tui_agent_tool__"
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")

F = TypeVar("F", bound=Callable[..., Any])


class ToolDefinitionError(Exception):
    """A marked function cannot become a tool (bad options, missing or unusable type hints)."""


@dataclass(frozen=True)
class ToolOptions:
    """What `@tool(...)` was given."""

    name: str | None = None
    description: str | None = None
    approval: Approval = DEFAULT_APPROVAL
    timeout: float | None = None
    to_user: bool = False
    command: str | None = None
    effect: Effect = "unknown"


@overload
def tool(func: F, /) -> F: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    approval: Approval = DEFAULT_APPROVAL,
    timeout: float | None = None,
    to_user: bool = False,
    command: str | None = None,
    effect: Effect = "unknown",
) -> Callable[[F], F]: ...
def tool(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    approval: Approval = DEFAULT_APPROVAL,
    timeout: float | None = None,
    to_user: bool = False,
    command: str | None = None,
    effect: Effect = "unknown",
) -> Any:
    """Mark a sync or async function as a tool the model may call; usable bare (`@tool`) or with options.

    `approval` is `"never"` (runs at once), `"ask"` (the user is asked first; the default) or `"deny"`.
    `timeout` overrides the runner's default in seconds. `to_user=True` adds an optional `to_user` string
    to the schema (words the model addresses to the user); it is stripped before the function is called.
    `command` names the `str` parameter holding a command line: the tool is then command-like, and
    "always" allows that exact command only, while config `allow` patterns can allow commands by shape.
    `effect` declares what the tool can change (see `Effect`); a tool with `command` is `"command"`.
    """
    options = ToolOptions(name, description, approval, timeout, to_user, command, effect)

    def mark(target: F) -> F:
        setattr(target, MARKER, options)
        return target

    return mark(func) if func is not None else mark


def tool_options(obj: object) -> ToolOptions | None:
    """The options `@tool` attached to `obj`, or None when it is not a tool."""
    options = getattr(obj, MARKER, None) if callable(obj) else None
    return options if isinstance(options, ToolOptions) else None


@dataclass(frozen=True)
class ToolSpec:
    """A tool ready to describe to the model and to call."""

    name: str
    description: str
    approval: Approval
    func: Callable[..., Any]
    arguments: ArgumentsModel
    """The parameters: their JSON schema, and the pydantic model a call is checked with."""
    is_async: bool
    source: str
    """The plugin file or package that defined it."""
    plugin: str
    """The plugin's name (file stem or entry-point name), as used by `disabled_plugins`."""
    timeout: float | None = None
    to_user: bool = False
    command: str | None = None
    """For a command-like tool, the parameter holding the command (see `tui_agent.tools.approvals`)."""
    effect: Effect = "unknown"
    """What the tool can change (see `Effect`)."""

    def command_in(self, arguments: Mapping[str, Any]) -> str | None:
        """The command of a call of a command-like tool (validated arguments); None for other tools."""
        return None if self.command is None else str(arguments[self.command])

    @property
    def arguments_model(self) -> type[BaseModel]:
        """The pydantic model a call's arguments are validated with."""
        return self.arguments.model

    def parameters_schema(self) -> dict[str, Any]:
        """The JSON schema of the arguments, as the model sees it (a copy: the caller may change it)."""
        copied: dict[str, Any] = json_copy(self._schema)
        return copied

    @cached_property
    def _schema(self) -> dict[str, Any]:
        """Worked out once per spec (every model request lists every tool; 1000 plugins); never changed."""
        schema = self.arguments.json_schema()
        if not self.to_user:
            return schema
        return {**schema, "properties": {**schema.get("properties", {}), TO_USER: dict(TO_USER_SCHEMA)}}

    def openai_tool(self) -> dict[str, Any]:
        """The entry for the `tools` list of an OpenAI chat request."""
        function = {"name": self.name, "description": self.description, "parameters": self.parameters_schema()}
        return {"type": "function", "function": function}

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Check `arguments` against the signature; return the keyword arguments to call with.

        Raises `ValidationError`; `describe_validation_error` turns it into the sentence for the model.
        """
        given = {key: value for key, value in arguments.items() if key != TO_USER or not self.to_user}
        validated = self.arguments_model.model_validate(given)
        return {field: getattr(validated, field) for field in type(validated).model_fields}


def json_copy(value: Any) -> Any:
    """A copy of a JSON value (dicts, lists, scalars): several times faster than `copy.deepcopy`, which a
    request of 1000 tools would pay for each."""
    if isinstance(value, dict):
        return {key: json_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_copy(item) for item in value]
    return value


def describe_validation_error(tool_name: str, error: ValidationError) -> str:
    """One readable line per problem, so the model can correct its call."""
    problems = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        given = "" if item["type"] == "missing" else f" (got {json.dumps(item.get('input'), default=repr)})"
        problems.append(f"- {where}: {item['msg']}{given}")
    return f"Invalid arguments for {tool_name}:\n" + "\n".join(problems)


def build_spec(func: Callable[..., Any], options: ToolOptions, *, source: str, plugin: str) -> ToolSpec:
    """Build the spec of a marked function; raises `ToolDefinitionError` with a readable reason."""
    name: str = options.name or str(getattr(func, "__name__", ""))
    if not _NAME.fullmatch(name):
        raise ToolDefinitionError(f"{name!r} is not a valid tool name (letters, digits, _ and - only)")
    if options.approval not in APPROVALS:
        raise ToolDefinitionError(f"approval must be one of {', '.join(APPROVALS)}, not {options.approval!r}")
    if options.effect not in EFFECTS:
        raise ToolDefinitionError(f"effect must be one of {', '.join(EFFECTS)}, not {options.effect!r}")
    doc = parse_docstring(func.__doc__)
    description = options.description or doc.summary
    if not description:
        raise ToolDefinitionError(f"tool {name!r} has no description: add a docstring or description=...")
    fields = parameter_fields(func, name, doc.params, reserve_to_user=options.to_user)
    if options.command is not None and _bare(fields.get(options.command, (None,))[0]) is not str:
        raise ToolDefinitionError(f"tool {name!r}: command={options.command!r} must name one of its str parameters")
    schema = plain_schema(fields)
    if schema is None:  # built now, so that a type pydantic cannot describe is reported at load
        arguments = ArgumentsModel.of(model_of(fields, name))
    else:
        arguments = ArgumentsModel(lambda: model_of(fields, name), schema)
    spec = ToolSpec(
        name,
        description,
        options.approval,
        func,
        arguments,
        inspect.iscoroutinefunction(func),
        source,
        plugin,
        options.timeout,
        options.to_user,
        options.command,
        "command" if options.command is not None else options.effect,
    )
    try:
        spec.arguments.json_schema()  # a plain tool's is written already; pydantic's may fail here
    except Exception as exc:  # pydantic raises several types for unsupported annotations
        first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ToolDefinitionError(
            f"tool {name!r}: its arguments cannot be described as JSON schema ({first_line})"
        ) from exc
    return spec


Fields = dict[str, tuple[Any, Any, "str | None"]]
"""A function's parameters by name: (type hint, default or `...`, docstring description)."""


def parameter_fields(
    func: Callable[..., Any],
    name: str,
    descriptions: Mapping[str, str],
    *,
    reserve_to_user: bool = False,
) -> Fields:
    """The function's parameters (types, defaults, docstring descriptions); raises `ToolDefinitionError`."""
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception as exc:  # NameError, TypeError, SyntaxError from string annotations
        raise ToolDefinitionError(f"tool {name!r}: its type hints cannot be resolved: {exc}") from exc
    fields: Fields = {}
    for param in inspect.signature(func).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise ToolDefinitionError(f"tool {name!r}: parameter {param.name!r} must be a named parameter")
        if param.name not in hints:
            raise ToolDefinitionError(f"tool {name!r}: parameter {param.name!r} has no type hint")
        if reserve_to_user and param.name == TO_USER:
            raise ToolDefinitionError(f"tool {name!r}: to_user=True reserves the parameter name 'to_user'")
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (hints[param.name], default, descriptions.get(param.name))
    return fields


def model_of(fields: Fields, name: str) -> type[BaseModel]:
    """The pydantic model of a tool's parameters; raises `ToolDefinitionError` for a type it cannot handle."""
    try:
        config = ConfigDict(extra="forbid", arbitrary_types_allowed=False)
        definitions: dict[str, Any] = {
            param: (hint, Field(default, description=about)) for param, (hint, default, about) in fields.items()
        }
        return create_model(f"{name}_arguments", __config__=config, **definitions)
    except Exception as exc:
        raise ToolDefinitionError(f"tool {name!r}: {_unsupported(fields, exc)}") from exc


def _bare(hint: Any) -> Any:
    """The type an `Annotated[...]` hint annotates (what pydantic keeps as the field's annotation)."""
    return typing.get_args(hint)[0] if typing.get_origin(hint) is typing.Annotated else hint


def _unsupported(fields: Fields, error: Exception) -> str:
    """Name the parameter whose type pydantic cannot handle (its own message is long and generic)."""
    for param, (hint, _default, _about) in fields.items():
        try:
            TypeAdapter(hint)
        except Exception:
            shown = getattr(hint, "__name__", repr(hint))
            return (
                f"parameter {param!r} has a type that cannot be described as JSON schema ({shown}); use str, "
                "int, float, bool, Literal, lists, dicts or pydantic models"
            )
    return f"its parameters cannot be described as JSON schema ({str(error).splitlines()[0]})"
