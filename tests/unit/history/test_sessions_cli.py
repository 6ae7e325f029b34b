"""`tui-agent sessions ...` through the real entry point, on real database files."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from tui_agent import paths
from tui_agent.cli import main
from tui_agent.history.schema import APPLICATION_ID, LATEST_VERSION
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, ToolStatus


async def _fill(db: Path | None) -> list[str]:
    store = await HistoryStore.open(db)
    try:
        ids = []
        for title, words in [("Weather chat", "weather in Oslo"), ("Cooking", "a recipe for pancakes")]:
            session = await store.create_session(title, model="offline")
            _, reply = await store.begin_turn(session.id, words)
            await store.record_tool_call(reply.id, "c1", "get_weather", '{"city": "Oslo"}', {"city": "Oslo"})
            await store.update_tool_call(reply.id, "c1", ToolStatus.DONE, result="12 C and cloudy")
            await store.finish_message(reply.id, MessageStatus.COMPLETE, content=f"Answer about {words}.")
            ids.append(session.id)
        return ids
    finally:
        await store.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "cli.db"


def test_list_text_and_json(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--db", str(db), "sessions", "list"]) == 0
    assert "No sessions yet" in capsys.readouterr().out
    weather, cooking = asyncio.run(_fill(db))
    assert main(["--db", str(db), "sessions", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(cooking) and "Cooking" in lines[0] and "2 msgs" in lines[0]
    assert lines[1].startswith(weather)
    assert main(["--db", str(db), "sessions", "list", "--json", "-n", "1"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["id"] == cooking and row["messages"] == 2 and row["model"] == "offline"


def test_show_by_prefix_includes_tool_calls(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    weather, _ = asyncio.run(_fill(db))
    assert main(["--db", str(db), "sessions", "show", weather[:12]]) == 0
    out = capsys.readouterr().out
    assert "# Weather chat" in out and "get_weather" in out and "12 C and cloudy" in out


def test_export_json_to_file_and_last_as_markdown(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    weather, cooking = asyncio.run(_fill(db))
    target = tmp_path / "out.json"
    assert main(["--db", str(db), "sessions", "export", weather, "--format", "json", "-o", str(target)]) == 0
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["session"]["id"] == weather
    assert data["messages"][1]["tool_calls"][0]["result"] == "12 C and cloudy"
    assert str(target) in capsys.readouterr().err
    assert main(["--db", str(db), "sessions", "export", "--last"]) == 0
    assert "# Cooking" in capsys.readouterr().out


def test_search_groups_hits_by_session(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    weather, _ = asyncio.run(_fill(db))
    assert main(["--db", str(db), "sessions", "search", "Oslo"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{weather}  Weather chat") and "[Oslo]" in out
    assert main(["--db", str(db), "sessions", "search", "submarine"]) == 0
    assert "No messages match 'submarine'" in capsys.readouterr().out


def test_delete_and_unknown_ids(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    weather, cooking = asyncio.run(_fill(db))
    assert main(["--db", str(db), "sessions", "delete", weather, "-y"]) == 0
    assert "Deleted session" in capsys.readouterr().out
    assert main(["--db", str(db), "sessions", "show", weather]) == 1
    assert "no session" in capsys.readouterr().err
    assert main(["--db", str(db), "sessions", "delete", "ffff-not-there", "-y"]) == 1
    assert main(["--db", str(db), "sessions", "list", "--json"]) == 0
    assert [row["id"] for row in json.loads(capsys.readouterr().out)] == [cooking]


def test_default_database_lives_under_tui_agent_home(isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(_fill(None))
    assert paths.db_path() == isolated_home / "data" / "history.db" and paths.db_path().exists()
    assert main(["sessions", "list"]) == 0
    assert "Weather chat" in capsys.readouterr().out


def test_a_newer_database_is_read_with_a_sentence_not_a_traceback(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(_fill(db))
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.close()
    assert main(["--db", str(db), "sessions", "list"]) == 0
    out, err = capsys.readouterr()
    assert "Weather chat" in out
    assert err.startswith(f"tui-agent: {db} is from a newer tui-agent") and "read-only" in err
