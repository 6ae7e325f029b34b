"""Provides `plain_schema`: the JSON schema of a tool's parameters when they are all of plain types, exactly as
pydantic would give it, without building a pydantic model.

Building a model and its schema costs about a millisecond a tool (1000 plugins: over a second at every start),
while most tools take strings, numbers, flags, lists of those and `Literal` choices. For those the schema is
written here, and the model that checks a call is built when the tool is first called
(`tools.arguments.ArgumentsModel`). Anything else (pydantic models, dicts, `Annotated`, odd defaults, names
pydantic treats specially) answers None, and the model is built at load time as before, so every error is
still reported when the plugin loads. tests/unit/tools/test_plain_schema.py holds the two schemas equal.
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel

_PLAIN: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_DEFAULTS = (str, int, float, bool, type(None))
"""Defaults pydantic writes into the schema as they are (their JSON is the value itself)."""
REQUIRED = ...
"""The default of a parameter that has none."""


def plain_schema(fields: Mapping[str, tuple[Any, Any, str | None]]) -> dict[str, Any] | None:
    """The object schema of `fields` (name: (type hint, default or `REQUIRED`, description)), titles left out,
    keys in pydantic's order; None when any field is not plain (pydantic must then build it)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, (hint, default, description) in fields.items():
        if not _plain_name(name):
            return None
        schema = _type_schema(hint)
        if schema is None:
            return None
        if default is REQUIRED:
            required.append(name)
        elif type(default) in _DEFAULTS and not (isinstance(default, float) and not math.isfinite(default)):
            schema["default"] = default
        else:
            return None
        if description is not None:
            schema["description"] = description
        properties[name] = dict(sorted(schema.items()))  # pydantic sorts each property's keys
    out: dict[str, Any] = {"additionalProperties": False, "properties": properties}
    if required:
        out["required"] = required
    out["type"] = "object"
    return out


def _plain_name(name: str) -> bool:
    """A parameter name pydantic takes as it is: no leading underscore (private attributes), not in its
    protected `model_` namespace, not shadowing a `BaseModel` attribute (each warns or fails)."""
    return name.isidentifier() and not name.startswith(("_", "model_")) and not hasattr(BaseModel, name)


def _type_schema(hint: Any) -> dict[str, Any] | None:
    if (plain := _plain_type(hint)) is not None:
        return {"type": plain}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is list and len(args) == 1 and (item := _plain_type(args[0])) is not None:
        return {"items": {"type": item}, "type": "array"}
    if origin is Literal and len(args) > 1 and all(type(arg) is str for arg in args) and len(set(args)) == len(args):
        return {"enum": list(args), "type": "string"}
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = _type_schema(next(arg for arg in args if arg is not type(None)))
        if inner is None or "anyOf" in inner:
            return None
        return {"anyOf": [inner, {"type": "null"}]}  # pydantic puts null last, whichever way it is written
    return None


def _plain_type(hint: Any) -> str | None:
    """The JSON type of `str`, `int`, `float` or `bool` themselves (not a subclass, such as an enum)."""
    return _PLAIN.get(hint) if isinstance(hint, type) else None
