"""Provides `SessionGlance`, what a session's row in the session screen shows besides its stored fields — its
last reply and what it cost (with its sub-agents', as `sessions list` counts it) — and `glances`, which reads
them for a page of sessions at once.

The last reply is the newest assistant message with text (a retry is newer than the reply it replaced); only
its start is read, enough for a one-line preview.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from decimal import Decimal

from tui_agent.history.rolled_usage import rolled_tallies
from tui_agent.prices import PriceTable

PREVIEW_CHARS = 400
"""Characters of the last reply read for its preview (a row shows one line of it)."""


@dataclass(frozen=True)
class SessionGlance:
    """A session at a glance: the start of its last reply and what it used."""

    last_reply: str = ""
    """The start of its newest reply with text ("" when it has none)."""
    tokens: int = 0
    """Tokens its replies and its sub-agents' used (0: none reported)."""
    cost: Decimal | None = None
    """What those tokens cost; None when some model of them has no price (or none were used)."""


LAST_REPLY = (
    # Newest first along the (session, position) index: one short walk back per session.
    f"(SELECT substr(m.content, 1, {PREVIEW_CHARS}) FROM messages m WHERE m.session_id = {{session}}"
    " AND m.role = 'assistant' AND m.content != '' ORDER BY m.position DESC LIMIT 1)"
)
"""The start of the last reply of the session whose id is the SQL expression `{session}`, as a column."""


def glances(
    conn: sqlite3.Connection, session_ids: list[str], prices: PriceTable, replies: dict[str, str] | None = None
) -> dict[str, SessionGlance]:
    """Each of `session_ids` at a glance (every one present, a session with nothing to show as the default);
    `replies`: their last replies when already read with them (`LAST_REPLY`)."""
    tallies = rolled_tallies(conn, session_ids, prices, count_runs=False)
    if replies is None:
        replies = _last_replies(conn, session_ids)
    found = {}
    for session_id in session_ids:
        rolled = tallies.get(session_id)
        tokens = 0 if rolled is None else rolled.tally.tokens
        cost = None if rolled is None else rolled.tally.known_cost
        found[session_id] = SessionGlance(replies.get(session_id, ""), tokens, cost)
    return found


def _last_replies(conn: sqlite3.Connection, session_ids: list[str]) -> dict[str, str]:
    if not session_ids:
        return {}
    rows = conn.execute(
        # The ids are taken as given (a session that is gone has no messages), not looked up in the sessions' index.
        f"SELECT value, {LAST_REPLY.format(session='value')} FROM json_each(?)",
        (json.dumps(session_ids),),
    )
    return {session_id: text for session_id, text in rows if text}
