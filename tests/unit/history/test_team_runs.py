"""Every team run's stop, stored (schema step 10) after the run's last message: kept per run, copied by a fork, and
migrated from a file that kept only a session's last stop (`sessions.stop_reason`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.unit.history.helpers import raw_rows
from tui_agent.history.schema import LATEST_VERSION, migrate
from tui_agent.history.store import HistoryStore
from tui_agent.history.team_runs import TeamStop
from tui_agent.status import MessageStatus, Role

BEFORE_TEAM_RUNS = 9
"""The schema version before `team_runs` (the last release's)."""
RUN = [
    ("m1", "user", None, "Write about rain"),
    ("m2", "assistant", "writer", "## Rain"),
    ("m3", "assistant", "critic", "One revision"),
    ("m4", "assistant", "writer", "## Rain, again"),
    ("m5", "assistant", "critic", "APPROVED"),
    ("m6", "user", None, "what is 6 * 7?"),
    ("m7", "assistant", None, "42"),
]


def database_before_team_runs(path: Path) -> None:
    """A file as the previous version left it: a team session (its one stop kept on the session, then a prompt
    to the agent) and a session that never ran a team."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, target=BEFORE_TEAM_RUNS)
    conn.execute(
        "INSERT INTO sessions (id, title, created_at, updated_at, message_count, active_leaf_id, agent, stop_reason) "
        "VALUES ('s1', 'rain', 1.0, 9.0, 7, 'm7', 'team:writer-critic', 'critic said APPROVED'), "
        "('s2', 'plain', 1.0, 2.0, 0, NULL, NULL, NULL)"
    )
    for position, (id_, role, agent, text) in enumerate(RUN):
        parent = RUN[position - 1][0] if position else None
        conn.execute(
            "INSERT INTO messages (id, session_id, position, role, content, status, created_at, updated_at, "
            "parent_id, agent) VALUES (?, 's1', ?, ?, ?, 'complete', ?, ?, ?, ?)",
            (id_, position, role, text, float(position), float(position), parent, agent),
        )
    conn.close()


async def test_an_older_files_team_stop_becomes_a_run_after_the_newest_member_reply(db_path: Path) -> None:
    database_before_team_runs(db_path)
    store = await HistoryStore.open(db_path)
    try:
        assert store.report.migrated_from == BEFORE_TEAM_RUNS
        assert await store.team_stops("s1") == {"m5": TeamStop("m5", "writer-critic", "critic said APPROVED")}
        assert await store.team_stops("s2") == {}
    finally:
        await store.close()
    assert raw_rows(db_path, "PRAGMA user_version") == [(LATEST_VERSION,)]


async def test_each_runs_stop_is_kept_after_its_last_message_and_a_fork_copies_them(store: HistoryStore) -> None:
    session = await store.create_session("team", agent="team:pair")
    ends = []
    for number, reason in enumerate(["critic said APPROVED", "max_rounds (4) reached"], start=1):
        await store.append_message(session.id, Role.USER, f"prompt {number}", MessageStatus.COMPLETE)
        reply = await store.append_message(session.id, Role.ASSISTANT, "ok", MessageStatus.COMPLETE, agent="critic")
        await store.record_team_stop(session.id, "pair", reason, number + 1)
        ends.append(reply.id)
    first, second = ends
    assert await store.team_stops(session.id) == {
        first: TeamStop(first, "pair", "critic said APPROVED", 2),
        second: TeamStop(second, "pair", "max_rounds (4) reached", 3),
    }
    fork = await store.fork_session(session.id, first)
    (copied,) = (await store.team_stops(fork.id)).values()
    (forked_reply,) = [m for m in await store.load_tail(fork.id, 10) if m.role is Role.ASSISTANT]
    assert copied == TeamStop(forked_reply.id, "pair", "critic said APPROVED", 2)
