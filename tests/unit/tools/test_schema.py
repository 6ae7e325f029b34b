"""Schema generation from signatures and docstrings, and validation errors as text for the model."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel, ValidationError

from tui_agent.tools import tool
from tui_agent.tools.spec import (
    ToolDefinitionError,
    ToolSpec,
    build_spec,
    describe_validation_error,
    tool_options,
)


class Address(BaseModel):
    city: str
    zip_code: str | None = None


class Order(BaseModel):
    item: str
    quantity: int = 1
    ship_to: Address


def spec_of(func: Any) -> ToolSpec:
    options = tool_options(func)
    assert options is not None
    return build_spec(func, options, source="test", plugin="test")


@tool(approval="never")
def every_type(
    text: str,
    count: int,
    ratio: float,
    flag: bool,
    unit: Literal["celsius", "fahrenheit"],
    order: Order,
    numbers: list[int],
    orders: list[Order],
    tags: dict[str, str],
    maybe: str | None = None,
    limit: int = 10,
) -> str:
    """Exercise every supported type.

    A second paragraph the model does not need.

    Args:
        text: Some text.
        count: How many,
            continued on a second line.
        unit: Which unit.

    Returns:
        Nothing useful.
    """
    return "ok"


def test_every_type_maps_to_json_schema() -> None:
    schema = spec_of(every_type).parameters_schema()
    props = schema["properties"]
    assert props["text"]["type"] == "string"
    assert props["count"]["type"] == "integer"
    assert props["ratio"]["type"] == "number"
    assert props["flag"]["type"] == "boolean"
    assert props["unit"]["enum"] == ["celsius", "fahrenheit"]
    assert props["numbers"] == {"type": "array", "items": {"type": "integer"}}
    assert props["orders"]["items"] == {"$ref": "#/$defs/Order"}
    assert props["tags"]["additionalProperties"] == {"type": "string"}
    assert props["maybe"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert props["maybe"]["default"] is None
    assert props["limit"]["default"] == 10
    assert props["order"] == {"$ref": "#/$defs/Order"}
    assert schema["$defs"]["Order"]["properties"]["ship_to"] == {"$ref": "#/$defs/Address"}
    assert set(schema["required"]) == {"text", "count", "ratio", "flag", "unit", "order", "numbers", "orders", "tags"}
    assert schema["additionalProperties"] is False


def test_docstring_gives_description_and_parameter_descriptions() -> None:
    spec = spec_of(every_type)
    props = spec.parameters_schema()["properties"]
    assert spec.description == "Exercise every supported type."
    assert props["text"]["description"] == "Some text."
    assert props["count"]["description"] == "How many, continued on a second line."
    assert "description" not in props["ratio"]


def test_openai_tool_shape() -> None:
    entry = spec_of(every_type).openai_tool()
    assert entry["type"] == "function"
    assert entry["function"]["name"] == "every_type"
    assert entry["function"]["parameters"]["type"] == "object"


def test_validation_converts_nested_models() -> None:
    spec = spec_of(every_type)
    kwargs = spec.validate(
        {
            "text": "t",
            "count": "3",
            "ratio": 0.5,
            "flag": True,
            "unit": "celsius",
            "order": {"item": "tea", "ship_to": {"city": "Oslo"}},
            "numbers": [1, 2],
            "orders": [],
            "tags": {},
        }
    )
    assert kwargs["count"] == 3
    assert isinstance(kwargs["order"], Order) and kwargs["order"].ship_to.city == "Oslo"
    assert kwargs["limit"] == 10 and kwargs["maybe"] is None


def test_validation_error_names_each_problem() -> None:
    spec = spec_of(every_type)
    with pytest.raises(ValidationError) as caught:
        spec.validate(
            {
                "text": "t",
                "count": "many",
                "ratio": 1,
                "flag": True,
                "unit": "kelvin",
                "order": {"item": "tea"},
                "numbers": [],
                "orders": [],
                "tags": {},
                "extra": 1,
            }
        )
    message = describe_validation_error("every_type", caught.value)
    assert message.startswith("Invalid arguments for every_type:")
    assert "- count: Input should be a valid integer" in message and '(got "many")' in message
    assert "- unit: Input should be 'celsius' or 'fahrenheit' (got \"kelvin\")" in message
    assert "- order.ship_to: Field required" in message
    assert "- extra: Extra inputs are not permitted" in message


def test_bare_decorator_defaults_to_ask_and_keeps_function_callable() -> None:
    @tool
    def double(x: int) -> int:
        """Double a number."""
        return x * 2

    assert double(4) == 8
    assert spec_of(double).approval == "ask"


def test_options_override_name_and_description() -> None:
    @tool(name="renamed", description="Custom words.", approval="deny", timeout=2.5)
    def original(x: int) -> int:
        """Docstring summary."""
        return x

    spec = spec_of(original)
    assert (spec.name, spec.description, spec.approval, spec.timeout) == ("renamed", "Custom words.", "deny", 2.5)


def test_to_user_is_added_to_schema_and_stripped_before_the_call() -> None:
    @tool(to_user=True)
    def weather(location: str) -> str:
        """Weather."""
        return location

    spec = spec_of(weather)
    props = spec.parameters_schema()["properties"]
    assert props["to_user"]["type"] == "string"
    assert "to_user" not in spec.parameters_schema()["required"]
    assert spec.validate({"location": "Oslo", "to_user": "Checking the weather"}) == {"location": "Oslo"}


def test_to_user_is_not_accepted_when_not_declared() -> None:
    @tool
    def plain(location: str) -> str:
        """Plain."""
        return location

    assert "to_user" not in spec_of(plain).parameters_schema()["properties"]
    with pytest.raises(ValidationError):
        spec_of(plain).validate({"location": "Oslo", "to_user": "hi"})


def test_async_function_is_detected() -> None:
    @tool
    async def later(x: int) -> int:
        """Later."""
        return x

    assert spec_of(later).is_async
    assert not spec_of(every_type).is_async


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("def f(x) -> str:\n    '''Doc.'''", "has no type hint"),
        ("def f(*args: int) -> str:\n    '''Doc.'''", "must be a named parameter"),
        ("def f(x: int) -> str:\n    pass", "has no description"),
        ("def f(x: 'Missing') -> str:\n    '''Doc.'''", "cannot be resolved"),
        ("class Opaque: pass\ndef f(x: Opaque) -> str:\n    '''Doc.'''", "Opaque"),
    ],
)
def test_unusable_definitions_are_refused_with_a_reason(source: str, reason: str) -> None:
    namespace: dict[str, Any] = {}
    exec(source, namespace)  # builds a function with exactly the flaw under test
    func = tool(namespace["f"])
    with pytest.raises(ToolDefinitionError, match=reason):
        spec_of(func)


def test_to_user_name_clash_is_refused() -> None:
    @tool(to_user=True)
    def clash(to_user: str) -> str:
        """Clash."""
        return to_user

    with pytest.raises(ToolDefinitionError, match="reserves the parameter name"):
        spec_of(clash)


def test_invalid_approval_and_name_are_refused() -> None:
    def f(x: int) -> int:
        """Doc."""
        return x

    with pytest.raises(ToolDefinitionError, match="approval must be one of"):
        spec_of(tool(approval="sometimes")(f))  # type: ignore[call-overload]
    with pytest.raises(ToolDefinitionError, match="not a valid tool name"):
        spec_of(tool(name="has space")(f))


def test_a_tool_declares_what_it_can_change() -> None:
    def f(x: str) -> str:
        """Doc."""
        return x

    assert spec_of(tool(f)).effect == "unknown"
    assert spec_of(tool(effect="read")(f)).effect == "read"
    assert spec_of(tool(effect="edit")(f)).effect == "edit"
    assert spec_of(tool(command="x")(f)).effect == "command"  # a command-like tool can do what a command can
    with pytest.raises(ToolDefinitionError, match="effect must be one of"):
        spec_of(tool(effect="harmless")(f))  # type: ignore[call-overload]


def test_the_schema_is_worked_out_once_per_spec_and_each_caller_gets_its_own_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every model request lists every tool: with 1000 plugins, pydantic's schema per tool per request cost a
    second; it is worked out when the spec is built and copied after."""
    spec = spec_of(every_type)
    model = spec.arguments_model
    made: list[int] = []
    original = model.model_json_schema

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        made.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(model, "model_json_schema", counted)
    first = spec.openai_tool()
    first["function"]["parameters"]["properties"].clear()  # a caller changing its copy changes nobody else's
    second = spec.openai_tool()
    assert made == [] and "text" in second["function"]["parameters"]["properties"]
