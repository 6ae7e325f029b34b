"""The schema written without pydantic for plain parameters is pydantic's, byte for byte, and such a tool still
checks its calls with a pydantic model (built at its first call)."""

from __future__ import annotations

import enum
import json
import typing
from collections.abc import Callable
from typing import Annotated, Any, Literal, Optional

import pytest
from pydantic import BaseModel, Field, ValidationError

from tests.unit.llm.helpers import USER, collect
from tui_agent.offline.server import BackgroundServer
from tui_agent.tools import tool
from tui_agent.tools.arguments import ArgumentsModel
from tui_agent.tools.docstrings import parse_docstring
from tui_agent.tools.plain_schema import plain_schema
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.spec import (
    Fields,
    ToolSpec,
    build_spec,
    describe_validation_error,
    model_of,
    parameter_fields,
    tool_options,
)


class Colour(enum.Enum):
    RED = "red"


class Point(BaseModel):
    x: int


def _plain_a(text: str, times: int = 1, ratio: float = 2.5, loud: bool = False) -> None:
    """Several plain types.

    Args:
        text: What to say.
        loud: Shout it.
    """


def _plain_b(
    unit: Literal["celsius", "fahrenheit"],
    tags: list[str],
    maybe: str | None = None,
    old_style: Optional[int] = None,  # noqa: UP045 (the spelling is what is tested)
    none_first: None | float = 1.0,
    flags: list[bool] | None = None,
    choice: Literal["a", "b"] | None = "a",
    numbers: list[int] | None = None,
    weights: list[float] = None,  # type: ignore[assignment]  # a default pydantic does not check
) -> None:
    """Unions, lists and choices; no description for any.

    Args:
        unit: Which unit.
        choice: Pick one,
            over two lines.
    """


def _plain_c(count: int = True, label: str = "x", when: float = 3) -> None:  # defaults of other types
    """No parameter required."""


def _plain_d() -> None:
    """No parameters at all."""


def _other_a(point: Point) -> None:
    """A pydantic model."""


def _other_b(mapping: dict[str, str]) -> None:
    """A dict."""


def _other_c(colour: Colour) -> None:
    """An enum."""


def _other_d(text: Annotated[str, Field(min_length=2)]) -> None:
    """Annotated."""


def _other_e(ratio: float = float("nan")) -> None:
    """A default that is no JSON number."""


def _other_f(items: list[str] = ["a"]) -> None:  # noqa: B006 (the default's type is what is tested)
    """A list default."""


def _other_g(json: str) -> None:
    """A name that shadows a BaseModel method."""


def _other_h(only: Literal["one"], mixed: Literal["a", 1]) -> None:
    """Literals of one value, and of mixed types."""


def _other_i(either: int | str) -> None:
    """A union of two types."""


PLAIN = [_plain_a, _plain_b, _plain_c, _plain_d]
OTHER = [_other_a, _other_b, _other_c, _other_d, _other_e, _other_f, _other_g, _other_h, _other_i]


def _fields(func: Callable[..., Any]) -> Fields:
    return parameter_fields(func, func.__name__, parse_docstring(func.__doc__).params)


def _pydantic_schema(func: Callable[..., Any]) -> dict[str, Any]:
    return ArgumentsModel.of(model_of(_fields(func), func.__name__)).json_schema()


@pytest.mark.parametrize("func", PLAIN, ids=lambda func: func.__name__)
def test_plain_parameters_get_pydantics_schema_exactly(func: Callable[..., Any]) -> None:
    written = plain_schema(_fields(func))
    assert written is not None
    assert json.dumps(written) == json.dumps(_pydantic_schema(func))  # the order too: prompts are cached by bytes


@pytest.mark.parametrize("func", OTHER, ids=lambda func: func.__name__)
def test_other_parameters_are_left_to_pydantic(func: Callable[..., Any]) -> None:
    assert plain_schema(_fields(func)) is None


@tool(approval="never", command="command", to_user=True)
def run(command: str, times: int = 1, mode: Literal["fast", "slow"] = "fast") -> str:
    """Run a command.

    Args:
        command: The command line.
    """
    return command * times


def test_a_plain_tool_checks_its_calls_with_the_model_built_at_its_first_call() -> None:
    options = tool_options(run)
    assert options is not None
    spec: ToolSpec = build_spec(run, options, source="test", plugin="test")
    schema = spec.parameters_schema()
    assert schema["properties"]["command"] == {"description": "The command line.", "type": "string"}
    assert "to_user" in schema["properties"] and schema["required"] == ["command"]
    assert spec.validate({"command": "ls", "to_user": "listing"}) == {"command": "ls", "times": 1, "mode": "fast"}
    with pytest.raises(ValidationError) as caught:
        spec.validate({"command": "ls", "times": "many", "extra": 1, "mode": "medium"})
    said = describe_validation_error(spec.name, caught.value)
    assert "- times:" in said and "- extra:" in said and "- mode:" in said
    assert spec.arguments_model.model_json_schema()["additionalProperties"] is False
    assert typing.get_type_hints(run)["command"] is str


async def test_the_request_carries_the_tools_as_the_registry_lists_them(offline_server: BackgroundServer) -> None:
    """The tools go into the request body as they are (not through the SDK's typed copy): same keys, same order."""
    registry = ToolRegistry.from_functions([run, _tool_of(_plain_b), _tool_of(_other_a)])
    tools = registry.openai_tools()
    await collect(offline_server.base_url, tools=tools)
    (record,) = [record for record in offline_server.requests if record.path.endswith("/chat/completions")]
    assert record.body is not None
    assert json.dumps(record.body["tools"]) == json.dumps(tools)
    assert record.body["messages"] == USER and record.body["stream"] is True


def _tool_of(func: Callable[..., Any]) -> Callable[..., Any]:
    marked: Callable[..., Any] = tool(approval="never")(func)
    return marked
