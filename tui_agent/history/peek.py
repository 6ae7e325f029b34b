"""Provides `peek_session`: a stored session's newest page, read straight from the history file.

`--resume`/`--continue` show it before the engine is built: stdlib sqlite3, read-only, no aiosqlite,
no migrations. Any problem (no file, a locked or damaged one, not ours, another schema version, no such session)
gives None and the app waits for the engine, which opens the file properly and says what is wrong; so does
a page with a reply or tool call left unfinished, which only the engine's open can settle.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from tui_agent.history import rows
from tui_agent.history.models import Message, Session, Usage
from tui_agent.history.opening import Mode, uri_for
from tui_agent.history.schema import APPLICATION_ID, LATEST_VERSION, application_id, user_version
from tui_agent.history.sub_sessions import sub_usage
from tui_agent.history.team_runs import TeamStop, stops
from tui_agent.status import MessageStatus

BUSY_MS = 200
"""How long to wait for a writer's lock before giving up the early look."""


@dataclass(frozen=True)
class SessionPeek:
    """What the first frames of a resumed session show: which session, its newest messages, its tokens."""

    session: Session
    messages: list[Message]
    usage: Usage
    """Its tokens, its sub-agents' included."""
    team_stops: dict[str, TeamStop] = field(default_factory=dict)
    """Why each of its team runs stopped, by the message it stopped after."""


def peek_session(db: Path, session_id: str | None, limit: int) -> SessionPeek | None:
    """The session `session_id` (an id or unique prefix; None: the most recent) with its newest `limit` messages."""
    if not db.is_file():
        return None
    try:
        conn = sqlite3.connect(uri_for(db, Mode.READ_ONLY), uri=True, timeout=BUSY_MS / 1000)
    except sqlite3.Error:
        return None
    try:
        return _read(conn, session_id, limit)
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def _read(conn: sqlite3.Connection, session_id: str | None, limit: int) -> SessionPeek | None:
    if user_version(conn) != LATEST_VERSION or application_id(conn) != APPLICATION_ID:
        return None  # another schema, or not our file: the engine's open says what it is
    if session_id is None:
        recent = rows.list_recent(conn, 1)
        session = recent[0] if recent else None
    else:
        session = rows.get_session(conn, session_id)
    if session is None:
        return None
    messages = rows.load_tail(conn, session.id, None, limit)
    if any(unfinished(message) for message in messages):
        return None  # the engine's open decides: interrupted by a run that is gone, or live in another one
    own, subs = rows.session_usage(conn, session.id), sub_usage(conn, session.id)  # as live: its sub-agents' too
    return SessionPeek(
        session,
        messages,
        Usage(own.prompt_tokens + subs.prompt_tokens, own.completion_tokens + subs.completion_tokens),
        stops(conn, session.id),
    )


def unfinished(message: Message) -> bool:
    """A reply still streaming or a tool call not yet final, as stored."""
    return message.status is MessageStatus.STREAMING or any(not call.status.is_final for call in message.tool_calls)
