"""Provides `sample`: a deterministic JSON value that a JSON schema accepts, for the offline model's answers under
`response_format: json_schema` and the arguments of a call `tool_choice` forces.

It covers what OpenAI's structured outputs and tool schemas use (and what pydantic writes for
`client.chat.completions.parse`): objects with all their properties, arrays, strings (with `format`, lengths),
numbers with bounds, booleans, null, `enum`, `const`, `anyOf` / `oneOf` / `allOf`, type lists and `$ref` into
`$defs` / `definitions`. Strings say `text` (the prompt's words), so the answer still shows what was asked.
Not a validator: a schema it cannot follow gets a plain value rather than an error.
"""

from __future__ import annotations

from typing import Any

DEPTH = 8
"""How deep a recursive schema is followed before an empty value stands in (a tree of itself)."""
FORMATS = {
    "date-time": "1970-01-01T00:00:00Z",
    "date": "1970-01-01",
    "time": "00:00:00",
    "email": "offline@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "hostname": "localhost",
}


def sample(schema: Any, text: str = "offline") -> Any:
    """A value `schema` accepts, its strings saying `text`."""
    return _Sampler(schema if isinstance(schema, dict) else {}, text or "offline").value(schema, "", 0)


class _Sampler:
    def __init__(self, root: dict[str, Any], text: str) -> None:
        self.root, self.text = root, text

    def value(self, schema: Any, name: str, depth: int) -> Any:
        if not isinstance(schema, dict):
            return self.text  # `true` or a schema it cannot read: anything goes, a string says the most
        if "$ref" in schema:
            target = self._resolve(str(schema["$ref"]))
            return self.value(target, name, depth + 1) if depth < DEPTH else None
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return schema["enum"][0]
        for key in ("anyOf", "oneOf"):
            options = [option for option in schema.get(key) or [] if isinstance(option, dict)]
            if options:
                chosen = next((option for option in options if option.get("type") != "null"), options[0])
                return self.value(chosen, name, depth + 1)
        if isinstance(schema.get("allOf"), list):
            merged: dict[str, Any] = {key: value for key, value in schema.items() if key != "allOf"}
            for part in schema["allOf"]:
                if isinstance(part, dict):
                    part = self._resolve(str(part["$ref"])) if "$ref" in part else part
                    merged = _merge(merged, part)
            return self.value(merged, name, depth + 1)
        return self._typed(schema, _type_of(schema), name, depth)

    def _typed(self, schema: dict[str, Any], kind: str, name: str, depth: int) -> Any:
        if kind == "object":
            if depth >= DEPTH:
                return {}
            properties = schema.get("properties")
            if not isinstance(properties, dict):
                return {}
            return {key: self.value(sub, key, depth + 1) for key, sub in properties.items()}
        if kind == "array":
            low, high = _int(schema.get("minItems"), 0), _int(schema.get("maxItems"), 1)
            if depth >= DEPTH or high == 0:
                return []
            return [self.value(schema.get("items", {}), name, depth + 1) for _ in range(max(low, 1))]
        if kind == "integer":
            return int(_number(schema, 0))
        if kind == "number":
            return float(_number(schema, 0))
        if kind == "boolean":
            return True
        if kind == "null":
            return None
        return self._string(schema, name)

    def _string(self, schema: dict[str, Any], name: str) -> str:
        if isinstance(schema.get("format"), str) and schema["format"] in FORMATS:
            return FORMATS[schema["format"]]
        said = f"{name}: {self.text}" if name else self.text
        high = _int(schema.get("maxLength"), len(said))
        said = said[:high]
        return said + "." * max(_int(schema.get("minLength"), 0) - len(said), 0)

    def _resolve(self, ref: str) -> Any:
        """The schema a local `$ref` ("#/$defs/Name") points at; `{}` for one elsewhere."""
        if not ref.startswith("#"):
            return {}
        found: Any = self.root
        for part in [piece for piece in ref[1:].split("/") if piece]:
            part = part.replace("~1", "/").replace("~0", "~")
            found = found.get(part) if isinstance(found, dict) else None
        return found if isinstance(found, dict) else {}


def _type_of(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [str(k) for k in kind if k != "null"]
        return kinds[0] if kinds else "null"
    if isinstance(kind, str):
        return kind
    return "object" if "properties" in schema else "array" if "items" in schema else "string"


def _merge(into: dict[str, Any], part: dict[str, Any]) -> dict[str, Any]:
    merged = {**into, **{key: value for key, value in part.items() if key not in ("properties", "required")}}
    properties = {**(into.get("properties") or {}), **(part.get("properties") or {})}
    return {**merged, "properties": properties} if properties else merged


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _number(schema: dict[str, Any], default: float) -> float:
    """The number closest to `default` within the schema's bounds."""
    value = default
    for key, step in (("minimum", 0), ("exclusiveMinimum", 1)):
        bound = schema.get(key)
        if isinstance(bound, int | float) and not isinstance(bound, bool) and value < bound + step:
            value = bound + step
    for key, step in (("maximum", 0), ("exclusiveMaximum", 1)):
        bound = schema.get(key)
        if isinstance(bound, int | float) and not isinstance(bound, bool) and value > bound - step:
            value = bound - step
    return value
