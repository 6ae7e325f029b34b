"""The migration to the tree (schema step 6) on a database made by the version before it, checked in as
`tests/fixtures/linear-v5.sqlite`: nothing lost, each session one branch, the model's view unchanged."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.unit.history.helpers import raw_rows, read_only
from tui_agent.agent.conversation import Conversation
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.history import rows
from tui_agent.history.schema import LATEST_VERSION
from tui_agent.history.store import HistoryStore

FIXTURE = Path(__file__).parents[2] / "fixtures" / "linear-v5.sqlite"
COLUMNS = "id, session_id, position, role, content, status, error, model, created_at, replaced_by"


@pytest.fixture
def old_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "data" / "history.db"
    copy.parent.mkdir()
    shutil.copyfile(FIXTURE, copy)
    copy.chmod(0o600)
    return copy


def _linear(path: Path) -> dict[str, list[dict[str, object]]]:
    """What the version before the tree sent the model for each session: every message by position, read
    from the file as it was (before any upgrade), turned into the request."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert rows.is_tree(conn) is False
        sessions = [row[0] for row in conn.execute("SELECT id FROM sessions")]
        return {sid: Conversation.from_history(rows.load_tail(conn, sid, None, 1000)).request() for sid in sessions}
    finally:
        conn.close()


async def test_every_message_is_kept_and_each_session_is_one_branch(old_copy: Path) -> None:
    before = raw_rows(old_copy, f"SELECT {COLUMNS} FROM messages ORDER BY session_id, position")
    parts = raw_rows(old_copy, "SELECT * FROM message_parts ORDER BY seq")
    calls = raw_rows(old_copy, "SELECT * FROM tool_calls ORDER BY seq")
    store = await HistoryStore.open(old_copy)
    try:
        assert store.report.migrated_from == 5
        titles = {s.title: s for s in await store.list_recent()}
        retried = titles["retried"]
        tree = await store.tree(retried.id)
        prompt, failed, rhine, another, danube = tree
        assert [m.parent_id for m in tree] == [None, prompt.id, prompt.id, rhine.id, another.id]
        assert failed.replaced_by == rhine.id and retried.active_leaf_id == danube.id
        assert (await store.siblings(rhine.id)).index == 1
        assert [m.content for m in (await store.siblings(rhine.id)).messages] == ["The Rh", "The Rhine."]
        for title in ("plain", "tools", "reasoning"):
            linear = await store.tree(titles[title].id)
            assert [m.parent_id for m in linear] == [None] + [m.id for m in linear[:-1]]
            assert titles[title].active_leaf_id == linear[-1].id
        assert await store.count_messages(retried.id) == 5  # the retried reply is still shown, dimmed
    finally:
        await store.close()
    assert raw_rows(old_copy, "PRAGMA user_version") == [(LATEST_VERSION,)]
    assert raw_rows(old_copy, f"SELECT {COLUMNS} FROM messages ORDER BY session_id, position") == before
    assert raw_rows(old_copy, "SELECT * FROM message_parts ORDER BY seq") == parts
    assert raw_rows(old_copy, "SELECT * FROM tool_calls ORDER BY seq") == calls


async def test_the_model_gets_the_same_conversation_after_the_upgrade(old_copy: Path) -> None:
    expected = _linear(old_copy)
    [(retried,)] = raw_rows(old_copy, "SELECT id FROM sessions WHERE title = 'retried'")
    assert [m["content"] for m in expected[str(retried)]] == [
        "Name a river.",
        "The Rhine.",
        "Another one?",
        "The Danube.",
        "Continue.",
    ]
    built = await build_agent(Settings(db=old_copy), EndpointChoice(None, "offline", None))
    try:
        for session_id, request in expected.items():
            await built.agent.resume(session_id)
            assert built.agent.conversation.request() == request
    finally:
        await built.close()
    assert raw_rows(old_copy, "PRAGMA user_version") == [(LATEST_VERSION,)]


async def test_a_session_goes_on_under_the_migrated_active_leaf(old_copy: Path) -> None:
    store = await HistoryStore.open(old_copy)
    try:
        retried = next(s for s in await store.list_recent() if s.title == "retried")
        user, reply = await store.begin_turn(retried.id, "A third?")
        assert user.parent_id == retried.active_leaf_id and reply.parent_id == user.id
        shown = await store.load_tail(retried.id, 100)
        assert [m.content for m in shown][-3:] == ["The Danube.", "A third?", ""]
        assert [m.position for m in shown] == [0, 1, 2, 3, 4, 5, 6]
    finally:
        await store.close()


async def test_a_read_only_database_from_before_the_tree_is_read_as_one_branch(old_copy: Path) -> None:
    with read_only(old_copy, old_copy.parent):
        store = await HistoryStore.open(old_copy)
        try:
            assert store.read_only
            retried = next(s for s in await store.list_recent() if s.title == "retried")
            shown = await store.load_tail(retried.id, 100)
            assert [m.content for m in shown] == [
                "Name a river.",
                "The Rh",
                "The Rhine.",
                "Another one?",
                "The Danube.",
            ]
            assert await store.count_messages(retried.id) == 5
            assert [m.content for m in await store.children(shown[2].id)] == ["Another one?"]
            assert (await store.siblings(shown[2].id)).messages == [shown[2]]
        finally:
            await store.close()
    assert raw_rows(old_copy, "PRAGMA user_version") == [(5,)]
