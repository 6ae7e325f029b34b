"""Tool return values become bounded text."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pydantic import BaseModel

from tui_agent.tools.output import cap_output, capped_text, let_go, to_text


class Point(BaseModel):
    x: int
    y: int


@dataclass
class Pair:
    left: str
    right: str


def test_values_become_text() -> None:
    assert to_text("plain") == "plain"
    assert to_text(None) == ""
    assert to_text(3) == "3"
    assert to_text(Point(x=1, y=2)) == '{"x":1,"y":2}'
    assert to_text([Point(x=1, y=2), Pair("a", "b")]) == '[{"x": 1, "y": 2}, {"left": "a", "right": "b"}]'
    assert to_text({"when": date(2024, 1, 2), "where": Path("/tmp")}) == '{"when": "2024-01-02", "where": "/tmp"}'
    assert to_text({"odd": object()}).startswith('{"odd": "<object object at')


def test_cap_counts_bytes_and_never_splits_a_character() -> None:
    assert cap_output("héllo", 100) == "héllo"
    capped = cap_output("é" * 10, 5)  # 20 bytes; 5 bytes hold two whole characters
    assert capped == "éé\n[truncated 16 bytes]"


def test_capped_text_is_cap_output_of_to_text_computed_in_pieces() -> None:
    values = [
        "é" * 3_000_000,
        [{"n": n, "text": "é" * (n % 5)} for n in range(5000)],
        {"a": [1, 2], "b": Path("/x")},
        {1: "int keys"},
        ("t", 1),
        [],
        {},
        None,
        Point(x=1, y=2),
        "short",
        ['line "one"\n\t\x01é\\' * 20_000, "x" * 70_000, "tail"],  # long items escaped a slice at a time
        {"log": "é\n" * 100_000, "n": 1},
    ]
    for value in values:
        for cap in (0, 7, 1000, 10_000_000):
            assert capped_text(value, cap) == cap_output(to_text(value), cap), (type(value), cap)


def test_let_go_empties_only_a_value_nobody_else_holds() -> None:
    kept = [1, 2, 3]

    def hand_over() -> None:
        value = kept
        let_go(value)

    hand_over()
    assert kept == [1, 2, 3], "a list the tool keeps is left alone"
    owned = {"k": 1}
    let_go(owned)
    assert owned == {}
