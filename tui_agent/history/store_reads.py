"""Provides `Reads`: the history store's reads (sessions found, listed and searched, sub-agent runs, branches,
pages of the active branch, attachments' bytes). A part of `HistoryStore`; the other parts find the session
or message a call names through it."""

from __future__ import annotations

from collections.abc import Iterable

from tui_agent.history import attachment_rows, rows, session_glance, session_search, sub_sessions
from tui_agent.history.database import Database
from tui_agent.history.errors import MessageNotFoundError, SessionNotFoundError
from tui_agent.history.models import Message, SearchHit, Session, Siblings, Usage
from tui_agent.history.session_glance import SessionGlance
from tui_agent.history.session_search import SessionMatch
from tui_agent.prices import PriceTable
from tui_agent.tool_call import CallKey


class Reads:
    """Reading sessions and messages, for `HistoryStore`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def get_session(self, id_or_unique_prefix: str) -> Session | None:
        """The session with this id, or the only one whose id starts with it; None if none (or several)."""
        return await self._db.call(lambda conn: rows.get_session(conn, id_or_unique_prefix))

    async def require_session(self, id_or_prefix: str) -> Session:
        """As `get_session`, raising `SessionNotFoundError` when there is none."""
        session = await self.get_session(id_or_prefix)
        if session is None:
            raise SessionNotFoundError(
                f"There is no session {id_or_prefix!r} in the history (see `tui-agent sessions list`)."
            )
        return session

    async def require_message(self, message_id: str) -> Message:
        """The message with this id; `MessageNotFoundError` when there is none."""
        message = await self._db.call(lambda conn: rows.get_message(conn, message_id))
        if message is None:
            raise MessageNotFoundError(f"There is no message {message_id!r} in the history.")
        return message

    async def list_recent(self, limit: int = 50) -> list[Session]:
        """Sessions, most recently updated first."""
        return await self._db.call(lambda conn: rows.list_recent(conn, limit))

    async def find_sessions(
        self, text: str, limit: int = 100, offset: int = 0, prices: PriceTable | None = None
    ) -> list[SessionMatch]:
        """Sessions whose title or messages hold every word of `text`, most recently active first, after the
        `offset` first (every session when `text` has no word); see `tui_agent.history.session_search`. With
        `prices`, each with its glance (last reply, cost), read in the same call."""
        return await self._db.call(lambda conn: session_search.find_sessions(conn, text, limit, offset, prices))

    async def glances(self, session_ids: list[str], prices: PriceTable) -> dict[str, SessionGlance]:
        """Each session's last reply and cost (with its sub-agents'), for its row in the session screen."""
        return await self._db.call(lambda conn: session_glance.glances(conn, session_ids, prices))

    async def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Messages (in every session, on every branch) containing all the words of `query`, best matches first;
        `switch_to(hit.message_id)` opens a session on the branch of a hit."""
        return await self._db.call(lambda conn: rows.search(conn, query, limit))

    async def sub_sessions(self, session_id: str) -> list[tuple[str, str]]:
        """(session id, agent) of the sub-agent runs `session_id`'s calls started, oldest first."""
        return await self._db.call(lambda conn: sub_sessions.sub_sessions(conn, session_id))

    async def sub_session_calls(self, session_id: str) -> dict[CallKey, tuple[str, str]]:
        """`session_id`'s calls that ran a sub-agent: call key (message id, call id) -> (its session id, agent)."""
        return await self._db.call(lambda conn: sub_sessions.sub_session_calls(conn, session_id))

    async def sub_usage(self, session_id: str) -> Usage:
        """Tokens `session_id`'s sub-agent runs used, every level down (its own replies' are not counted)."""
        return await self._db.call(lambda conn: sub_sessions.sub_usage(conn, session_id))

    async def attachment_data(self, hashes: Iterable[str]) -> dict[str, bytes]:
        """The stored bytes of attachments by hash (one missing is left out)."""
        wanted = list(hashes)
        if not wanted:
            return {}
        return await self._db.call(lambda conn: attachment_rows.load_data(conn, wanted))

    async def siblings(self, message_id: str) -> Siblings:
        """The messages sharing `message_id`'s parent, oldest first, and its index among them (`‹2/3›`)."""
        message = await self.require_message(message_id)
        found = await self._db.call(lambda conn: rows.siblings(conn, message))
        return Siblings(found, next(i for i, m in enumerate(found) if m.id == message_id))

    async def children(self, message_id: str) -> list[Message]:
        """The messages that follow `message_id` directly, one per branch, oldest first."""
        message = await self.require_message(message_id)
        return await self._db.call(lambda conn: rows.children(conn, message))

    async def tree(self, session_id: str) -> list[Message]:
        """Every message of the session, every branch, in creation order (`parent_id` links them)."""
        session = await self.require_session(session_id)
        return await self._db.call(lambda conn: rows.load_tree(conn, session.id))

    async def load_tail(self, session_id: str, limit: int) -> list[Message]:
        """The last `limit` messages of the session's active branch, oldest first, tool calls included.

        A branch shows the path from the first message to the active leaf, and the replies retried on it
        (`replaced_by` set: shown dimmed, never sent to the model)."""
        return await self._db.call(lambda conn: rows.load_tail(conn, session_id, None, limit))

    async def load_before(self, session_id: str, position: int, limit: int) -> list[Message]:
        """Up to `limit` messages of the branch just before `position`, oldest first (to page backwards)."""
        return await self._db.call(lambda conn: rows.load_tail(conn, session_id, position, limit))

    async def count_messages(self, session_id: str) -> int:
        """How many messages the active branch shows (what `load_tail` pages through)."""
        return await self._db.call(lambda conn: rows.count_shown(conn, session_id))
