"""Provides `MemorySessions`: a `SessionLibrary` (and the pages and branches of `ConversationPort`) kept in
memory, the stored sessions of `ScriptedBackend` (which holds one), for UI tests and `bench/`.

Same behaviour as the agent's (most recent first, search over message text, fork up to a message,
deleting the current session starts a new one, a session is a tree paged along its active branch), without
SQLite; `add_session` seeds a stored session (messages without a `parent_id` follow each other).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal

from tui_agent.history.export import ExportFormat, to_json
from tui_agent.history.models import Message, SearchHit, Session, Siblings, fork_title
from tui_agent.history.session_glance import SessionGlance
from tui_agent.history.session_search import SessionMatch
from tui_agent.history.team_runs import TeamStop
from tui_agent.status import Role


@dataclass
class _Memory:
    sessions: dict[str, Session] = field(default_factory=dict)
    messages: dict[str, list[Message]] = field(default_factory=dict)
    current: str | None = None
    active: dict[str, str] = field(default_factory=dict)
    """The active leaf of each session that has been switched (else its newest message)."""
    costs: dict[str, Decimal] = field(default_factory=dict)
    """What each session seeded with a cost cost (its row shows it)."""


class SessionNotFound(LookupError):
    """No session in memory has that id."""


class MemorySessions:
    """In-memory sessions for a scripted backend."""

    def __init__(self) -> None:
        self._memory = _Memory()

    def add_session(
        self,
        title: str,
        messages: list[Message] | None = None,
        *,
        model: str | None = None,
        updated_at: datetime | None = None,
        agent: str | None = None,
        cost: Decimal | None = None,
    ) -> Session:
        """Store a session (its messages are renumbered into it) run by `agent`, which cost `cost`; returns it."""
        when = updated_at or datetime.now(UTC)
        session = Session(uuid.uuid4().hex, title, when, when, model, agent=agent)
        if cost is not None:
            self._memory.costs[session.id] = cost
        stored = [replace(m, session_id=session.id, position=i) for i, m in enumerate(messages or [])]
        if all(m.parent_id is None for m in stored):
            stored = [replace(m, parent_id=stored[i - 1].id if i else None) for i, m in enumerate(stored)]
        session.message_count = len(stored)
        self._memory.sessions[session.id] = session
        self._memory.messages[session.id] = stored
        return session

    def _session(self, session_id: str) -> Session:
        matches = [s for key, s in self._memory.sessions.items() if key.startswith(session_id)]
        if len(matches) != 1:
            raise SessionNotFound(f"There is no session {session_id!r}.")
        return matches[0]

    @property
    def current_session_id(self) -> str | None:
        return self._memory.current

    @property
    def team_stops(self) -> Mapping[str, TeamStop]:
        return {}  # no team runs in memory

    async def load_history(self, before_position: int | None = None, limit: int = 50) -> list[Message]:
        current = self._memory.current
        if current is None:
            return []
        messages = self._branch(current)
        end = len(messages) if before_position is None else max(before_position, 0)
        return messages[max(end - limit, 0) : end]

    def _branch(self, session_id: str) -> list[Message]:
        """The active branch, oldest first; a reply retried on it comes before its retry, as the store has it."""
        messages = self._memory.messages.get(session_id, [])
        by_id = {m.id: m for m in messages}
        leaf = self._memory.active.get(session_id) or (messages[-1].id if messages else None)
        path: list[Message] = []
        while leaf is not None:
            path.append(by_id[leaf])
            leaf = by_id[leaf].parent_id
        shown = {m.id for m in path}
        path.extend(m for m in messages if m.replaced_by in shown)
        return sorted(path, key=lambda m: m.position)

    async def siblings(self, message_id: str) -> Siblings:
        messages = self._memory.messages.get(self._memory.current or "", [])
        parent = next(m.parent_id for m in messages if m.id == message_id)
        beside = [m for m in messages if m.parent_id == parent]
        return Siblings(beside, next(i for i, m in enumerate(beside) if m.id == message_id))

    async def switch_branch(self, message_id: str) -> str:
        """The branch through `message_id` becomes active, down to its newest leaf."""
        current = self._memory.current or ""
        messages = self._memory.messages.get(current, [])
        leaf = message_id
        while children := [m for m in messages if m.parent_id == leaf]:
            leaf = children[-1].id
        self._memory.active[current] = leaf
        return leaf

    async def list_sessions(self, limit: int = 200) -> list[Session]:
        return sorted(self._memory.sessions.values(), key=lambda s: s.updated_at, reverse=True)[:limit]

    async def search_sessions(self, query: str, limit: int = 50) -> list[SearchHit]:
        words = query.lower().split()
        hits = [
            SearchHit(s.id, s.title, m.id, m.content[:80], m.role, m.position)
            for s in await self.list_sessions()
            for m in self._memory.messages[s.id]
            if words and all(word in m.content.lower() for word in words)
        ]
        return hits[:limit]

    async def find_sessions(self, query: str, limit: int = 100, offset: int = 0) -> list[SessionMatch]:
        words = query.lower().split()
        found = []
        for session in await self.list_sessions(len(self._memory.sessions)):
            hit = next(iter(await self._hits_in(session, words)), None)
            by_title = bool(words) and all(word in session.title.lower() for word in words)
            if by_title or hit is not None or not words:
                found.append(SessionMatch(session, hit, by_title, self._glance(session.id)))
        return found[offset : offset + limit]

    def _glance(self, session_id: str) -> SessionGlance:
        replies = [m.content for m in self._memory.messages[session_id] if m.role is Role.ASSISTANT and m.content]
        cost = self._memory.costs.get(session_id)
        return SessionGlance(replies[-1] if replies else "", 1 if cost is not None else 0, cost)

    async def _hits_in(self, session: Session, words: list[str]) -> list[SearchHit]:
        messages = self._memory.messages[session.id]
        return [
            SearchHit(session.id, session.title, m.id, m.content[:80], m.role, m.position)
            for m in messages
            if words and all(word in m.content.lower() for word in words)
        ]

    async def session_messages(self, session_id: str, limit: int = 500) -> list[Message]:
        return self._memory.messages[self._session(session_id).id][-limit:]

    async def rename_session(self, session_id: str, title: str) -> None:
        self._session(session_id).title = title

    async def fork_session(self, session_id: str, message_id: str) -> Session:
        source = self._session(session_id)
        messages = self._memory.messages[source.id]
        upto = next(i for i, m in enumerate(messages) if m.id == message_id)
        fork = self.add_session(fork_title(source.title), messages[: upto + 1], model=source.model)
        fork.parent_session_id, fork.parent_message_id = source.id, message_id
        return fork

    async def delete_session(self, session_id: str) -> None:
        session = self._session(session_id)
        if self._memory.current == session.id:
            self._memory.current = None
        del self._memory.sessions[session.id], self._memory.messages[session.id]

    async def open_session(self, session_id: str, at: str | None = None) -> Session:
        session = self._session(session_id)
        self._memory.current = session.id
        if at is not None and all(message.id != at for message in self._branch(session.id)):
            await self.switch_branch(at)
        return session

    async def new_session(self) -> None:
        self._memory.current = None

    async def export_session(self, export_format: ExportFormat = "markdown") -> tuple[str, str] | None:
        current = self._memory.current
        if current is None:
            return None
        session = self._memory.sessions[current]
        if export_format == "json":
            return session.title, to_json(session, self._memory.messages[current])
        lines = [f"# {session.title}", ""]
        lines += [f"**{m.role.value}**: {m.content}\n" for m in self._memory.messages[current]]
        return session.title, "\n".join(lines)
