"""Provides the reads of sub-agent sessions: a session a sub-agent's run is stored in, linked to the
tool call of its caller that ran it.

A sub-agent session is an ordinary session (crash-safe, resumable) whose `parent_session_id` is its caller's
session, `parent_message_id` the caller's reply that made the `ask_<agent>` call, and `agent` the sub-agent.
A fork is linked to its parent the same way; what tells a sub-agent session apart is that the message it hangs
from made an `ask_<agent>` call for its agent. A reply's calls to the same agent that started running and its
sub-agent sessions pair up in order (a call's session is created as it starts): `sub_session_calls`.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict, deque
from collections.abc import Sequence

from tui_agent.history.models import Usage
from tui_agent.tool_call import CallKey

DELEGATE_PREFIX = "ask_"
"""The name of a delegate tool is this plus the agent's name."""
CHUNK = 500
"""Session ids asked about in one statement (SQLite's limit on variables is far above)."""
MAX_DEPTH = 8
"""Sub-agent sessions nested deeper than this are not followed (delegation stops far sooner; links are data)."""
IS_SUB = (
    "s.agent IS NOT NULL AND EXISTS (SELECT 1 FROM tool_calls t WHERE t.message_id = s.parent_message_id "
    "AND t.name = :prefix || s.agent)"
)


def sub_sessions(conn: sqlite3.Connection, session_id: str) -> list[tuple[str, str]]:
    """(session id, agent) of each sub-agent session run by a call of `session_id`'s, oldest first."""
    rows = conn.execute(
        f"SELECT s.id, s.agent FROM sessions s WHERE s.parent_session_id = :parent AND {IS_SUB} "
        "ORDER BY s.created_at, s.rowid",
        {"parent": session_id, "prefix": DELEGATE_PREFIX},
    )
    return [(str(row[0]), str(row[1])) for row in rows]


def sub_agent_ids(conn: sqlite3.Connection, session_ids: Sequence[str]) -> set[str]:
    """Which of `session_ids` are sub-agent sessions (a fork has a parent, and its agent, too)."""
    found: set[str] = set()
    for start in range(0, len(session_ids), CHUNK):
        chunk = list(session_ids[start : start + CHUNK])
        rows = conn.execute(
            f"SELECT s.id FROM sessions s WHERE s.id IN ({','.join('?' * len(chunk))}) "
            f"AND {IS_SUB.replace(':prefix', '?')}",
            [*chunk, DELEGATE_PREFIX],
        )
        found.update(str(row[0]) for row in rows)
    return found


def sub_usage(conn: sqlite3.Connection, session_id: str) -> Usage:
    """Tokens the sub-agent sessions below `session_id` used, every level down, in all."""
    prompt, completion = conn.execute(
        "WITH RECURSIVE subs(id, depth) AS ("
        f"SELECT s.id, 1 FROM sessions s WHERE s.parent_session_id = :parent AND {IS_SUB} "
        f"UNION SELECT s.id, subs.depth + 1 FROM sessions s JOIN subs ON s.parent_session_id = subs.id "
        f"WHERE subs.depth < :depth AND {IS_SUB}) "
        "SELECT COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0) FROM messages "
        "WHERE session_id IN (SELECT id FROM subs)",
        {"parent": session_id, "prefix": DELEGATE_PREFIX, "depth": MAX_DEPTH},
    ).fetchone()
    return Usage(prompt, completion)


def sub_session_calls(conn: sqlite3.Connection, session_id: str) -> dict[CallKey, tuple[str, str]]:
    """The `ask_<agent>` calls of `session_id` that ran a sub-agent: call key -> (its session id, agent)."""
    sessions = conn.execute(
        f"SELECT s.id, s.agent, s.parent_message_id FROM sessions s WHERE s.parent_session_id = :parent AND {IS_SUB} "
        "ORDER BY s.created_at, s.rowid",
        {"parent": session_id, "prefix": DELEGATE_PREFIX},
    ).fetchall()
    waiting: dict[tuple[str, str], deque[str]] = defaultdict(deque)
    for sub_id, agent, message_id in sessions:
        waiting[(str(message_id), DELEGATE_PREFIX + str(agent))].append(str(sub_id))
    found: dict[CallKey, tuple[str, str]] = {}
    for message_id, name in list(waiting):
        calls = conn.execute(
            "SELECT call_id FROM tool_calls WHERE message_id = ? AND name = ? AND started_at IS NOT NULL ORDER BY seq",
            (message_id, name),
        )
        for (call_id,) in calls:
            if waiting[(message_id, name)]:
                found[(message_id, str(call_id))] = (
                    waiting[(message_id, name)].popleft(),
                    name[len(DELEGATE_PREFIX) :],
                )
    return found
