"""The shipped plugins, called through the runner as the model would call them."""

from __future__ import annotations

import inspect
import json
import os
import re
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal, get_type_hints

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.tools.helpers import shipped
from tui_agent.status import ToolStatus
from tui_agent.tool_call import ToolCall
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner


@pytest.fixture(scope="module")
def registry() -> ToolRegistry:
    return shipped(demo_tools=True)  # the offline model's weather too


async def call(registry: ToolRegistry, name: str, **arguments: Any) -> ToolCall:
    [result] = await ToolRunner(registry).run([ToolCall("c", name, arguments=arguments)], lambda state: None)
    return result


def test_weather_signature_matches_the_tutorial(registry: ToolRegistry) -> None:
    spec = registry.get("get_current_weather")
    assert spec is not None and spec.to_user
    parameters = inspect.signature(spec.func).parameters
    assert list(parameters) == ["location", "unit"]
    assert get_type_hints(spec.func)["unit"] == Literal["celsius", "fahrenheit"]
    assert parameters["unit"].default == "celsius"
    schema = spec.parameters_schema()
    assert schema["required"] == ["location"]
    assert schema["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]
    assert "to_user" in schema["properties"]


async def test_weather_is_deterministic_and_converts_units(registry: ToolRegistry) -> None:
    first = json.loads((await call(registry, "get_current_weather", location="Boston, MA")).outcome)
    again = json.loads((await call(registry, "get_current_weather", location="boston, ma ")).outcome)
    fahrenheit = json.loads(
        (
            await call(
                registry, "get_current_weather", location="Boston, MA", unit="fahrenheit", to_user="Checking Boston"
            )
        ).outcome
    )
    assert first["temperature"] == again["temperature"] and first["forecast"] == again["forecast"]
    assert fahrenheit["unit"] == "fahrenheit"
    assert fahrenheit["temperature"] == round(first["temperature"] * 9 / 5 + 32)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("0.1 + 0.2", "0.3"),
        ("1/3 + 1/6", "0.5"),
        ("2^10", "1024"),
        ("(2 + 3) * 1.5 ** 2", "11.25"),
        ("1/3", "1/3 (≈ 0.3333333333333333333333333)"),
        ("-7 // 2", "-4"),
        ("7 % 3", "1"),
        ("2 ** -2", "0.25"),
        ("1e3", "1000"),
    ],
)
async def test_calculator_is_exact(registry: ToolRegistry, expression: str, expected: str) -> None:
    result = await call(registry, "calculate", expression=expression)
    assert (result.status, result.outcome) == (ToolStatus.DONE, expected)


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("__import__('os').system('true')", "is not allowed"),
        ("1/0", "division by zero"),
        ("9 ** 99999999", "exponents are limited"),
        ("2 ** 0.5", "whole-number exponents"),
        ("10 ** 9000", "too large"),
        ("1 +", "not a valid arithmetic expression"),
        ("x + 1", "is not allowed"),
        ("1" + "+1" * 150, "more than 200 parts"),
        ("1e400", "too large a number"),
    ],
)
async def test_calculator_refuses_unsafe_or_huge(registry: ToolRegistry, expression: str, reason: str) -> None:
    result = await call(registry, "calculate", expression=expression)
    assert result.status == ToolStatus.FAILED and reason in result.outcome


async def test_clock(registry: ToolRegistry) -> None:
    result = await call(registry, "current_time", timezone="Asia/Tokyo")
    assert result.status == ToolStatus.DONE and "Asia/Tokyo" in result.outcome and "UTC+0900" in result.outcome
    bad = await call(registry, "current_time", timezone="Mars/Olympus")
    assert bad.status == ToolStatus.FAILED and "unknown time zone 'Mars/Olympus'" in bad.outcome


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "work"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('needle here')\nother line\n")
    (root / "notes.txt").write_text("a needle\n")
    (root / "blob.bin").write_bytes(b"\0needle\0")
    (root / "big.txt").write_text("".join(f"line {number}\n" for number in range(1, 5001)))
    (tmp_path / "outside.txt").write_text("secret needle outside\n")
    (root / "escape").symlink_to(tmp_path / "outside.txt")
    monkeypatch.chdir(root)
    return root


async def test_files_list_and_read(registry: ToolRegistry, workdir: Path) -> None:
    listing = (await call(registry, "list_directory")).outcome
    assert "src/" in listing and "notes.txt" in listing
    assert (await call(registry, "read_file", path="notes.txt")).outcome == "a needle\n"
    big = (await call(registry, "read_file", path="big.txt")).outcome
    stop = re.search(r"line (\d+)\n\[stopped at 24576 bytes; continue with start_line=(\d+)\]$", big)
    assert big.startswith("line 1\n") and stop is not None and int(stop[2]) == int(stop[1]) + 1
    rest = (await call(registry, "read_file", path="big.txt", start_line=int(stop[2]))).outcome
    assert rest.startswith(f"line {stop[2]}\n") and rest.endswith("line 5000\n")
    binary = await call(registry, "read_file", path="blob.bin")
    assert binary.status == ToolStatus.FAILED and "binary" in binary.outcome


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "escape", "src/../../outside.txt"])
async def test_files_refuse_paths_outside_the_working_directory(
    registry: ToolRegistry,
    workdir: Path,
    path: str,
) -> None:
    result = await call(registry, "read_file", path=path)
    assert result.status == ToolStatus.FAILED and "outside the working directory" in result.outcome


async def test_files_search_stays_inside(registry: ToolRegistry, workdir: Path) -> None:
    result = (await call(registry, "search_files", text="needle")).outcome
    assert "notes.txt:1: a needle" in result and "src/app.py:1: print('needle here')" in result
    assert "outside" not in result and "blob.bin" not in result
    refused = await call(registry, "search_files", text="needle", path="..")
    assert refused.status == ToolStatus.FAILED


async def test_files_skip_a_fifo_in_the_tree_and_refuse_to_read_it(registry: ToolRegistry, workdir: Path) -> None:
    os.mkfifo(workdir / "src" / "pipe")  # no writer ever comes: opening it for reading would wait forever
    found = await call(registry, "search_files", text="needle")
    assert found.status == ToolStatus.DONE, found.outcome
    assert "notes.txt:1: a needle" in found.outcome and "src/app.py:1:" in found.outcome
    assert "[1 files skipped: not regular files" in found.outcome
    read = await call(registry, "read_file", path="src/pipe")
    assert read.status == ToolStatus.FAILED
    assert "'src/pipe' is a FIFO (named pipe), not a regular file" in read.outcome


async def test_files_refuse_a_hard_link_to_a_file_outside(registry: ToolRegistry, workdir: Path) -> None:
    os.link(workdir.parent / "outside.txt", workdir / "linked.txt")
    read = await call(registry, "read_file", path="linked.txt")
    assert read.status == ToolStatus.FAILED and "has 2 names (hard links)" in read.outcome
    assert "secret" not in read.outcome
    found = await call(registry, "search_files", text="needle")
    assert found.status == ToolStatus.DONE and "secret" not in found.outcome and "linked.txt" not in found.outcome
    assert "notes.txt:1: a needle" in found.outcome and "(hard links)]" in found.outcome


async def test_files_say_a_missing_file_does_not_exist(registry: ToolRegistry, workdir: Path) -> None:
    read = await call(registry, "read_file", path="nope.txt")
    assert read.status == ToolStatus.FAILED and read.outcome.endswith("'nope.txt' does not exist")


async def test_shell_runs_in_the_working_directory(registry: ToolRegistry, workdir: Path) -> None:
    runner = ToolRunner(registry)
    [denied] = await runner.run([ToolCall("c", "run_shell", arguments={"command": "pwd"})], lambda state: None)
    assert denied.status == ToolStatus.DENIED
    runner.preapproved = frozenset({"run_shell"})
    [result] = await runner.run([ToolCall("c", "run_shell", arguments={"command": "pwd; exit 2"})], lambda state: None)
    assert result.outcome == f"exit status 2\n{workdir}\n"


@given(a=st.integers(-(10**6), 10**6), b=st.integers(1, 10**6), c=st.integers(-(10**6), 10**6), d=st.integers(1, 999))
@settings(max_examples=60, deadline=None)
def test_calculator_matches_fraction_arithmetic(a: int, b: int, c: int, d: int) -> None:
    spec = shipped_registry().get("calculate")
    assert spec is not None
    evaluate = spec.func.__globals__["evaluate"]
    assert evaluate(f"{a}/{b} - ({c}) * {d} / 7") == Fraction(a, b) - Fraction(c * d, 7)
    assert evaluate(f"({a}) ^ 3 % {b}") == Fraction(a) ** 3 % b


_SHIPPED: list[ToolRegistry] = []


def shipped_registry() -> ToolRegistry:
    """One shipped registry for the property test (fixtures do not mix with @given)."""
    if not _SHIPPED:
        _SHIPPED.append(shipped())
    return _SHIPPED[0]


def test_shipped_tools_declare_what_they_change(registry: ToolRegistry) -> None:
    effects = {name: spec.effect for name in registry.names() if (spec := registry.get(name)) is not None}
    for name in ("read_file", "list_directory", "search_files", "calculate", "current_time", "get_current_weather"):
        assert effects[name] == "read", name
    assert effects["run_shell"] == "command"
