"""Provides `Export`: a stored session as Markdown or JSON, with its sub-agent runs and attached text files.
A part of `HistoryStore`."""

from __future__ import annotations

from tui_agent.history import export, rows, sub_sessions
from tui_agent.history.database import Database
from tui_agent.history.models import Message, Session
from tui_agent.history.store_reads import Reads


class Export:
    """Exporting sessions, for `HistoryStore`."""

    def __init__(self, db: Database, reads: Reads) -> None:
        self._db = db
        self._reads = reads

    async def export_markdown(self, session_id: str, all_branches: bool = False) -> str:
        """The active branch as Markdown, with a note of the other branches when there are some (with
        `all_branches`: every message, each naming its id and its parent's)."""
        session, messages = await self._whole(session_id, all_branches)
        runs = await self._sub_runs(session.id, all_branches)
        return export.to_markdown(session, messages, all_branches, runs, texts=await self._attached_texts(messages))

    async def export_json(self, session_id: str, all_branches: bool = False) -> str:
        """The active branch (or, with `all_branches`, every message) as JSON; each message names its parent."""
        session, messages = await self._whole(session_id, all_branches)
        runs = await self._sub_runs(session.id, all_branches)
        return export.to_json(session, messages, runs, await self._attached_texts(messages))

    async def _sub_runs(self, session_id: str, all_branches: bool, depth: int = 0) -> list[export.SubAgentRun]:
        """The sub-agent sessions a session's calls ran, each with its own (an export includes them all)."""
        if depth > sub_sessions.MAX_DEPTH:  # links are data: a loop in a damaged file must not recurse forever
            return []
        runs = []
        for sub_id, agent in await self._reads.sub_sessions(session_id):
            session, messages = await self._whole(sub_id, all_branches)
            runs.append(
                export.SubAgentRun(agent, session, messages, await self._sub_runs(sub_id, all_branches, depth + 1))
            )
        return runs

    async def _attached_texts(self, messages: list[Message]) -> dict[str, str]:
        """The text of every attached text file among `messages`, by hash (exports include it)."""
        hashes = [ref.hash for m in messages for ref in m.attachments if ref.kind == "file"]
        data = await self._reads.attachment_data(hashes)
        return {digest: blob.decode("utf-8", errors="replace") for digest, blob in data.items()}

    async def _whole(self, session_id: str, all_branches: bool = False) -> tuple[Session, list[Message]]:
        session = await self._reads.require_session(session_id)
        load = rows.load_tree if all_branches else rows.load_all
        return session, await self._db.call(lambda conn: load(conn, session.id))
