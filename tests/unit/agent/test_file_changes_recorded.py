"""The files a tool call changed are recorded against the call: byte-exact, each distinct content once per
session, in the private history file, loaded back onto the calls of a resumed session, and deleted with the
session — a real agent, the offline model over HTTP, a real SQLite file, a plugin that really writes files."""

from __future__ import annotations

import asyncio
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.cli import main
from tui_agent.offline.server import BackgroundServer
from tui_agent.payloads import FileChange
from tui_agent.status import Role

PLUGINS = Path(__file__).parent / "file_plugins"
FIRST = "héllo\r\nwörld\n"  # line endings and non-ASCII kept exactly
SECOND = "second\n"


def scribe(path: str, text: str) -> dict[str, Any]:
    return {"name": "scribe", "arguments": {"path": path, "text": text}}


REPLIES: list[dict[str, Any]] = [
    {"tool_calls": [scribe("a.txt", FIRST)]},
    {"text": "Written."},
    {"tool_calls": [scribe("a.txt", SECOND), scribe("b.txt", FIRST)]},
    {"text": "Changed."},
]


def count(db: Path, table: str) -> int:
    with sqlite3.connect(db) as conn:
        (n,) = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
    return int(n)


@pytest.mark.parametrize("offline_server", [{"replies": REPLIES}], indirect=True)
async def test_changes_are_stored_once_per_content_reloaded_and_deleted_with_their_session(
    make_agent: MakeAgent,
    offline_server: BackgroundServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    db = tmp_path / "history.db"
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    await collect(built.agent.send("write a"))
    await collect(built.agent.send("change a, write b"))
    session_id = built.agent.current_session_id
    assert session_id is not None
    assert (work / "a.txt").read_bytes() == SECOND.encode() and (work / "b.txt").read_bytes() == FIRST.encode()
    await built.close()

    assert stat.S_IMODE(db.stat().st_mode) == 0o600  # the snapshots live in the private history file
    assert count(db, "file_changes") == 3
    assert count(db, "file_blobs") == 2  # FIRST is stored once, though two changes name it

    again = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    await again.agent.resume(session_id)
    replies = [m for m in await again.agent.load_history(limit=100) if m.role is Role.ASSISTANT and m.tool_calls]
    changes = [call.file_changes for m in replies for call in m.tool_calls]
    assert changes == [
        (FileChange("a.txt", None, FIRST.encode()),),
        (FileChange("a.txt", FIRST.encode(), SECOND.encode()),),
        (FileChange("b.txt", None, FIRST.encode()),),
    ]

    await again.close()
    shown = await asyncio.to_thread(main, ["--db", str(db), "sessions", "show", session_id, "--files"])
    assert shown == 0  # what a script sees
    listed = capsys.readouterr().out.splitlines()[1:]
    ids = [m.id[:8] for m in replies]
    assert [line.split()[0] for line in listed] == [ids[0], ids[1], ids[1]]  # the id rewind takes
    listed = [line.split(maxsplit=1)[1] for line in listed]
    assert listed[0].split() == ["scribe", "a.txt", "+2", "−0", "(created)"]  # the first turn's, first
    assert sorted(line.split() for line in listed[1:]) == [  # the second turn's two calls ran at once
        ["scribe", "a.txt", "+1", "−2"],
        ["scribe", "b.txt", "+2", "−0", "(created)"],
    ]

    again = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    store = again.agent.store
    last = (await store.load_tail(session_id, 100))[-1]
    fork = await store.fork_session(session_id, last.id)  # a fork carries the calls' changes and contents
    await store.delete_session(session_id)
    assert (count(db, "file_changes"), count(db, "file_blobs")) == (3, 2)
    forked = [c.file_changes for m in await store.load_tail(fork.id, 100) for c in m.tool_calls]
    assert forked == changes
    await store.delete_session(fork.id)
    assert count(db, "file_changes") == 0 and count(db, "file_blobs") == 0
