"""Provides `Replies`: the history store's writes of a reply as it goes (text streamed so far, its final
status and usage, its tool calls), redacted first. A part of `HistoryStore`."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from tui_agent.history import file_rows, writes
from tui_agent.history.database import Database
from tui_agent.history.models import Usage
from tui_agent.history.redact import Redactor
from tui_agent.payloads import FileChange
from tui_agent.status import MessageStatus, ToolStatus


class Replies:
    """A reply's progress and its tool calls, for `HistoryStore`."""

    def __init__(self, db: Database, redactor: Redactor) -> None:
        self._db = db
        self.redactor = redactor

    async def update_streaming_text(
        self, message_id: str, text: str, parts: Mapping[str, str] | None = None, *, redacted: bool = False
    ) -> None:
        """Save the text (and other parts by kind) streamed so far (call at most every ~300 ms; see
        `StreamingSaver`). `redacted`: `text` and `parts` are already what `redactor.text` makes of them (a
        `StreamRedaction`'s each)."""
        if not redacted:
            text, parts = self.redactor.text(text), _redacted(self.redactor, parts)
        await self._db.write(writes.update_text(message_id, text, _plain(parts)), key=("text", message_id))

    async def finish_message(
        self,
        message_id: str,
        status: MessageStatus,
        content: str | None = None,
        error: str | None = None,
        usage: Usage | None = None,
        parts: Mapping[str, str] | None = None,
        *,
        redacted: bool = False,
    ) -> None:
        """Write a reply's final status, text, error, usage and (when it has some) other parts by kind, redacted
        alike (`redacted`: `content` and `parts` already are, as in `update_streaming_text`)."""
        r = self.redactor
        if not redacted:
            content, parts = r.maybe(content), _redacted(r, parts)
        await self._db.write(writes.finish_message(message_id, status, content, r.maybe(error), usage, _plain(parts)))

    async def record_tool_call(
        self,
        message_id: str,
        call_id: str,
        name: str,
        raw_arguments: str,
        arguments: dict[str, Any] | None,
        status: ToolStatus = ToolStatus.PENDING,
    ) -> None:
        """Record a tool call before it runs (recording the same call again updates it)."""
        raw = self.redactor.text(raw_arguments)
        parsed = None if arguments is None else self.redactor.json(arguments)
        await self._db.write(writes.record_tool_call(message_id, call_id, name, raw, parsed, status, self._db.owner))

    async def update_tool_call(
        self,
        message_id: str,
        call_id: str,
        status: ToolStatus,
        result: str | None = None,
        error: str | None = None,
        file_changes: Sequence[FileChange] = (),
    ) -> None:
        """Move a call on: `running` stamps started_at, a final status stamps finished_at. `file_changes`: the
        files it changed, recorded in the same transaction (as `record_file_changes`): an edit's record costs
        no commit of its own."""
        r = self.redactor
        update = writes.update_tool_call(message_id, call_id, status, r.maybe(result), r.maybe(error), self._db.owner)
        if not file_changes:
            await self._db.write(update)
            return
        record = file_rows.record(message_id, call_id, list(file_changes), file_rows.working_folder())

        def both(conn: sqlite3.Connection) -> None:
            update(conn)
            record(conn)

        await self._db.write(both)

    async def record_file_changes(self, message_id: str, call_id: str, changes: Sequence[FileChange]) -> None:
        """Record the files call `call_id` of reply `message_id` changed, byte-exact (never redacted: a rewind
        writes them back), each distinct content once per session (`file_rows`)."""
        # The paths are the working directory's (the tools confine them to it): a rewind from elsewhere finds them.
        await self._db.write(file_rows.record(message_id, call_id, list(changes), file_rows.working_folder()))


def _redacted(redactor: Redactor, parts: Mapping[str, str] | None) -> dict[str, str] | None:
    """A reply's other parts by kind, each redacted like its text."""
    return None if parts is None else {kind: redactor.text(text) for kind, text in parts.items()}


def _plain(parts: Mapping[str, str] | None) -> dict[str, str] | None:
    return None if parts is None else dict(parts)
