"""Provides `find_sessions`: the sessions whose title or messages hold every word typed, most recently active
first, a page at a time, over the whole history (the session screen's filter), each with its best-matching
message. Titles are matched as the words appear in them (case aside); messages by full-text search, on every
branch. Only the page's snippets are made, so a word found in thousands of messages costs one page of them.
Given the price table, each row's glance (last reply, cost) is read with the page, in the same call: the session
screen waits for both, and a second trip to the store's thread was a tenth of its first page.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from tui_agent.history import rows
from tui_agent.history.in_lists import rows_in
from tui_agent.history.models import SearchHit, Session
from tui_agent.history.session_glance import LAST_REPLY, SessionGlance, glances
from tui_agent.prices import PriceTable
from tui_agent.status import Role

Found = tuple[Session, SearchHit | None, bool]
"""A match before its glance: the session, its best-matching message, whether its title holds every word."""
NOTHING = SessionGlance()
"""The glance of a session with nothing to show (or read without the price table)."""


@dataclass(frozen=True)
class SessionMatch:
    """A session found, and its best-matching message (None: no message holds the words, or none were given)."""

    session: Session
    hit: SearchHit | None = None
    by_title: bool = False
    """The title holds every word (then the title says why the session is listed)."""
    glance: SessionGlance = NOTHING
    """Its last reply and cost, for its row (filled by whoever has the price table: the agent)."""


def find_sessions(
    conn: sqlite3.Connection, text: str, limit: int, offset: int = 0, prices: PriceTable | None = None
) -> list[SessionMatch]:
    """The sessions matching `text` after the `offset` first, at most `limit`; every session when it has no word.
    With `prices`, each match has its glance (`SessionGlance`)."""
    if prices is not None and not text.split():
        return _recent(conn, limit, offset, prices)
    found = _found(conn, text, limit, offset)
    seen = {} if prices is None else glances(conn, [session.id for session, _, _ in found], prices)
    return [SessionMatch(session, hit, by_title, seen.get(session.id, NOTHING)) for session, hit, by_title in found]


def _recent(conn: sqlite3.Connection, limit: int, offset: int, prices: PriceTable) -> list[SessionMatch]:
    """The page of every session with its glances, each session's last reply read in the page's own walk (the
    session screen's first read: a statement fewer to prepare, a walk fewer over scattered index pages)."""
    found = conn.execute(
        f"SELECT {rows.session_columns(conn)}, {LAST_REPLY.format(session='sessions.id')} FROM sessions"
        f" {rows.RECENT_PAGE}",
        (limit, offset),
    ).fetchall()
    sessions = rows.mark_sub_agents(conn, [rows.session_from_row(row[:-1]) for row in found])
    replies = {session.id: row[-1] for session, row in zip(sessions, found, strict=True) if row[-1]}
    seen = glances(conn, [session.id for session in sessions], prices, replies)
    return [SessionMatch(session, glance=seen[session.id]) for session in sessions]


def _found(conn: sqlite3.Connection, text: str, limit: int, offset: int) -> list[Found]:
    """The matches before their glances (a `SessionMatch` is made once, with its glance: a frozen dataclass is
    slow to make, and a page of them twice over was a tenth of the page's read)."""
    words = [word.lower() for word in text.split()]
    if not words:
        return [(session, None, False) for session in rows.list_recent(conn, limit, offset)]
    conn.create_function("lower_text", 1, _lower, deterministic=True)  # Python's lower(): SQLite's is ASCII only
    query = rows.fts_query(text)
    in_title = " AND ".join("instr(lower_text(s.title), ?) > 0" for _ in words)
    found = conn.execute(
        "WITH best AS ("
        " SELECT m.session_id AS hit_session, m.id AS hit_message, m.seq AS hit_seq, m.role AS hit_role,"
        " m.position AS hit_position, MIN(messages_fts.rank) AS hit_rank"  # the other columns: that row's
        " FROM messages_fts JOIN messages m ON m.seq = messages_fts.rowid"
        " WHERE messages_fts MATCH ? GROUP BY m.session_id)"
        f" SELECT {_prefixed(rows.session_columns(conn))}, ({in_title}) AS by_title,"
        " hit_message, hit_seq, hit_role, hit_position"
        " FROM sessions s LEFT JOIN best ON hit_session = s.id"
        f" WHERE hit_session IS NOT NULL OR ({in_title})"
        " ORDER BY s.updated_at DESC, s.id LIMIT ? OFFSET ?",  # ties in a set order: pages neither overlap nor skip
        (query, *words, *words, limit, offset),
    ).fetchall()
    width = len(rows.SESSION_COLUMNS.split(", "))
    sessions = rows.mark_sub_agents(conn, [rows.session_from_row(row[:width]) for row in found])
    snippets = _snippets(conn, query, [row[width + 2] for row in found if row[width + 1] is not None])
    matches: list[Found] = []
    for session, row in zip(sessions, found, strict=True):
        by_title, message_id, seq, role, position = row[width:]
        hit = None
        if message_id is not None:
            hit = SearchHit(session.id, session.title, message_id, snippets.get(seq, ""), Role(role), position)
        matches.append((session, hit, bool(by_title)))
    return matches


def _snippets(conn: sqlite3.Connection, query: str, seqs: list[int]) -> dict[int, str]:
    """The matches marked with [brackets] in the messages `seqs`, by seq."""
    sql = (
        "SELECT rowid, snippet(messages_fts, 0, '[', ']', '…', 12) FROM messages_fts "
        "WHERE messages_fts MATCH ? AND rowid IN ({marks})"
    )
    return dict(rows_in(conn, sql, seqs, (query,)))


def _prefixed(columns: str) -> str:
    """The session columns read from `s` (NULL stand-ins stay as they are)."""
    return ", ".join(column if column == "NULL" else f"s.{column}" for column in columns.split(", "))


def _lower(text: object) -> str:
    return text.lower() if isinstance(text, str) else ""
