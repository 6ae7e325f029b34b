"""Provides `Question`, `Answer` and `question_of`: a server's request for input from the user (elicitation), as
tui-agent asks it.

A server may ask, while it works, for a few values (form mode: a flat JSON schema of strings, numbers, integers,
booleans and string choices) or for the user to visit a page (URL mode: an OAuth consent, a payment). Whoever
`asks` (the app's dialog) answers accept (with the values), decline or cancel; with nobody to ask (`-p`), the
request is declined and the user told why. `values_of` checks what the user typed against the schema and turns
it into the types the server asked for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Action = Literal["accept", "decline", "cancel"]
Kind = Literal["string", "number", "integer", "boolean", "choice"]
Value = str | int | float | bool | list[str] | None


@dataclass(frozen=True)
class Field:
    """One value the server asks for."""

    name: str
    title: str
    kind: Kind
    required: bool
    description: str = ""
    choices: tuple[str, ...] = ()
    default: Value = None


@dataclass(frozen=True)
class Question:
    """What a server asks the user: a form of `fields`, or (`url` set) to visit a page."""

    server: str
    message: str
    fields: tuple[Field, ...] = ()
    url: str | None = None


@dataclass(frozen=True)
class Answer:
    """The user's answer: accept (with the form's values), decline or cancel."""

    action: Action
    content: dict[str, Value] | None = None


Asker = Callable[[Question], Awaitable[Answer]]


def question_of(server: str, message: str, schema: Mapping[str, Any] | None, url: str | None = None) -> Question:
    """The question a server's elicitation request makes (its schema's top-level properties as fields)."""
    if url is not None:
        return Question(server, message, url=url)
    schema = schema or {}
    required = set(schema.get("required") or [])
    fields = tuple(_field(name, spec, name in required) for name, spec in (schema.get("properties") or {}).items())
    return Question(server, message, fields)


def _field(name: str, spec: Mapping[str, Any], required: bool) -> Field:
    choices = tuple(str(choice) for choice in spec.get("enum") or [])
    kind: Kind = "choice" if choices else _KINDS.get(str(spec.get("type", "string")), "string")
    return Field(
        name,
        str(spec.get("title") or name),
        kind,
        required,
        str(spec.get("description") or ""),
        choices,
        spec.get("default"),
    )


_KINDS: dict[str, Kind] = {"string": "string", "number": "number", "integer": "integer", "boolean": "boolean"}


def values_of(question: Question, typed: Mapping[str, str | bool | None]) -> dict[str, Value] | str:
    """The form's values in the types the server asked for, or a sentence saying what is wrong."""
    values: dict[str, Value] = {}
    for field in question.fields:
        raw = typed.get(field.name)
        if raw is None or raw == "":
            if field.required:
                return f"{field.title} is required"
            continue
        try:
            values[field.name] = _converted(field, raw)
        except ValueError:
            return f"{field.title} must be {'a whole number' if field.kind == 'integer' else 'a number'}"
    return values


def _converted(field: Field, raw: str | bool) -> Value:
    if field.kind == "boolean":
        return bool(raw)
    text = str(raw).strip()
    if field.kind == "integer":
        return int(text)
    if field.kind == "number":
        return float(text)
    return text


def unanswered(question: Question) -> str:
    """What the user is told of a question nobody could answer (in `-p`)."""
    return (
        f"MCP server {question.server} asked for input ({question.message!r}); declined: nobody can answer in this "
        "run (the app shows a form)."
    )
