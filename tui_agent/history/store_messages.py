"""Provides `Messages`: the history store's writes of new messages (a turn's prompt and reply, a message at
the branch's end, a compaction's summary, a retried reply, a sibling on a new branch) and the switch between
branches; each takes the next position on its branch. A part of `HistoryStore`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from tui_agent.history import attachment_rows, writes
from tui_agent.history.attachments import Attachment, AttachmentRef
from tui_agent.history.database import Database
from tui_agent.history.models import Message
from tui_agent.history.next_positions import NextPositions
from tui_agent.history.redact import Redactor
from tui_agent.history.store_reads import Reads
from tui_agent.history.writer import DEFERRED
from tui_agent.status import MessageStatus, Role


class Messages:
    """Adding messages and choosing the active branch, for `HistoryStore`."""

    def __init__(self, db: Database, reads: Reads, redactor: Redactor, positions: NextPositions) -> None:
        self._db = db
        self._reads = reads
        self.redactor = redactor
        self._positions = positions

    async def begin_turn(
        self, session_id: str, prompt: str, model: str | None = None, attachments: Sequence[Attachment] = ()
    ) -> tuple[Message, Message]:
        """Commit the user's prompt (with its attachments, text ones redacted like it) and a `streaming` assistant
        placeholder in one transaction."""
        user = self._new_message(session_id, Role.USER, prompt, MessageStatus.COMPLETE, None)
        blobs = [self._redacted_attachment(a) for a in attachments]
        user.attachments = [a.ref for a in blobs]
        reply = self._new_message(session_id, Role.ASSISTANT, "", MessageStatus.STREAMING, model)
        await self._add_messages([user, reply], blobs=blobs)
        return user, reply

    async def leave_out_images(self, message_id: str, why: str) -> list[str]:
        """Stop sending prompt `message_id`'s images to the model, stored (`AttachmentRef.left_out`: a note
        stands for each, in resumed sessions too); the names of the images marked."""
        marked = await self._db.write(attachment_rows.leave_out_images(message_id, why))
        return marked if isinstance(marked, list) else []  # DEFERRED: kept in memory, written when it can be

    async def leave_out_call_images(self, message_id: str, call_id: str, why: str) -> None:
        """Stop sending the images call `call_id` of reply `message_id` returned (`AttachmentRef.left_out`)."""
        await self._db.write(attachment_rows.leave_out_call_images(message_id, call_id, why))

    async def attach_to_call(
        self, message_id: str, call_id: str, attachments: Sequence[Attachment]
    ) -> list[AttachmentRef]:
        """Store what call `call_id` of reply `message_id` returned besides its text (an image), each payload's
        bytes once (text ones redacted; other bytes are not text to redact); the refs stored."""
        blobs = [self._redacted_attachment(a) if a.mime.startswith("text/") else a for a in attachments]
        refs = [a.ref for a in blobs]
        await self._db.write(writes.with_blobs(attachment_rows.insert_call_parts(message_id, call_id, refs), blobs))
        return refs

    def _redacted_attachment(self, attachment: Attachment) -> Attachment:
        return self.redactor.attachment(attachment)

    async def append_message(
        self,
        session_id: str,
        role: Role,
        content: str,
        status: MessageStatus,
        model: str | None = None,
        agent: str | None = None,
    ) -> Message:
        """Commit a message at the end of the active branch (`agent`: the team member who writes it)."""
        message = self._new_message(session_id, role, content, status, model)
        message.agent = agent
        await self._add_messages([message])
        return message

    async def add_summary(
        self, session_id: str, summary: str, compacted: Sequence[str], model: str | None = None
    ) -> Message:
        """Commit a compaction: `summary` as a `system` message at the end of the active branch, standing for
        the `compacted` messages (their `compacted_by` names it; they stay, left out of what is sent)."""
        message = self._new_message(session_id, Role.SYSTEM, summary, MessageStatus.COMPLETE, model)
        await self._add_messages([message], compacts=compacted)
        return message

    async def replace_reply(self, session_id: str, message_id: str, model: str | None = None) -> Message:
        """Commit a `streaming` reply that replaces `message_id` (a retry); the old one is kept, `replaced_by` it."""
        reply = self._new_message(session_id, Role.ASSISTANT, "", MessageStatus.STREAMING, model)
        await self._add_messages([reply], replaces=message_id)
        return reply

    async def add_sibling(
        self,
        message_id: str,
        role: Role,
        content: str,
        status: MessageStatus = MessageStatus.COMPLETE,
        model: str | None = None,
        attachments: Sequence[AttachmentRef] = (),
        files: Sequence[Attachment] = (),
        agent: str | None = None,
    ) -> Message:
        """Commit a message beside `message_id` (same parent: an edited prompt, a regenerated reply) on a new
        branch, made active; the old branch stays as it was. `attachments`: already stored (an edited prompt
        keeps its files); `files`: attachments with their bytes, stored (text ones redacted) and carried after;
        `agent`: the team member who writes it (a member's continued reply keeps its name)."""
        message = self._new_message(await self._session_of(message_id), role, content, status, model)
        message.agent = agent
        blobs = [self._redacted_attachment(a) for a in files]
        message.attachments = [*attachments, *(a.ref for a in blobs)]
        await self._add_messages([message], sibling_of=message_id, blobs=blobs)
        return message

    async def switch_to(self, message_id: str) -> str:
        """Make the branch through `message_id` the session's active one (down to its newest leaf); returns the
        new active leaf's id."""
        session_id = await self._session_of(message_id)
        leaf = await self._db.write(writes.switch_to(session_id, message_id))
        if leaf is DEFERRED:  # kept in memory: the leaf is decided when it is written
            return message_id
        return str(leaf)

    async def _session_of(self, message_id: str) -> str:
        return (await self._reads.require_message(message_id)).session_id

    def _new_message(
        self, session_id: str, role: Role, content: str, status: MessageStatus, model: str | None
    ) -> Message:
        now = datetime.now(UTC)
        return Message(
            writes.new_id(), session_id, -1, role, self.redactor.text(content), status, None, model, None, now, now
        )

    async def _add_messages(
        self,
        messages: list[Message],
        replaces: str | None = None,
        sibling_of: str | None = None,
        compacts: Sequence[str] = (),
        blobs: Sequence[Attachment] = (),
    ) -> None:
        session_id = messages[0].session_id
        if not self._positions.knows(session_id):
            self._positions.set(session_id, (await self._reads.require_session(session_id)).message_count)
        if replaces is not None:
            write = writes.replace_reply(replaces, messages[0], self._db.owner)
        elif sibling_of is not None:
            write = writes.add_sibling(sibling_of, messages, self._db.owner)
        else:
            write = writes.add_messages(messages, self._db.owner, compacts)
        first = await self._db.write(writes.with_blobs(write, blobs))
        if first is DEFERRED:
            first = self._positions.at(session_id)
        for offset, message in enumerate(messages):
            message.position = int(first) + offset
        self._positions.set(session_id, int(first) + len(messages))
