"""Provides `ArgumentsModel`: a tool's parameters as the model is told them (a JSON schema) and as a call is
checked (a pydantic model), each worked out once, when first needed.

A tool of plain parameters has its schema written at load time (`tools.plain_schema`) and its pydantic model
built at its first call; any other tool has its model built at load time, which is where a type pydantic cannot
handle is reported. Both are pure functions of the signature, so two threads building one at once is harmless.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel


class ArgumentsModel:
    """The arguments of one tool: `model` checks a call, `json_schema` describes them."""

    def __init__(self, build: Callable[[], type[BaseModel]], schema: dict[str, Any] | None = None) -> None:
        self._build = build
        self._model: type[BaseModel] | None = None
        self._schema = schema

    @classmethod
    def of(cls, model: type[BaseModel]) -> ArgumentsModel:
        """The arguments of an existing pydantic model."""
        arguments = cls(lambda: model)
        arguments._model = model
        return arguments

    @property
    def model(self) -> type[BaseModel]:
        """The pydantic model a call's arguments are validated with (built at the first call)."""
        if self._model is None:
            self._model = self._build()
        return self._model

    def json_schema(self) -> dict[str, Any]:
        """The object schema of the arguments, without pydantic's titles (shared: copy before changing it)."""
        if self._schema is None:
            schema = self.model.model_json_schema()
            schema.pop("title", None)
            for prop in schema.get("properties", {}).values():
                prop.pop("title", None)
            self._schema = schema
        return self._schema
