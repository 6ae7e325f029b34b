"""Scenario files (JSON and TOML) and how a reply is cut into chunks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_agent.offline.frames import reply_deltas
from tui_agent.offline.scenario import Reply, load_scenario
from tui_agent.offline.server import BackgroundServer

TOML = """
then = "repeat_last"

[[replies]]
status = 429
retry_after = 1.5

[[replies]]
text = "Hi"
chunk_size = 1

[[replies.tool_calls]]
name = "get_current_weather"
arguments = { location = "Paris", to_user = "Checking." }
"""


def test_toml_scenario_loads(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(TOML)
    scenario = load_scenario(path)
    assert scenario.then == "repeat_last"
    assert scenario.replies[0].status == 429 and scenario.replies[0].retry_after == 1.5
    assert scenario.replies[1].tool_calls[0].arguments == {"location": "Paris", "to_user": "Checking."}


def test_json_scenario_loads(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"replies": [{"text": "x", "stall_after": 2}]}))
    assert load_scenario(path).replies[0].stall_after == 2


def test_bad_scenario_says_which_file_and_what(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"replies": [{"txet": "typo"}]}))
    with pytest.raises(ValueError, match=r"s\.json is not valid.*txet"):
        load_scenario(path)
    with pytest.raises(ValueError, match="Cannot read scenario file"):
        load_scenario(tmp_path / "missing.toml")


def test_scenario_file_path_drives_the_server(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(TOML)
    with BackgroundServer(path) as server:
        assert server.server.scenario.replies[1].text == "Hi"


def test_text_is_cut_into_chunk_size_pieces_then_finish() -> None:
    deltas = reply_deltas(Reply(text="abcdefg", chunk_size=3))
    assert [d.get("content") for d, _ in deltas] == ["", "abc", "def", "g", None]
    assert [reason for _, reason in deltas] == [None, None, None, None, "stop"]


def test_finish_with_last_delta_and_missing_finish_reason() -> None:
    merged = reply_deltas(Reply(text="ab", chunk_size=1, finish_with_last_delta=True))
    assert merged[-1] == ({"content": "b"}, "stop")
    assert all(reason is None for _, reason in reply_deltas(Reply(text="ab", missing_finish_reason=True)))


def test_calls_start_together_in_one_chunk() -> None:
    reply = Reply.model_validate({"tool_calls": [{"name": "a"}, {"name": "b"}], "calls_start_together": True})
    starts = reply_deltas(reply)[1][0]["tool_calls"]
    assert [(s["index"], s["function"]["name"]) for s in starts] == [(0, "a"), (1, "b")]
