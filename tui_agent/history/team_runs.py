"""Provides the stored stops of a session's team runs: why each run of a team stopped, written at that run's end
and read back by the message it stopped after, so the stop line is shown again where it happened.

A row of `team_runs` (schema step 10) names the run's last message: the session's active leaf when the run
ended (the newest member reply, or the person's prompt when no member got to reply). A session may run a team
many times; each run has its row. A fork copies the rows of the messages it copies.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from tui_agent.history.schema import user_version
from tui_agent.history.writer import WriteFn

TEAM_RUNS_VERSION = 10
"""The schema step that added `team_runs` (an older file, read without upgrading it, has no stops to show)."""


@dataclass(frozen=True)
class TeamStop:
    """Why one run of a team stopped, and after which message (`message_id`, the run's last)."""

    message_id: str
    team: str
    """The team's name ("" when not known)."""
    reason: str
    rounds: int | None = None
    """The rounds it played; None when not stored (a stop kept from before step 10)."""


def record_stop(session_id: str, team: str, reason: str, rounds: int | None) -> WriteFn:
    """Store a team run's stop after the session's active leaf (the run's last message, as the run ends)."""
    stopped_at = time.time()

    def run(conn: sqlite3.Connection) -> None:
        conn.execute(
            "INSERT INTO team_runs (session_id, message_id, team, reason, rounds, stopped_at) "
            "SELECT id, active_leaf_id, ?, ?, ?, ? FROM sessions WHERE id = ? AND active_leaf_id IS NOT NULL",
            (team, reason, rounds, stopped_at, session_id),
        )

    return run


def stops(conn: sqlite3.Connection, session_id: str) -> dict[str, TeamStop]:
    """The session's team stops by the message each follows (the newest, should two runs end at one message)."""
    if user_version(conn) < TEAM_RUNS_VERSION:
        return {}
    rows = conn.execute(
        "SELECT message_id, team, reason, rounds FROM team_runs WHERE session_id = ? ORDER BY seq", (session_id,)
    )
    return {str(row[0]): TeamStop(str(row[0]), str(row[1]), str(row[2]), row[3]) for row in rows}


def copy_to_fork(conn: sqlite3.Connection, source_id: str, fork_id: str) -> None:
    """Copy the stops of `source_id` whose message the fork copied (`fork_tree`: old id -> new id), renamed."""
    conn.execute(
        "INSERT INTO team_runs (session_id, message_id, team, reason, rounds, stopped_at) "
        "SELECT ?, f.new, t.team, t.reason, t.rounds, t.stopped_at FROM team_runs t "
        "JOIN fork_tree f ON f.old = t.message_id WHERE t.session_id = ? ORDER BY t.seq",
        (fork_id, source_id),
    )
