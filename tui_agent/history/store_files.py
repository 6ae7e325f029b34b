"""Provides `Files`: the history store's reads and writes of the files a session's tree carries — which files
to move between two points of the tree, and the record of a restore (`file_states.py`). A part of
`HistoryStore`."""

from __future__ import annotations

from collections.abc import Sequence

from tui_agent.history import file_states
from tui_agent.history.database import Database
from tui_agent.history.file_states import FileMove, Restored


class Files:
    """The files on a session's tree, for `HistoryStore`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def file_moves(self, session_id: str, start: str | None, end: str | None) -> list[FileMove]:
        """The files to move to go from point `start` of the session's tree to point `end` (None: before its
        first message)."""
        return await self._db.call(lambda conn: file_states.moves_between(conn, session_id, start, end))

    async def record_restore(
        self, session_id: str, restore_id: str, to_message: str | None, files: Sequence[Restored]
    ) -> None:
        """Record a restore of the session's files: what each held before it and what it wrote."""
        await self._db.write(file_states.record_restore(session_id, restore_id, to_message, files))

    async def last_restore(self, session_id: str) -> tuple[str, list[Restored]] | None:
        """The session's newest restore (its id and files), None when it has none."""
        return await self._db.call(lambda conn: file_states.last_restore(conn, session_id))
