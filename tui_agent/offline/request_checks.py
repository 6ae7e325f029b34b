"""Provides `request_problem`: the 400 OpenAI answers to a chat-completions request it cannot take, in its words.

Checked before anything is generated, as OpenAI does: `messages` (present, a non-empty array of objects, each
with a known `role` and the content that role needs), `tool_choice` (none / auto / required / a named function
among `tools`), `response_format` (text / json_object / json_schema with a schema; json_object only when the
messages say "json", as OpenAI insists) and `stop` (a string or up to four). The error object carries `param`
and `code`, so a client (the openai SDK's `BadRequestError`) can tell which field was wrong.
"""

from __future__ import annotations

from typing import Any

from tui_agent.offline.behaviour import text_of

ROLES = ("system", "developer", "user", "assistant", "tool", "function")
MAX_STOPS = 4


def request_problem(body: dict[str, Any]) -> dict[str, Any] | None:
    """The OpenAI-shaped 400 body for what is wrong with `body`, None when it may be answered."""
    return _messages(body.get("messages")) or _tool_choice(body) or _response_format(body) or _stop(body)


def invalid(message: str, param: str | None, code: str) -> dict[str, Any]:
    """OpenAI's error object for a request it refuses."""
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


def missing(param: str) -> dict[str, Any]:
    return invalid(f"Missing required parameter: '{param}'.", param, "missing_required_parameter")


def wrong_type(param: str, expected: str, value: Any) -> dict[str, Any]:
    said = f"Invalid type for '{param}': expected {expected}, but got {_kind(value)} instead."
    return invalid(said, param, "invalid_type")


def _kind(value: Any) -> str:
    names = {str: "a string", bool: "a boolean", int: "an integer", float: "a number", dict: "an object"}
    return "null" if value is None else "an array" if isinstance(value, list) else names.get(type(value), "a value")


def _messages(messages: Any) -> dict[str, Any] | None:
    if messages is None:
        return missing("messages")
    if not isinstance(messages, list):
        return wrong_type("messages", "an array", messages)
    if not messages:
        said = "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array."
        return invalid(said, "messages", "empty_array")
    for number, message in enumerate(messages):
        where = f"messages[{number}]"
        if not isinstance(message, dict):
            return wrong_type(where, "an object", message)
        role = message.get("role")
        if role is None:
            return missing(f"{where}.role")
        if role not in ROLES:
            supported = ", ".join(f"'{name}'" for name in ROLES[:-1]) + f", and '{ROLES[-1]}'"
            said = f"Invalid value for '{where}.role': {role!r}. Supported values are: {supported}."
            return invalid(said, f"{where}.role", "invalid_value")
        content = message.get("content")
        if content is None and role != "assistant":  # an assistant's may be null (it made tool calls)
            return missing(f"{where}.content")
        if content is not None and not isinstance(content, str | list):
            return wrong_type(f"{where}.content", "one of a string or array of objects", content)
    return None


def chosen_function(body: dict[str, Any]) -> str | None:
    """The function `tool_choice` names (`{"type": "function", "function": {"name": ...}}`), if it names one."""
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        return name if isinstance(name, str) else None
    return None


def offered(body: dict[str, Any]) -> list[str]:
    """The names of the functions `tools` offers."""
    tools = body.get("tools")
    functions = [tool.get("function") for tool in tools if isinstance(tool, dict)] if isinstance(tools, list) else []
    return [str(f.get("name")) for f in functions if isinstance(f, dict) and f.get("name")]


def _tool_choice(body: dict[str, Any]) -> dict[str, Any] | None:
    choice = body.get("tool_choice")
    if choice is None or choice in ("none", "auto"):
        return None
    if choice != "required" and not (isinstance(choice, dict) and choice.get("type") == "function"):
        said = (
            f"Invalid value for 'tool_choice': {choice!r}. Expected 'none', 'auto', 'required' or an object naming "
            'a function: {"type": "function", "function": {"name": "NAME"}}.'
        )
        return invalid(said, "tool_choice", "invalid_value")
    if not offered(body):
        said = "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
        return invalid(said, "tool_choice", "invalid_value")
    name = chosen_function(body) if choice != "required" else None
    if choice != "required" and name is None:
        return missing("tool_choice.function.name")
    if name is not None and name not in offered(body):
        said = f"Invalid value for 'tool_choice': no function named {name!r} was specified in the 'tools' parameter."
        return invalid(said, "tool_choice", "invalid_value")
    return None


def _response_format(body: dict[str, Any]) -> dict[str, Any] | None:
    shape = body.get("response_format")
    if shape is None:
        return None
    kind = shape.get("type") if isinstance(shape, dict) else None
    if kind not in ("text", "json_object", "json_schema"):
        said = f"Invalid value: {kind!r}. Supported values are: 'text', 'json_object', and 'json_schema'."
        return invalid(said, "response_format.type", "invalid_value")
    if kind == "json_schema":
        assert isinstance(shape, dict)
        spec = shape.get("json_schema")
        if not isinstance(spec, dict):
            return missing("response_format.json_schema")
        if not isinstance(spec.get("name"), str) or not spec["name"]:
            return missing("response_format.json_schema.name")
        if "schema" in spec and not isinstance(spec["schema"], dict):
            return wrong_type("response_format.json_schema.schema", "an object", spec["schema"])
    if kind == "json_object":
        said_json = any("json" in text_of(m.get("content")).lower() for m in body["messages"] if isinstance(m, dict))
        if not said_json:
            said = "'messages' must contain the word 'json' in some form, to use 'response_format' of type json_object."
            return invalid(said, "messages", "invalid_value")
    return None


def stops(body: dict[str, Any]) -> list[str]:
    """The request's stop sequences (none, one or several), the empty ones left out."""
    stop = body.get("stop")
    found = [stop] if isinstance(stop, str) else stop if isinstance(stop, list) else []
    return [text for text in found if isinstance(text, str) and text]


def _stop(body: dict[str, Any]) -> dict[str, Any] | None:
    stop = body.get("stop")
    if stop is None or isinstance(stop, str):
        return None
    if not isinstance(stop, list) or not all(isinstance(text, str) for text in stop):
        return wrong_type("stop", "one of a string or array of strings", stop)
    if len(stop) > MAX_STOPS:
        said = f"Invalid 'stop': array too long. Expected at most {MAX_STOPS} sequences, but got {len(stop)}."
        return invalid(said, "stop", "array_above_max_length")
    return None
