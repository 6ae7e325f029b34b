"""Provides `Sessions`: the history store's writes of sessions (create, sub-agent runs, teams, rename,
agent, delete, fork), their text redacted first. A part of `HistoryStore`."""

from __future__ import annotations

from datetime import UTC, datetime

from tui_agent.history import team_runs, writes
from tui_agent.history.database import Database
from tui_agent.history.models import Session, fork_title
from tui_agent.history.next_positions import NextPositions
from tui_agent.history.redact import Redactor
from tui_agent.history.store_reads import Reads
from tui_agent.history.writer import DEFERRED


class Sessions:
    """Creating and changing sessions, for `HistoryStore`."""

    def __init__(self, db: Database, reads: Reads, redactor: Redactor, positions: NextPositions) -> None:
        self._db = db
        self._reads = reads
        self.redactor = redactor
        self._positions = positions

    async def create_session(
        self,
        title: str,
        model: str | None = None,
        endpoint: str | None = None,
        system_prompt: str | None = None,
        agent: str | None = None,
    ) -> Session:
        now = datetime.now(UTC)
        r = self.redactor
        session = Session(writes.new_id(), r.text(title), now, now, model, r.endpoint(endpoint), r.maybe(system_prompt))
        session.agent = agent
        await self._db.write(writes.insert_session(session))
        self._positions.set(session.id, 0)
        return session

    async def create_sub_session(  # `self, /`: `details` could hold a "self" key otherwise (mypy, for `Via`)
        self, /, title: str, parent_session_id: str, parent_message_id: str, agent: str, **details: str | None
    ) -> Session:
        """A session for sub-agent `agent`'s run, linked to the reply (`parent_message_id`) whose call runs it;
        `details`: `model`, `endpoint`, `system_prompt` as for `create_session`."""
        now, r = datetime.now(UTC), self.redactor
        session = Session(
            writes.new_id(),
            r.text(title),
            now,
            now,
            details.get("model"),
            r.endpoint(details.get("endpoint")),
            r.maybe(details.get("system_prompt")),
            parent_session_id,
            parent_message_id,
        )
        session.agent = agent
        await self._db.write(writes.insert_session(session))
        self._positions.set(session.id, 0)
        return session

    async def mark_team(self, session_id: str, agent: str, stop_reason: str | None = None) -> None:
        """Remember that the session runs team `agent` ("team:<name>") and why it last stopped (None: running)."""
        await self._db.write(writes.mark_team(session_id, agent, self.redactor.maybe(stop_reason)))

    async def record_team_stop(self, session_id: str, team: str, reason: str, rounds: int | None) -> None:
        """Store why a run of `team` stopped, after the session's newest message (the run's last; `team_runs`)."""
        await self._db.write(team_runs.record_stop(session_id, team, self.redactor.text(reason), rounds))

    async def team_stops(self, session_id: str) -> dict[str, team_runs.TeamStop]:
        """The session's team stops by the message each follows (every run's, not only the last)."""
        return await self._db.call(lambda conn: team_runs.stops(conn, session_id))

    async def rename_session(self, session_id: str, title: str) -> None:
        self._db.require_writable("renamed")
        await self._db.write(writes.rename_session(session_id, self.redactor.text(title)))

    async def set_session_agent(self, session_id: str, agent: str | None, system_prompt: str | None) -> None:
        """Record the agent a session runs from now on and its system prompt (redacted like any text)."""
        await self._db.write(writes.set_session_agent(session_id, agent, self.redactor.maybe(system_prompt)))

    async def delete_session(self, session_id: str) -> None:
        self._db.require_writable("deleted")
        await self._db.write(writes.delete_session(session_id))
        self._positions.forget(session_id)

    async def fork_session(self, session_id: str, message_id: str) -> Session:
        """A new session with copies of `session_id`'s messages up to and including `message_id`."""
        self._db.require_writable("forked")
        source = await self._reads.require_session(session_id)
        now = datetime.now(UTC)
        fork = Session(
            writes.new_id(),
            fork_title(source.title),
            now,
            now,
            source.model,
            source.endpoint,
            source.system_prompt,
            source.id,
            message_id,
        )
        fork.agent = source.agent
        count = await self._db.write(writes.fork_session(fork, source.id, message_id))
        fork.message_count = 0 if count is DEFERRED else int(count)
        self._positions.set(fork.id, fork.message_count)
        return fork
