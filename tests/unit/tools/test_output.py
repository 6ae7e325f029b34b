"""Tool return values become bounded text."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pydantic import BaseModel

from tui_agent.tools.output import cap_output, to_text


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
