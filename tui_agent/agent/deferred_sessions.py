"""Provides `DeferredSessions`: the session actions of `DeferredAgent`, forwarded once the agent is built.

Each action waits for the background build; when the engine could not start, listing gives nothing and
any change raises `EngineUnavailableError` carrying the sentence that says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from tui_agent.agent.agent import Agent
    from tui_agent.history.export import ExportFormat
    from tui_agent.history.models import Message, SearchHit, Session
    from tui_agent.history.peek import SessionPeek


class EngineUnavailableError(RuntimeError):
    """The agent could not be built, so sessions can't be changed."""


class DeferredSessions:
    """Session actions for `DeferredAgent` (which provides `ready`, `agent` and `failure`)."""

    failure: str | None
    resume_failure: str | None = None
    """Why the session asked for on the command line could not be resumed (shown inline once)."""
    peek: Callable[[int], Awaitable[SessionPeek | None]] | None = None
    """Reads the resumed session's newest page before the engine is built (used once)."""
    peeked: SessionPeek | None = None
    """What that early look found."""
    starts_empty = False
    """The engine will open a new session (nothing to resume), so its first page is known to be empty."""

    if TYPE_CHECKING:

        async def ready(self) -> Agent | None: ...

        @property
        def agent(self) -> Agent | None: ...

    async def _agent(self) -> Agent:
        agent = await self.ready()
        if agent is None:
            raise EngineUnavailableError(self.failure or "The engine is not available.")
        return agent

    @property
    def current_session_id(self) -> str | None:
        return self.agent.current_session_id if self.agent is not None else None

    async def load_history(self, before_position: int | None = None, limit: int = 50) -> list[Message]:
        """A page of the current session; the newest page of a resumed one may come from an early look."""
        if before_position is None and self.agent is None:
            if self.starts_empty:  # answered without asking for the engine, which is built after the paint
                return []
            if self.peek is not None:
                peek, self.peek = self.peek, None
                self.peeked = await peek(limit)
                if self.peeked is not None:
                    return self.peeked.messages
        agent = await self.ready()
        return [] if agent is None else await agent.load_history(before_position, limit)

    async def list_sessions(self, limit: int = 200) -> list[Session]:
        agent = await self.ready()
        return [] if agent is None else await agent.list_sessions(limit)

    async def search_sessions(self, query: str, limit: int = 50) -> list[SearchHit]:
        agent = await self.ready()
        return [] if agent is None else await agent.search_sessions(query, limit)

    async def session_messages(self, session_id: str, limit: int = 500) -> list[Message]:
        agent = await self.ready()
        return [] if agent is None else await agent.session_messages(session_id, limit)

    async def rename_session(self, session_id: str, title: str) -> None:
        await (await self._agent()).rename_session(session_id, title)

    async def fork_session(self, session_id: str, message_id: str) -> Session:
        return await (await self._agent()).fork_session(session_id, message_id)

    async def delete_session(self, session_id: str) -> None:
        await (await self._agent()).delete_session(session_id)

    async def open_session(self, session_id: str) -> Session:
        return await (await self._agent()).open_session(session_id)

    async def new_session(self) -> None:
        await (await self._agent()).new_session()

    async def export_session(self, export_format: ExportFormat = "markdown") -> tuple[str, str] | None:
        agent = await self.ready()
        return None if agent is None else await agent.export_session(export_format)
