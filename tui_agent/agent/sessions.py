"""Provides `SessionActions`: what the agent does with stored sessions besides chatting in one.

List, search, rename, fork, delete, open (resume), start afresh and export — each a thin step over the
`HistoryStore`, kept here so `Agent` stays about turns. `Agent` mixes it in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_agent.agent.conversation import Conversation
from tui_agent.agent.turn import SessionTotals, TurnServices
from tui_agent.errors import UserError
from tui_agent.history.export import ExportFormat
from tui_agent.history.models import Message, SearchHit, Session
from tui_agent.history.store import HistoryStore


class SessionBusyError(UserError, RuntimeError):
    """A session change was asked for while a reply is running."""


BUSY_MESSAGE = "A reply is still running: press Esc to stop it first."


class SessionActions:
    """Session management for `Agent` (which provides the attributes declared here)."""

    store: HistoryStore
    system_prompt: str | None
    _session: Session | None
    _conversation: Conversation
    _services: TurnServices

    if TYPE_CHECKING:  # Agent's own resume rebuilds the conversation; `_turn_saved` waits for a turn's final writes

        async def resume(self, session_id: str) -> Session: ...

        async def _turn_saved(self) -> None: ...

    def _turn_running(self) -> bool:
        return getattr(self, "_job", None) is not None

    @property
    def current_session_id(self) -> str | None:
        """The id of the session being continued (None until the first prompt of a new one)."""
        return self._session.id if self._session is not None else None

    async def load_history(self, before_position: int | None = None, limit: int = 50) -> list[Message]:
        """A page of the current session, oldest first: the newest `limit`, or those before a position."""
        if self._session is None:
            return []
        await self._turn_saved()  # the last reply's final text, not the last streaming save
        if before_position is None:
            return await self.store.load_tail(self._session.id, limit)
        return await self.store.load_before(self._session.id, before_position, limit)

    async def list_sessions(self, limit: int = 200) -> list[Session]:
        """Stored sessions, most recently active first."""
        await self._turn_saved()
        return await self.store.list_recent(limit)

    async def search_sessions(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Messages in any session containing the words of `query`."""
        await self._turn_saved()
        return await self.store.search(query, limit)

    async def session_messages(self, session_id: str, limit: int = 500) -> list[Message]:
        """The last `limit` messages of any session, oldest first (to pick one to fork from)."""
        await self._turn_saved()
        return await self.store.load_tail(session_id, limit)

    async def rename_session(self, session_id: str, title: str) -> None:
        await self.store.rename_session(session_id, title)
        if self._session is not None and self._session.id == session_id:
            self._session.title = title

    async def fork_session(self, session_id: str, message_id: str) -> Session:
        """A copy of the session up to and including `message_id` (not opened)."""
        await self._turn_saved()
        return await self.store.fork_session(session_id, message_id)

    async def delete_session(self, session_id: str) -> None:
        """Delete a session; deleting the current one starts a new one."""
        if self.current_session_id == session_id:
            await self.new_session()
        await self.store.delete_session(session_id)

    async def open_session(self, session_id: str) -> Session:
        """Continue a stored session (see `Agent.resume`)."""
        return await self.resume(session_id)

    async def new_session(self) -> None:
        """Start afresh: the next prompt creates a new session."""
        if self._turn_running():
            raise SessionBusyError(BUSY_MESSAGE)
        self._session = None
        self._conversation = Conversation(self.system_prompt)
        self._services.totals = SessionTotals()

    async def export_session(self, export_format: ExportFormat = "markdown") -> tuple[str, str] | None:
        """(title, Markdown or JSON) of the current session, tool calls included; None before the first prompt."""
        if self._session is None:
            return None
        await self._turn_saved()
        export = self.store.export_json if export_format == "json" else self.store.export_markdown
        return self._session.title, await export(self._session.id)
